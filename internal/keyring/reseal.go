package keyring

import (
	"context"
	"errors"
	"fmt"
)

// Kinds of sealed values in the store: each is one column of one table,
// sealed with its row's id as aad.
const (
	// SealedHostSecret is a host's L1 secret (hosts.secret_sealed).
	SealedHostSecret = "host_secret"
	// SealedDeliverySecrets are a queued webhook delivery's secrets
	// (webhook_deliveries.secrets_sealed).
	SealedDeliverySecrets = "delivery_secrets"
	// SealedUserWebhookSecret is a user's webhook signing secret
	// (user_webhook_secrets.secret_sealed, keyed by user_id).
	SealedUserWebhookSecret = "user_webhook_secret"
)

// SealedKinds are every kind of sealed value, in the order Reseal walks them.
var SealedKinds = []string{SealedHostSecret, SealedDeliverySecrets, SealedUserWebhookSecret}

// Sealed is one stored sealed value. ID is its row's id, which is also the
// aad it was sealed with.
type Sealed struct {
	ID    string
	Value []byte
}

// Replacement replaces a sealed value by New, provided it still is Old.
type Replacement struct {
	ID       string
	Old, New []byte
}

// ResealStore walks and rewrites the stored sealed values.
type ResealStore interface {
	// SealedValues returns up to limit values of kind whose id is greater
	// than after, in id order.
	SealedValues(ctx context.Context, kind, after string, limit int) ([]Sealed, error)
	// ReplaceSealed applies the replacements of kind in one transaction:
	// each row whose value still is Old gets New; a row changed meanwhile
	// is left alone. It returns how many rows were replaced.
	ReplaceSealed(ctx context.Context, kind string, rs []Replacement) (int, error)
}

// ResealCounts are what Reseal did to one kind of value.
type ResealCounts struct {
	Resealed int // re-sealed under the current key
	Current  int // already under the current key, left as they were
	// Changed were rewritten by someone else between read and write (a
	// serving hub, which seals with its current key), and left to them.
	Changed int
	// Unopenable open under no key (current or accepted); kept untouched.
	Unopenable int
}

// ResealBatch is how many values Reseal reads and rewrites at a time, in
// one transaction.
const ResealBatch = 200

// Reseal re-seals every stored sealed value under k's current key, batch by
// batch, each batch in one store transaction. It is safe beside serving
// hubs: a value changed between its read and its rewrite is not
// overwritten. Values that open under no key are counted, not touched.
func Reseal(ctx context.Context, st ResealStore, k *Keyring) (map[string]ResealCounts, error) {
	out := make(map[string]ResealCounts, len(SealedKinds))
	for _, kind := range SealedKinds {
		var c ResealCounts
		after := ""
		for {
			vals, err := st.SealedValues(ctx, kind, after, ResealBatch)
			if err != nil {
				return out, fmt.Errorf("keyring: reseal %s: %w", kind, err)
			}
			if len(vals) == 0 {
				break
			}
			var rs []Replacement
			for _, v := range vals {
				nv, changed, err := k.Reseal(v.Value, []byte(v.ID))
				switch {
				case errors.Is(err, ErrSealed):
					c.Unopenable++
				case err != nil:
					return out, err
				case !changed:
					c.Current++
				default:
					rs = append(rs, Replacement{ID: v.ID, Old: v.Value, New: nv})
				}
			}
			if len(rs) > 0 {
				n, err := st.ReplaceSealed(ctx, kind, rs)
				if err != nil {
					return out, fmt.Errorf("keyring: reseal %s: %w", kind, err)
				}
				c.Resealed += n
				c.Changed += len(rs) - n
			}
			after = vals[len(vals)-1].ID
		}
		out[kind] = c
	}
	return out, nil
}
