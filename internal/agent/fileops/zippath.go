package fileops

import (
	"fmt"
	"path/filepath"
	"strings"
)

// entryPath checks the name of a zip entry and returns the slash-separated
// path, relative to the target directory, it may be written to ("" for an
// entry naming the target itself, such as "./").
//
// The rules are the same on every platform, so an archive that unpacks on
// a Linux host unpacks on a Windows host too and the other way round:
// backslashes are separators (Windows tools write them), and absolute
// names, drive letters and any colon (NTFS streams), ".." and other
// all-dot elements, and Windows device names (CON, NUL, COM1…) are
// refused. filepath.IsLocal is the platform's last word on top.
func entryPath(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("empty name")
	}
	if strings.ContainsAny(name, "\x00:") {
		return "", fmt.Errorf("names with a NUL byte, a drive letter or a colon are not allowed")
	}
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") {
		return "", fmt.Errorf("absolute names are not allowed")
	}
	var kept []string
	for _, el := range strings.Split(n, "/") {
		if el == "" || el == "." {
			continue
		}
		if err := checkElement(el); err != nil {
			return "", err
		}
		kept = append(kept, el)
	}
	rel := strings.Join(kept, "/")
	if rel != "" && !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("the name is not a local path on this system")
	}
	return rel, nil
}

// checkElement refuses one path element that could leave the target or
// reach a device.
func checkElement(el string) error {
	if strings.Trim(el, ". ") == "" {
		return fmt.Errorf("%q elements are not allowed", el)
	}
	if isDeviceName(el) {
		return fmt.Errorf("%q is a Windows device name", el)
	}
	return nil
}

// isDeviceName reports whether el names a Windows device: CON, PRN, AUX,
// NUL, COM0-9, LPT0-9 (also with superscript digits), CONIN$, CONOUT$,
// with any extension and trailing dots or spaces, in any case. Windows
// opens the device instead of a file by that name in any directory.
func isDeviceName(el string) bool {
	base, _, _ := strings.Cut(el, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}
