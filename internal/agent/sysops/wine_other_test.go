//go:build !windows

package sysops

// underWine is false: Wine runs Windows binaries only.
func underWine() bool { return false }
