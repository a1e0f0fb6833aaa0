package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"

	"hostgate/internal/hub"
	"hostgate/internal/keyring"
)

const keysUsage = `usage: hostgate keys generate
       hostgate keys reseal`

// keysGenerate prints a new random 32-byte key in base64, one line: for
// HOSTGATE_SIGNING_KEY, HOSTGATE_SEALING_KEY or their accepted lists. This
// is the only place the hub prints a key.
func keysGenerate(args []string, stdout io.Writer) error {
	if len(args) != 0 {
		return fmt.Errorf("%s", keysUsage)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return err
	}
	_, err := fmt.Fprintln(stdout, base64.StdEncoding.EncodeToString(k))
	return err
}

// keysReseal re-seals every sealed value under the current sealing key and
// prints the counts by kind.
func keysReseal(ctx context.Context, cfg hub.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 0 {
		return fmt.Errorf("%s", keysUsage)
	}
	counts, err := hub.Reseal(ctx, cfg, log)
	if err != nil {
		return err
	}
	unopenable := 0
	for _, kind := range keyring.SealedKinds {
		c := counts[kind]
		unopenable += c.Unopenable
		fmt.Fprintf(stdout, "%s: %d resealed, %d already current, %d changed meanwhile, %d open under no key\n",
			kind, c.Resealed, c.Current, c.Changed, c.Unopenable)
		log.Info("resealed", "kind", kind, "resealed", c.Resealed, "current", c.Current, "changed", c.Changed, "unopenable", c.Unopenable)
	}
	if unopenable > 0 {
		return fmt.Errorf("%d sealed values open under no key (left untouched): keep the key that sealed them in HOSTGATE_SEALING_KEYS_ACCEPTED", unopenable)
	}
	return nil
}
