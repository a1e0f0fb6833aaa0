//go:build !linux && !windows

package agent

import "runtime"

// osDescription is runtime.GOOS.
func osDescription() string { return runtime.GOOS }
