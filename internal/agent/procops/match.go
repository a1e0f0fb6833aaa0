package procops

import (
	"path"
	"strings"
)

// nameMatcher decides whether a process is the one the caller named, for
// KILL_PROCESS and the filter of PROCESS_LIST. A bare name ("notepad.exe",
// "nginx") is compared with the process name and with the base name of its
// executable; a name with a directory part is compared with the whole
// executable path, so that one of two servers built from the same binary
// can be picked by its directory. Windows compares without regard to case
// and takes / and \ alike; Linux compares exactly.
type nameMatcher struct {
	want    string
	byPath  bool
	windows bool
}

// newMatcher returns the matcher of name by the rules of Windows
// (windows true) or of Linux.
func newMatcher(name string, windows bool) nameMatcher {
	m := nameMatcher{windows: windows}
	seps := "/"
	if windows {
		seps = `\/`
	}
	m.byPath = strings.ContainsAny(name, seps)
	m.want = m.norm(name)
	return m
}

// norm puts a name or path in the form matches compares: on Windows with
// forward slashes, cleaned; elsewhere cleaned. The case is kept (matches
// folds it on Windows).
func (m nameMatcher) norm(p string) string {
	if m.windows {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	if strings.Contains(p, "/") {
		p = path.Clean(p)
	}
	return p
}

// matches reports whether a process with that name and executable path
// (either may be empty when unreadable) is the one named.
func (m nameMatcher) matches(name, exe string) bool {
	if m.want == "" {
		return false
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	if m.byPath {
		return exe != "" && m.equal(m.norm(exe), m.want)
	}
	if name != "" && m.equal(name, m.want) {
		return true
	}
	return exe != "" && m.equal(path.Base(m.norm(exe)), m.want)
}

func (m nameMatcher) equal(a, b string) bool {
	if m.windows {
		return strings.EqualFold(a, b)
	}
	return a == b
}
