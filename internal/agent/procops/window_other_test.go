//go:build !windows

package procops

// helperWindow exists on Windows only.
func helperWindow() int { return 2 }
