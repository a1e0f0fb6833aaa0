//go:build !windows

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// MakeRaw puts stdin in raw mode.
func (osConsole) MakeRaw() (restore func(), err error) { return makeRawStdin() }

// Resized signals each SIGWINCH.
func (osConsole) Resized(ctx context.Context) <-chan struct{} {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	out := make(chan struct{})
	go func() {
		defer close(out)
		defer signal.Stop(sig)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
			}
			select {
			case out <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
