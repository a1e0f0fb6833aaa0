package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"hostgate/internal/hub"
	"hostgate/internal/store"
)

const backupUsage = "usage: hostgate backup FILE"

// backup writes a copy of the embedded SQLite database to the file named
// by args, while a hub may be serving from the same data directory.
func backup(ctx context.Context, cfg hub.Config, args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] == "" {
		return errors.New(backupUsage)
	}
	if err := store.Backup(ctx, cfg.DatabaseURL, cfg.DataDir, args[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup written to %s\n", args[0])
	return nil
}
