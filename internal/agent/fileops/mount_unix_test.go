//go:build unix

package fileops

import (
	"os"
	"testing"
)

func TestFileopsIsMountPoint(t *testing.T) {
	tmp := t.TempDir()
	fi, err := os.Lstat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if isMountPoint(tmp, fi) {
		t.Errorf("%s taken for a mount point", tmp)
	}
	fi, err = os.Lstat("/proc")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	if !isMountPoint("/proc", fi) {
		t.Error("/proc not taken for a mount point")
	}
}
