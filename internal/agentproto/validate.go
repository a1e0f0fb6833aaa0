package agentproto

import (
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
)

// DataString reads a data field that holds a string; a missing one is "".
func DataString(data json.RawMessage) (string, error) {
	var s string
	if len(data) == 0 || string(data) == "null" {
		return "", nil
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return "", ArgsError("data must be a string")
	}
	return s, nil
}

// Validate checks the URL and the limits.
func (d DownloadData) Validate() error {
	u, err := url.Parse(d.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ArgsError("data.url must be an http or https URL")
	}
	if d.MaxBytes < 0 {
		return ArgsError("data.max_bytes must not be negative")
	}
	if d.TimeoutS < 0 || d.TimeoutS > MaxDownloadTimeoutS {
		return ArgsError("data.timeout_s must be 0..%d", MaxDownloadTimeoutS)
	}
	if d.SHA256 != "" {
		if b, err := hex.DecodeString(d.SHA256); err != nil || len(b) != 32 {
			return ArgsError("data.sha256 must be 64 hexadecimal characters")
		}
	}
	return nil
}

// Validate checks the timeout.
func (d ShellData) Validate() error {
	if d.TimeoutS < 0 || d.TimeoutS > MaxShellTimeoutS {
		return ArgsError("data.timeout_s must be 0..%d", MaxShellTimeoutS)
	}
	return nil
}

// Validate checks the timeout.
func (d KillData) Validate() error {
	if d.TimeoutS < 0 || d.TimeoutS > MaxKillTimeoutS {
		return ArgsError("data.timeout_s must be 0..%d", MaxKillTimeoutS)
	}
	return nil
}

// ValidateArgs checks the path and data of operation ctl the way the agent
// reads them, so that the hub refuses bad input before it charges or
// sends anything: the rule of its row (Control.Args). A value outside the
// table, or a row without a rule (shell sessions, settings: their own
// routes check their input), takes any args.
func ValidateArgs(ctl int64, a ControlArgs) error {
	if c, ok := ControlByValue(ctl); ok && c.Args != nil {
		return c.Args(a)
	}
	return nil
}

// The argument rules of the rows of Controls.

// anyArgs takes any path and data.
func anyArgs(ControlArgs) error { return nil }

// needPath requires a path.
func needPath(a ControlArgs) error {
	if a.Path == "" {
		return ArgsError("path is required")
	}
	return nil
}

// pathOnly requires a path; the data is not read.
func pathOnly(a ControlArgs) error { return needPath(a) }

// stringData requires data to be a string (non-empty when required),
// then a path.
func stringData(required bool) func(ControlArgs) error {
	return func(a ControlArgs) error {
		s, err := DataString(a.Data)
		if err != nil {
			return err
		}
		if required && s == "" {
			return ArgsError("data is required")
		}
		return needPath(a)
	}
}

// dataValidator is a data object that checks itself.
type dataValidator interface{ Validate() error }

// pathValidator is a data object that checks itself with the path.
type pathValidator interface{ Validate(path string) error }

// dataThenPath decodes data as T (unknown fields refused), checks it, then
// requires a path.
func dataThenPath[T dataValidator](a ControlArgs) error {
	var d T
	if err := DecodeData(a.Data, &d); err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return err
	}
	return needPath(a)
}

// dataWithPath decodes data as T (unknown fields refused) and checks it
// with the path.
func dataWithPath[T pathValidator](a ControlArgs) error {
	var d T
	if err := DecodeData(a.Data, &d); err != nil {
		return err
	}
	return d.Validate(a.Path)
}

// watchDirArgs is CHANGE_WATCH_DIR's rule: no data, and a path absolute on
// some OS (the agent checks that it is absolute on its own and an
// existing directory).
func watchDirArgs(a ControlArgs) error {
	if len(a.Data) != 0 && string(a.Data) != "null" {
		return ArgsError("data is not taken; path is the directory to watch")
	}
	if err := needPath(a); err != nil {
		return err
	}
	if !absoluteAnywhere(a.Path) {
		return ArgsError("path must be an absolute directory path (/… or C:\\…), got %q", a.Path)
	}
	return nil
}

// absoluteAnywhere reports whether p is absolute on Unix (/…) or Windows
// (C:\…, C:/…, \\server\share…): the hub does not know the host's OS.
func absoluteAnywhere(p string) bool {
	switch {
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, `\\`):
		return true
	case len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'):
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return false
}
