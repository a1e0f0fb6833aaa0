package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"hostgate/internal/admin"
	"hostgate/internal/audit"
	"hostgate/internal/hub"
)

const adminUsage = `usage: hostgate admin create --username U --password P --role R
       hostgate admin disable USERNAME
       hostgate admin enable USERNAME
       hostgate admin set-role USERNAME ROLE`

// adminCommand runs `hostgate admin create|disable|enable|set-role`.
func adminCommand(ctx context.Context, cfg hub.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%s", adminUsage)
	}
	switch args[0] {
	case "create":
		return adminCreate(ctx, cfg, log, args[1:], stdout, stderr)
	case "disable":
		return adminSetStatus(ctx, cfg, log, args[1:], admin.StatusDisabled, stdout)
	case "enable":
		return adminSetStatus(ctx, cfg, log, args[1:], admin.StatusActive, stdout)
	case "set-role":
		return adminSetRole(ctx, cfg, log, args[1:], stdout)
	}
	return fmt.Errorf("%s", adminUsage)
}

func adminCreate(ctx context.Context, cfg hub.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("admin create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	username := fs.String("username", "", "admin username (3-64 characters of a-z, 0-9, . _ -)")
	password := fs.String("password", "", "admin password (8-1024 bytes)")
	role := fs.String("role", string(admin.Owner), "owner, operator, finance or viewer")
	if err := fs.Parse(args); err != nil {
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

// adminSetStatus disables or enables an admin, by the console's rules: the
// last enabled owner cannot be disabled, and disabling ends the admin's
// sessions. Running hubs refuse their tokens once they read the change: at
// once where the coordination message arrives (Redis), within recent.TTL
// otherwise.
func adminSetStatus(ctx context.Context, cfg hub.Config, log *slog.Logger, args []string, status string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%s", adminUsage)
	}
	h, err := hub.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer h.Close()
	a, err := h.Admins.SetStatus(ctx, audit.CLIActor, args[0], status)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "admin %s is now %s\n", a.Username, a.Status)
	return nil
}

// adminSetRole gives an admin another role, by the console's rules (the
// last enabled owner keeps its role); the admin's sessions end, as for
// adminSetStatus. Running on the server, it needs no step-up.
func adminSetRole(ctx context.Context, cfg hub.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("%s", adminUsage)
	}
	h, err := hub.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer h.Close()
	a, err := h.Admins.SetRoleByName(ctx, audit.CLIActor, args[0], admin.Role(args[1]))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "admin %s is now %s; its sessions ended\n", a.Username, a.Role)
	return nil
}
