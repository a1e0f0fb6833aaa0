//go:build !windows

package main

import (
	"os"
	"syscall"
)

// startAgain replaces this process with exe, run with argv and the same
// environment. The pid stays, so systemd (or whoever waits for this
// process) sees the agent carry on rather than exit; open files are
// closed (Go opens them close-on-exec). It returns only on failure.
func startAgain(exe string, argv []string) error {
	return syscall.Exec(exe, argv, os.Environ())
}
