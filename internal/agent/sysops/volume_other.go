//go:build !windows

package sysops

// systemVolume is the root file system.
func systemVolume() string { return "/" }
