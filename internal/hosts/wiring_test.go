package hosts

import (
	"bytes"
	"context"
	"net/url"
	"testing"
	"time"

	"hostgate/internal/keyring"
)

// rotations records what a SecretRotator was asked to apply.
type rotations struct {
	calls []string // owner/id
	by    []ChangedBy
	iss   []Issuance
}

func (r *rotations) RotateIssue(_ context.Context, owner, id string, iss Issuance, by ChangedBy) (Host, Secrets, error) {
	r.calls = append(r.calls, owner+"/"+id)
	r.by = append(r.by, by)
	r.iss = append(r.iss, iss)
	return Host{ID: id, UserID: owner, BID: 7, ListenPort: DefaultListenPort}, Secrets{SecretSealed: iss.SecretSealed}, nil
}

// drops records the connections a Disconnecter was asked to end.
type drops struct{ reasons []string }

func (d *drops) Disconnect(_ context.Context, hostID, reason string) {
	d.reasons = append(d.reasons, hostID+": "+reason)
}

// TestNewServiceRefusesMissingCollaborators: a Service built without a way
// to drop agents or to rotate secrets with their webhook is a wiring
// mistake, refused at construction rather than discovered at a rotation.
func TestNewServiceRefusesMissingCollaborators(t *testing.T) {
	for _, c := range []struct {
		name    string
		drop    Disconnecter
		rotator SecretRotator
	}{
		{"no disconnecter", nil, &rotations{}},
		{"no rotator", &drops{}, nil},
		{"neither", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("NewService: got a Service, want a panic")
				}
			}()
			NewService(nil, nil, nil, Config{}, nil, c.drop, c.rotator, nil)
		})
	}
}

// TestRotateSecretGoesThroughTheRotator: every rotation is handed to the
// SecretRotator (which queues its webhook in the same transaction) with
// the new sealed secret and who rotated, never applied by the store
// alone, and the old agent is dropped afterwards.
func TestRotateSecretGoesThroughTheRotator(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 32)
	keys, err := keyring.New(key, key)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := url.Parse("https://hub.example")
	rot, drop := &rotations{}, &drops{}
	// The embedded nil Store panics if the rotation reaches it directly.
	s := NewService(struct{ Store }{}, nil, keys, Config{PublicURL: pub, InstallTokenTTL: time.Hour}, nil, drop, rot, nil)
	by := ChangedBy{Source: "web", Kind: "user", ID: "u1", IP: "203.0.113.7"}
	c, err := s.RotateSecret(t.Context(), "u1", "h1", by)
	if err != nil {
		t.Fatal(err)
	}
	if len(rot.calls) != 1 || rot.calls[0] != "u1/h1" || rot.by[0] != by {
		t.Fatalf("rotator calls = %v by %v, want one for u1/h1 by %v", rot.calls, rot.by, by)
	}
	plain, err := keys.Open(rot.iss[0].SecretSealed, []byte("h1"))
	if err != nil || string(plain) != c.SecretKey || c.SecretKey == "" {
		t.Fatalf("sealed secret handed to the rotator opens to %q (%v), want the returned secret %q", plain, err, c.SecretKey)
	}
	if len(drop.reasons) != 1 || drop.reasons[0] != "h1: secret rotated" {
		t.Fatalf("disconnects = %v, want the rotated host's agent dropped once", drop.reasons)
	}
}
