//go:build !unix

package fileops

import (
	"io/fs"
	"os"
)

// keepMeta does nothing off Unix: Windows modes carry only the read-only
// bit, and copying it onto the temporary file would make the rename over
// a read-only original fail; the new file takes its ACL from the
// directory, as a file written by any Windows program does.
func keepMeta(*os.File, fs.FileInfo) error { return nil }

// syncDir does nothing: Windows cannot open a directory for flushing, and
// NTFS journals the rename itself.
func syncDir(string) {}
