package main

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// MakeRaw puts stdin in raw mode and has the console interpret the
// remote shell's escape sequences on stdout.
func (osConsole) MakeRaw() (restore func(), err error) {
	restoreIn, err := makeRawStdin()
	if err != nil {
		return nil, err
	}
	out := windows.Handle(os.Stdout.Fd())
	var mode uint32
	if windows.GetConsoleMode(out, &mode) != nil {
		return restoreIn, nil
	}
	_ = windows.SetConsoleMode(out, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING|windows.DISABLE_NEWLINE_AUTO_RETURN)
	return func() {
		_ = windows.SetConsoleMode(out, mode)
		restoreIn()
	}, nil
}

// Resized polls the console's size: Windows has no SIGWINCH.
func (c osConsole) Resized(ctx context.Context) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		defer close(out)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		cols, rows, _ := c.Size()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			nc, nr, err := c.Size()
			if err != nil || (nc == cols && nr == rows) {
				continue
			}
			cols, rows = nc, nr
			select {
			case out <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
