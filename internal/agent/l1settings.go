package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
// file at path, keeping every other key as it is (agentproto.Rewrite).
func rewriteSetupFile(path string, l l1Settings) error {
	return agentproto.Rewrite(path, func(s *agentproto.Setup) error {
		s.BID, s.SecretKey, s.ReportURL = l.BID, l.SecretKey, l.ReportURL
		return nil
	}, keepACL(path))
}

// writeFileAtomic replaces path with data (agentproto.WriteFileAtomic),
// on Windows with the old file's ACL.
func writeFileAtomic(path string, data []byte) error {
	return agentproto.WriteFileAtomic(path, data, keepACL(path))
}

// keepACL gives a file replacing path the ACL of path (Windows; on Unix
// the new file's mode is 0600).
func keepACL(path string) func(tmp string) error {
	return func(tmp string) error { return copyACL(path, tmp) }
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
