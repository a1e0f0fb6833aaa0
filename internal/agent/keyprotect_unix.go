//go:build !windows

package agent

import (
	"log/slog"
	"os"
)

// platformKeySealer is nil: there is no machine key to seal with, so the
// seed stays in the setup file, readable by its owner only.
func platformKeySealer() KeySealer { return nil }

// tightenSetupFile makes the setup file (it holds the seed and the secret
// key) readable by its owner only: a wider mode is set to 0600, with a
// warning; when that fails, the warning says so.
func tightenSetupFile(path string, log *slog.Logger) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	if err := os.Chmod(path, fi.Mode().Perm()&0o700); err != nil {
		log.Warn("the setup file holds the private key seed and is readable by other users; make it 0600",
			"setup_file", path, "mode", fi.Mode().Perm().String(), "err", err)
		return
	}
	log.Warn("the setup file holds the private key seed and was readable by other users; its mode is now owner-only",
		"setup_file", path, "was", fi.Mode().Perm().String(), "now", (fi.Mode().Perm() & 0o700).String())
}
