package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"hostgate/internal/admin"
	"hostgate/internal/hub"
)

// adminCommand runs `hostgate admin create`.
func adminCommand(ctx context.Context, cfg hub.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return fmt.Errorf("usage: hostgate admin create --username U --password P --role R")
	}
	fs := flag.NewFlagSet("admin create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	username := fs.String("username", "", "admin username (3-64 characters of a-z, 0-9, . _ -)")
	password := fs.String("password", "", "admin password (8-1024 bytes)")
	role := fs.String("role", string(admin.Owner), "owner, operator, finance or viewer")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *username == "" || *password == "" {
		return fmt.Errorf("--username and --password are required")
	}
	h, err := hub.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer h.Close()
	a, err := h.Admins.Create(ctx, *username, *password, admin.Role(*role))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created admin %s (%s), id %s\n", a.Username, a.Role, a.ID)
	return nil
}
