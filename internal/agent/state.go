package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Files in the state directory.
const (
	tokenFile    = "agent-token.json"
	consumedFile = "install-token-consumed.json"
)

// PrepareStateDir resolves dir (DefaultStateDir when empty), creates it
// with mode 0700 and, when it did not exist yet, restricts it to the
// service account and administrators (on Windows through its ACL). An
// existing directory is left as it is. It returns the directory used.
func PrepareStateDir(dir string) (string, error) {
	if dir == "" {
		dir = DefaultStateDir()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", &StateDirError{Dir: dir, Err: err}
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := restrictDir(dir); err != nil {
			return "", fmt.Errorf("state dir: restrict access: %w", err)
		}
	}
	// An existing directory the agent cannot write would only fail later,
	// on every token save, for ever: find out now.
	probe, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return "", &StateDirError{Dir: dir, Err: err}
	}
	probe.Close()
	os.Remove(probe.Name())
	return dir, nil
}

// StateDirError is a state directory that cannot be created or written.
// Its text is one line naming the directory and the way out.
type StateDirError struct {
	Dir string
	Err error
}

func (e *StateDirError) Error() string {
	cause := e.Err
	if pe, ok := errors.AsType[*fs.PathError](cause); ok {
		cause = pe.Err // the directory is named once
	}
	return fmt.Sprintf("the state directory %s cannot be written (%v); run the agent as a user that can write it "+
		"(root for the default), or choose another with --state-dir", e.Dir, cause)
}

// Unwrap returns the underlying error.
func (e *StateDirError) Unwrap() error { return e.Err }

// savedToken is the agent token as persisted. HostID and Pubkey bind it to
// the credentials it was issued for: new credentials ignore it.
type savedToken struct {
	HostID    string    `json:"host_id"`
	Pubkey    string    `json:"agent_pubkey"`
	Token     string    `json:"agent_token"`
	ExpiresAt time.Time `json:"expires_at"` // as the hub said (hub clock)
	RenewAt   time.Time `json:"renew_at"`   // local clock: two thirds of the lifetime
	ValidTo   time.Time `json:"valid_to"`   // local clock estimate of ExpiresAt
}

// consumedMarker records that one install token was spent. Only its hash
// is kept: a new install token for the same host is not considered spent.
type consumedMarker struct {
	HostID      string    `json:"host_id"`
	TokenSHA256 string    `json:"install_token_sha256"`
	ConsumedAt  time.Time `json:"consumed_at"`
}

// stateStore reads and writes the state directory.
type stateStore struct{ dir string }

func (s stateStore) path(name string) string { return filepath.Join(s.dir, name) }

// loadToken returns the saved token for hostID and pubkey, or nil.
func (s stateStore) loadToken(hostID, pubkey string) (*savedToken, error) {
	var t savedToken
	ok, err := s.read(tokenFile, &t)
	if err != nil || !ok {
		return nil, err
	}
	if t.HostID != hostID || t.Pubkey != pubkey || t.Token == "" {
		return nil, nil
	}
	return &t, nil
}

func (s stateStore) saveToken(t *savedToken) error { return s.write(tokenFile, t) }

func (s stateStore) dropToken() error {
	if err := os.Remove(s.path(tokenFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state: %w", err)
	}
	return nil
}

func tokenHash(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// consumed reports whether installToken was already spent for hostID.
func (s stateStore) consumed(hostID, installToken string) (bool, error) {
	var m consumedMarker
	ok, err := s.read(consumedFile, &m)
	if err != nil || !ok {
		return false, err
	}
	return m.HostID == hostID && m.TokenSHA256 == tokenHash(installToken), nil
}

func (s stateStore) markConsumed(hostID, installToken string, now time.Time) error {
	return s.write(consumedFile, consumedMarker{HostID: hostID, TokenSHA256: tokenHash(installToken), ConsumedAt: now.UTC()})
}

// read decodes file name into v; ok is false when it does not exist. A
// corrupt file is an error the caller may treat as absent.
func (s stateStore) read(name string, v any) (ok bool, err error) {
	b, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("state: %s is corrupt: %w", name, err)
	}
	return true, nil
}

// write replaces file name atomically (writeFileAtomic).
func (s stateStore) write(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("state: encode %s: %w", name, err)
	}
	if err := writeFileAtomic(s.path(name), b); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	return nil
}
