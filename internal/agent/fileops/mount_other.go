//go:build !unix

package fileops

import "io/fs"

// isMountPoint is false off Unix: Windows volumes are refused by
// isVolumeRoot through their drive letter or UNC share; volumes mounted on
// an NTFS folder are not detected.
func isMountPoint(string, fs.FileInfo) bool { return false }
