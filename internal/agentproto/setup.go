package agentproto

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The agent setup is declared here once. Issued is the part the hub
// issues for a host: the install credentials (spec section 2,
// InstallCredentials) embed it, so does the provisioning payload's hub
// section, and the one-line installer hands it to the agent. Setup is the
// agent's per-machine setup file (the --config format, docs/agent.md):
// Issued plus what is set on the machine. Installers write the file
// through Setup (Encode, Save) and the agent rewrites it through Rewrite;
// SetupOptions (setup_flags.go) are the flags that set it. A new agent
// setting is a field here (and a row there when a flag sets it):
// internal/archtest/setup_test.go lists where the setup's members appear
// and refuses a second declaration, and sdk/go/setup_parity_test.go keeps
// the SDKs' mirrors of Issued in step.

// Issued is the part of the agent setup the hub issues: every field of
// the install credentials the agent needs.
type Issued struct {
	HostID           string `json:"host_id"`
	BID              int64  `json:"bid"`
	SecretKey        string `json:"secret_key" doc:"32 hexadecimal characters; plaintext only in this response"`
	InstallToken     string `json:"install_token" doc:"One-time, URL-safe base64"`
	AgentPrivkeySeed string `json:"agent_privkey_seed" doc:"Base64 of the raw 32-byte ed25519 seed"`
	AgentPubkey      string `json:"agent_pubkey" doc:"ed25519: followed by base64 of the public key"`
	WSURL            string `json:"ws_url"`
	APIEndpoint      string `json:"api_endpoint"`
	ListenPort       int    `json:"listen_port"`
}

// Setup is the agent's setup file: the issued credentials and the
// settings made on the machine. Members it does not know are kept by
// Load and written back by Encode, Save and Rewrite.
type Setup struct {
	Issued
	// StateDir is the agent's state directory ("" the default).
	StateDir string `json:"state_dir,omitempty"`
	// ReportURL is the host's L1 reverse reporting target ("" none).
	ReportURL string `json:"report_url,omitempty"`
	// L1Listen is the local L1 listener's address, or "off" ("" means
	// 127.0.0.1:listen_port).
	L1Listen string `json:"l1_listen,omitempty"`
	// AgentPrivkeySealed is the seed as the agent sealed it to the
	// machine at its first start (key protection, Windows), and
	// KeyProtection names the scheme; installers never write them.
	AgentPrivkeySealed string `json:"agent_privkey_sealed,omitempty"`
	KeyProtection      string `json:"key_protection,omitempty"`
	// UpgradeConfirmTimeout is how long an upgraded agent waits for the
	// hub before it rolls back (0 the default).
	UpgradeConfirmTimeout Duration `json:"upgrade_confirm_timeout,omitempty"`

	// extra holds the members Setup does not know, as the text of a JSON
	// object ("" none), so that Setup values compare with ==.
	extra string
}

// legacyReportURL is the older spelling of report_url: the install
// credentials call the report URL "url" (spec section 2), and the agent
// documents that the credentials may serve as its setup file as they are,
// so setup files with "url" exist on disk. Load reads it when the file
// has no report_url; report_url wins when both are there.
const legacyReportURL = "url"

// Duration is a time.Duration written the Go way ("90s", "5m") in the
// setup file and on the command line.
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return errors.New("must not be negative")
	}
	*d = Duration(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Set implements flag.Value.
func (d *Duration) Set(s string) error { return d.UnmarshalText([]byte(s)) }

func (d Duration) String() string { return time.Duration(d).String() }

// ErrInvalidSetup wraps every error of Setup.Validate.
var ErrInvalidSetup = errors.New("invalid agent setup")

// ParseSetup reads a setup file's contents (an optional UTF-8 byte order
// mark first, as PowerShell writes one), as UnmarshalJSON does.
func ParseSetup(b []byte) (Setup, error) {
	var s Setup
	err := json.Unmarshal(bytes.TrimPrefix(b, []byte(utf8BOM)), &s)
	return s, err
}

// UnmarshalJSON reads a setup file's JSON object. Members Setup does not
// know are kept, and written back by MarshalJSON; "url" is read as
// report_url when there is no report_url (legacyReportURL).
func (s *Setup) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		return errors.New("agent setup: not a JSON object")
	}
	type plain Setup
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Setup(p)
	if _, ok := m["report_url"]; !ok {
		if raw, ok := present(m, legacyReportURL); ok {
			if err := json.Unmarshal(raw, &s.ReportURL); err != nil {
				return errors.New("agent setup: url must be a string")
			}
		}
	}
	for k := range s.members() {
		delete(m, k)
	}
	s.extra = extra(m)
	return nil
}

// MarshalJSON writes the setup with the members it did not know.
func (s Setup) MarshalJSON() ([]byte, error) {
	type plain Setup
	b, err := json.Marshal(plain(s))
	if err != nil {
		return nil, err
	}
	return withExtra(b, s.extra)
}

// DropUnknown forgets the members Setup does not know, for an installer
// that writes a new setup file from the install credentials (which carry
// more members than the file keeps).
func (s *Setup) DropUnknown() { s.extra = "" }

// Load reads the setup file at path.
func Load(path string) (Setup, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Setup{}, err
	}
	s, err := ParseSetup(b)
	if err != nil {
		return Setup{}, fmt.Errorf("setup file %s: %w", path, err)
	}
	return s, nil
}

// members is s's known members as JSON, by key.
func (s Setup) members() map[string]json.RawMessage {
	type plain Setup
	b, _ := json.Marshal(plain(s)) // strings, integers and a Duration: cannot fail
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	return m
}

// Encode is s as a setup file: indented JSON with a final newline, the
// members it did not know after the others.
func (s Setup) Encode() ([]byte, error) {
	b, err := s.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Save replaces the setup file at path with s, atomically (WriteFileAtomic).
func (s Setup) Save(path string) error {
	b, err := s.Encode()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b, nil)
}

// Rewrite changes the setup file at path through change: it loads the
// file, lets change modify it, validates the result and replaces the file
// atomically. Only the members change modified are written; every other
// member, known or not, stays as it is in the file. A member changed to
// its zero value is removed, except report_url, which is written empty so
// that an older "url" member does not take its place. prepare, when not
// nil, runs on the temporary file before it is written (the agent gives
// it the old file's Windows ACL). An error of change is returned as it
// is, and the file is left alone.
func Rewrite(path string, change func(*Setup) error, prepare func(tmp string) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("setup file: %w", err)
	}
	s, err := ParseSetup(b)
	if err != nil {
		return fmt.Errorf("setup file %s: %w", path, err)
	}
	var file map[string]json.RawMessage
	_ = json.Unmarshal(bytes.TrimPrefix(b, []byte(utf8BOM)), &file) // parsed above
	before := s.members()
	if err := change(&s); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	after, zero := s.members(), Setup{}.members()
	for k, v := range after {
		switch {
		case bytes.Equal(before[k], v):
		case k != "report_url" && bytes.Equal(zero[k], v):
			delete(file, k)
		default:
			file[k] = v
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			if k == "report_url" {
				file[k] = json.RawMessage(`""`)
			} else {
				delete(file, k)
			}
		}
	}
	out, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return fmt.Errorf("setup file: %w", err)
	}
	if err := WriteFileAtomic(path, append(out, '\n'), prepare); err != nil {
		return fmt.Errorf("setup file: %w", err)
	}
	return nil
}

// WriteFileAtomic replaces path with data: a temporary file in the same
// directory with mode 0600 (prepare, when not nil, runs on it first),
// written, synced, then renamed over path. A crash leaves the old file or
// the new one.
func WriteFileAtomic(path string, data []byte, prepare func(tmp string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	err = f.Chmod(0o600)
	if err == nil && prepare != nil {
		err = prepare(tmp)
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

// Validate checks the form of every member that is set, and reports each
// problem by field name, never by value, wrapped in ErrInvalidSetup. It
// does not ask for members to be set: an agent may take some from flags,
// and checks its whole configuration itself (agent.Config.Validate).
func (s Setup) Validate() error {
	var errs []error
	add := func(field, problem string) { errs = append(errs, fmt.Errorf("%s: %s", field, problem)) }
	if s.HostID != "" {
		if _, err := uuid.Parse(s.HostID); err != nil {
			add("host_id", "not a UUID")
		}
	}
	if s.BID < 0 {
		add("bid", "must not be negative")
	}
	var seed []byte
	if s.AgentPrivkeySeed != "" {
		b, err := decodeBase64(strings.TrimSpace(s.AgentPrivkeySeed))
		if err != nil || len(b) != ed25519.SeedSize {
			add("agent_privkey_seed", "must be the base64 of a 32-byte ed25519 seed")
		} else {
			seed = b
		}
	}
	if s.AgentPubkey != "" {
		pub, err := decodeBase64(strings.TrimPrefix(strings.TrimSpace(s.AgentPubkey), "ed25519:"))
		switch {
		case err != nil || len(pub) != ed25519.PublicKeySize:
			add("agent_pubkey", "must be the base64 of a 32-byte ed25519 public key")
		case seed != nil && !ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(pub)):
			add("agent_pubkey", "does not match agent_privkey_seed")
		}
	}
	for _, u := range []struct {
		field, v string
		schemes  []string
	}{
		{"ws_url", s.WSURL, []string{"ws", "wss"}},
		{"api_endpoint", s.APIEndpoint, []string{"http", "https"}},
		{"report_url", s.ReportURL, []string{"http", "https"}},
	} {
		if u.v != "" && !absURL(u.v, u.schemes...) {
			add(u.field, "must be an absolute "+strings.Join(u.schemes, " or ")+" URL")
		}
	}
	if s.ListenPort < 0 || s.ListenPort > 65535 {
		add("listen_port", "must be a TCP port, 1 to 65535")
	}
	if s.L1Listen != "" && s.L1Listen != "off" {
		if _, _, err := net.SplitHostPort(s.L1Listen); err != nil {
			add("l1_listen", `must be host:port or "off"`)
		}
	}
	if s.UpgradeConfirmTimeout < 0 {
		add("upgrade_confirm_timeout", "must not be negative")
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidSetup, errors.Join(errs...))
	}
	return nil
}
