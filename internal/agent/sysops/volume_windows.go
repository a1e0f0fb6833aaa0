package sysops

import "os"

// systemVolume is the root of the Windows system drive (%SystemDrive%,
// normally C:).
func systemVolume() string {
	d := os.Getenv("SystemDrive")
	if len(d) != 2 || d[1] != ':' {
		d = "C:"
	}
	return d + `\`
}
