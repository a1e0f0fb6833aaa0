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
// sends anything. It knows the operations of this file and orchestration
// (orchestrate.go); others (shell sessions, settings) are checked by their
// own routes.
func ValidateArgs(ctl int64, a ControlArgs) error {
	needPath := func() error {
		if a.Path == "" {
			return ArgsError("path is required")
		}
		return nil
	}
	switch ctl {
	case CtlDirMk, CtlDirRm, CtlFileRm, CtlStrRd:
		return needPath()
	case CtlFileMk, CtlStrAd, CtlExecProgram:
		if _, err := DataString(a.Data); err != nil {
			return err
		}
		return needPath()
	case CtlStrRm, CtlZipToDir:
		s, err := DataString(a.Data)
		if err != nil {
			return err
		}
		if s == "" {
			return ArgsError("data is required")
		}
		return needPath()
	case CtlDownFile:
		var d DownloadData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		return needPath()
	case CtlExecShell:
		var d ShellData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		return needPath()
	case CtlKillProcess:
		var d KillData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		return needPath()
	case CtlProcessList, CtlSystemInfo, CtlSystemMetrics:
		return nil
	case CtlChangeWatchDir:
		// The agent checks that path is absolute on its OS and an
		// existing directory; here it must be absolute on some OS.
		if len(a.Data) != 0 && string(a.Data) != "null" {
			return ArgsError("data is not taken; path is the directory to watch")
		}
		if err := needPath(); err != nil {
			return err
		}
		if !absoluteAnywhere(a.Path) {
			return ArgsError("path must be an absolute directory path (/… or C:\\…), got %q", a.Path)
		}
		return nil
	case CtlServiceCtl:
		var d ServiceData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlRegistryRW:
		var d RegistryData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlOrchestratedStart:
		var d OrchestrateStartData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlOrchestratedShutdown:
		var d OrchestrateShutdownData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlScheduledTaskCtl:
		var d TaskData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
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
