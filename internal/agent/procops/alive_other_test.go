//go:build !linux && !windows

package procops

// alive reports whether pid runs.
func alive(pid int) bool { return pidAlive(pid, 0) }
