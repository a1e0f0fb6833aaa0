//go:build unix

package fileops

import (
	"io/fs"
	"os"
	"syscall"
)

// keepMeta gives the temporary file f the permission bits of old (or
// newFileMode) and, when the agent may, old's owner and group: a root
// agent rewriting a game user's file must not leave it owned by root.
func keepMeta(f *os.File, old fs.FileInfo) error {
	if old == nil {
		return f.Chmod(newFileMode)
	}
	if st, ok := old.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		// Best effort: only root may give a file away; for anyone else
		// the file keeps the agent's owner, as any rewrite would. Chown
		// comes first because it clears the set-id bits.
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
	return f.Chmod(old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
}

// syncDir flushes dir's entries so a rename just made survives a crash.
// Best effort: the data itself is already on disk.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
