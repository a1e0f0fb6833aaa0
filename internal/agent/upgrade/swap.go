package upgrade

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Names of the files an upgrade keeps beside the executable.
const (
	backupSuffix   = ".previous"  // the replaced executable, until the new one is confirmed
	rejectedInfix  = ".rejected-" // Windows: a running executable moved aside by Restore
	rejectedRandom = 4            // random bytes in a rejected file's name
)

// BackupPath is where Swap keeps the executable it replaces.
func BackupPath(exe string) string { return exe + backupSuffix }

// Swap puts staged in place of exe and keeps exe as BackupPath(exe),
// replacing an older backup. Both steps are renames within one directory,
// so each is atomic, and the running executable may be moved (Windows
// allows renaming a running executable, though not replacing or deleting
// it). If the second rename fails, the first is undone. It returns the
// backup's path.
func Swap(exe, staged string) (string, error) {
	backup := BackupPath(exe)
	if err := rename(exe, backup); err != nil {
		return "", fmt.Errorf("swap: move the running executable aside: %w", err)
	}
	if err := rename(staged, exe); err != nil {
		if rerr := rename(backup, exe); rerr != nil {
			return "", fmt.Errorf("swap: put the new executable in place: %w (and putting the old one back failed: %v)", err, rerr)
		}
		return "", fmt.Errorf("swap: put the new executable in place: %w", err)
	}
	return backup, nil
}

// Restore puts backup back in place of exe: the reverse of Swap. exe may
// be the running executable. On Windows, where that one can be renamed but
// not replaced, it is first moved aside to a "<exe>.rejected-…" name, which
// Cleanup removes once it no longer runs; elsewhere the rename replaces it.
func Restore(exe, backup string) error {
	return restore(exe, backup, runningExeLocked)
}

func restore(exe, backup string, moveAside bool) error {
	if _, err := os.Stat(backup); err != nil {
		return fmt.Errorf("restore: no previous executable: %w", err)
	}
	if !moveAside {
		if err := rename(backup, exe); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		return nil
	}
	aside, err := rejectedPath(exe)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := rename(exe, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore: move the current executable aside: %w", err)
	}
	if err := rename(backup, exe); err != nil {
		_ = rename(aside, exe)
		return fmt.Errorf("restore: %w", err)
	}
	// Fails while the rejected executable runs; Cleanup tries again.
	_ = os.Remove(aside)
	return nil
}

// rejectedPath is a new name for a rejected executable: unique, because an
// earlier one may still run and so can be neither replaced nor removed.
func rejectedPath(exe string) (string, error) {
	b := make([]byte, rejectedRandom)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return exe + rejectedInfix + hex.EncodeToString(b), nil
}

// Cleanup removes what upgrades left beside exe: staged downloads of an
// interrupted upgrade, rejected executables moved aside by Restore and,
// unless keepBackup, the backup (which is needed only while a new
// executable awaits confirmation). It returns the errors of the files it
// could not remove, such as one that still runs on Windows.
func Cleanup(exe string, keepBackup bool) error {
	dir, base := filepath.Split(exe)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	var errs []error
	for _, e := range entries {
		n := e.Name()
		leftover := strings.HasPrefix(n, base+stagedInfix) || strings.HasPrefix(n, base+rejectedInfix) ||
			!keepBackup && n == base+backupSuffix
		if !leftover || e.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
