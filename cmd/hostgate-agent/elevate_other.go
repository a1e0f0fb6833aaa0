//go:build !windows

package main

import "errors"

// elevated is true: outside Windows the installer has no UAC to pass (and
// install.Main reports the platform as unsupported).
func elevated() bool { return true }

func relaunchElevated(string, []string) (int, error) {
	return 0, errors.New("elevation exists only on Windows")
}
