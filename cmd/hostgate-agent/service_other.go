//go:build !windows

package main

import (
	"errors"
	"log/slog"

	"hostgate/internal/agent"
)

// isService is false: only Windows has a service control manager here.
func isService() bool { return false }

// runService is never called outside Windows.
func runService(agent.Config, slog.Level) error {
	return errors.New("service mode exists only on Windows")
}
