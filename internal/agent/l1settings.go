package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

// settingsFileName is where a settings.update is kept when the agent was
// started without a setup file (flags only). It is read at start and then
// overrides the flags' bid, secret_key and report_url.
const settingsFileName = "settings.json"

// l1Settings are the host's L1 settings, which the hub may change while
// the agent runs (settings.update).
type l1Settings struct {
	BID       int64  `json:"bid"`
	SecretKey string `json:"secret_key"`
	ReportURL string `json:"report_url"`
}

// savedSettings is settings.json.
type savedSettings struct {
	l1Settings
	UpdatedAt time.Time `json:"updated_at"`
}

func (s *settings) l1() l1Settings {
	return l1Settings{BID: s.BID, SecretKey: s.SecretKey, ReportURL: s.ReportURL}
}

// with returns a copy of s carrying l.
func (s *settings) with(l l1Settings) *settings {
	c := *s
	c.BID, c.SecretKey, c.ReportURL = l.BID, l.SecretKey, l.ReportURL
	return &c
}

// checkSettingsUpdate validates the args of settings.update: bid > 0,
// secret_key 32 hex characters, url empty or http(s) with a host.
func checkSettingsUpdate(raw json.RawMessage) (l1Settings, error) {
	var u agentproto.SettingsUpdate
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		return l1Settings{}, agentproto.ArgsError("args: %v", err)
	}
	switch {
	case u.BID <= 0:
		return l1Settings{}, agentproto.ArgsError("bid must be positive")
	case !isHex(u.SecretKey, l1.SecretKeyLen):
		return l1Settings{}, agentproto.ArgsError("secret_key must be %d hexadecimal characters", l1.SecretKeyLen)
	}
	if u.URL != "" {
		if _, err := parseURL(u.URL, "http", "https"); err != nil {
			return l1Settings{}, agentproto.ArgsError("url: %v", err)
		}
	}
	return l1Settings{BID: u.BID, SecretKey: u.SecretKey, ReportURL: u.URL}, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// loadSavedSettings reads settings.json from dir; nil when there is none.
func loadSavedSettings(dir string) (*l1Settings, error) {
	var s savedSettings
	ok, err := stateStore{dir: dir}.read(settingsFileName, &s)
	if err != nil || !ok {
		return nil, err
	}
	return &s.l1Settings, nil
}

// persistSettings writes l where the next start reads it: into the setup
// file (SettingsFile) when the agent was started with one, replacing only
// bid, secret_key and report_url; otherwise into settings.json in the
// state directory. Either file is replaced atomically.
func (s *settings) persistSettings(l l1Settings, now time.Time) error {
	if s.SettingsFile == "" {
		dir, err := filepath.Abs(s.StateDir)
		if err != nil {
			return fmt.Errorf("state dir: %w", err)
		}
		return stateStore{dir: dir}.write(settingsFileName, savedSettings{l1Settings: l, UpdatedAt: now.UTC()})
	}
	return rewriteSetupFile(s.SettingsFile, l)
}

// rewriteSetupFile sets bid, secret_key and report_url in the JSON setup
// file at path, keeping every other key as it is.
func rewriteSetupFile(path string, l l1Settings) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("setup file: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("setup file %s: %w", path, err)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	for k, v := range map[string]any{"bid": l.BID, "secret_key": l.SecretKey, "report_url": l.ReportURL} {
		m[k], _ = json.Marshal(v)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("setup file: %w", err)
	}
	if err := writeFileAtomic(path, append(out, '\n')); err != nil {
		return fmt.Errorf("setup file: %w", err)
	}
	return nil
}

// writeFileAtomic replaces path with data: a temporary file in the same
// directory (mode 0600; on Windows with the old file's ACL), synced, then
// renamed over path. A crash leaves the old file or the new one.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	err = f.Chmod(0o600)
	if err == nil {
		err = copyACL(path, tmp)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// applySavedSettings makes settings.json, when the agent runs without a
// setup file and one exists, override the configured L1 settings.
func (s *settings) applySavedSettings() error {
	if s.SettingsFile != "" {
		return nil
	}
	saved, err := loadSavedSettings(s.StateDir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && saved == nil) {
		return nil
	}
	if err != nil {
		return err
	}
	s.BID, s.SecretKey, s.ReportURL = saved.BID, saved.SecretKey, saved.ReportURL
	return nil
}
