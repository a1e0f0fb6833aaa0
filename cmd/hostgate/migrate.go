package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"hostgate/internal/hub"
)

// migrate applies every pending migration; serve does the same at start.
func migrate(ctx context.Context, cfg hub.Config, log *slog.Logger, stdout io.Writer) error {
	if err := hub.Migrate(ctx, cfg, log); err != nil {
		return err
	}
	log.Info("migrations applied")
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}
