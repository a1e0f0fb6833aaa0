package keyring

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// rotated returns a keyring of current keys (signing, sealing) accepting
// the given older ones, its clock at t0.
func rotated(t *testing.T, signing, sealing []byte, acceptSigning, acceptSealing [][]byte) *Keyring {
	t.Helper()
	k, err := New(signing, sealing)
	if err != nil {
		t.Fatalf("New: got %v, want nil", err)
	}
	k, err = k.Accept(acceptSigning, acceptSealing)
	if err != nil {
		t.Fatalf("Accept: got %v, want nil", err)
	}
	k.now = func() time.Time { return t0 }
	return k
}

func userToken(t *testing.T, k *Keyring) string {
	t.Helper()
	tok, _, err := k.SignToken(Claims{Kind: KindUser, Subject: "user-1", SessionID: "session-1"}, 15*time.Minute)
	if err != nil {
		t.Fatalf("SignToken: got %v, want nil", err)
	}
	return tok
}

func TestSignTokenCarriesKid(t *testing.T) {
	k := fixedKeyring(t, t0)
	tok := userToken(t, k)
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, jwt.MapClaims{})
	if err != nil {
		t.Fatalf("ParseUnverified: got %v, want nil", err)
	}
	if got, want := parsed.Header["kid"], KeyID(k.signing); got != want {
		t.Errorf("kid: got %v, want %q", got, want)
	}
	if len(KeyID(k.signing)) != 16 {
		t.Errorf("KeyID length: got %d, want 16 hex digits", len(KeyID(k.signing)))
	}
}

func TestParseTokenAcceptedKeys(t *testing.T) {
	oldKey, newKey, otherKey := randomKey(t), randomKey(t), randomKey(t)
	seal := randomKey(t)
	old := rotated(t, oldKey, seal, nil, nil)
	// Phase 1: NEW accepted beside OLD current; phase 2: NEW current, OLD
	// accepted; phase 3: NEW alone.
	phase1 := rotated(t, oldKey, seal, [][]byte{newKey}, nil)
	phase2 := rotated(t, newKey, seal, [][]byte{oldKey}, nil)
	phase3 := rotated(t, newKey, seal, nil, nil)
	other := rotated(t, otherKey, seal, nil, nil)
	tests := []struct {
		name  string
		by, k *Keyring
		ok    bool
	}{
		{"old token, phase 1", old, phase1, true},
		{"phase 2 token, phase 1", phase2, phase1, true},
		{"old token, phase 2", old, phase2, true},
		{"phase 2 token, phase 2", phase2, phase2, true},
		{"old token, phase 3", old, phase3, false},
		{"phase 2 token, phase 3", phase2, phase3, true},
		{"neither current nor accepted", other, phase2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.k.ParseToken(userToken(t, tt.by), KindUser)
			if tt.ok && err != nil {
				t.Errorf("ParseToken: got %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, ErrToken) {
				t.Errorf("ParseToken: got %v, want ErrToken", err)
			}
		})
	}
}

func TestParseTokenKidSelection(t *testing.T) {
	oldKey, newKey := randomKey(t), randomKey(t)
	k := rotated(t, newKey, randomKey(t), [][]byte{oldKey}, nil)
	tests := []struct {
		name string
		key  []byte
		kid  any
		ok   bool
	}{
		{"kid of current, signed by current", newKey, KeyID(newKey), true},
		{"kid of accepted, signed by accepted", oldKey, KeyID(oldKey), true},
		{"kid of current, signed by accepted", oldKey, KeyID(newKey), false},
		{"kid of accepted, signed by current", newKey, KeyID(oldKey), false},
		{"unknown kid, signed by current", newKey, "0011223344556677", false},
		{"kid as a path, signed by current", newKey, "../../../../dev/null", false},
		{"kid as SQL, signed by current", newKey, "' OR 1=1 --", false},
		{"kid a number", newKey, 7, false},
		{"kid empty", newKey, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := sign(t, jwt.SigningMethodHS256, tt.key, goodClaims(), map[string]any{"kid": tt.kid})
			_, err := k.ParseToken(tok, KindUser)
			if tt.ok && err != nil {
				t.Errorf("ParseToken: got %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, ErrToken) {
				t.Errorf("ParseToken: got %v, want ErrToken", err)
			}
		})
	}
}

// TestParseTokenWithoutKid: tokens issued before tokens carried a kid are
// tried against the current key, then the accepted ones.
func TestParseTokenWithoutKid(t *testing.T) {
	oldKey, newKey, otherKey := randomKey(t), randomKey(t), randomKey(t)
	k := rotated(t, newKey, randomKey(t), [][]byte{oldKey}, nil)
	for _, tt := range []struct {
		name string
		key  []byte
		ok   bool
	}{
		{"current", newKey, true},
		{"accepted", oldKey, true},
		{"neither", otherKey, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tok := sign(t, jwt.SigningMethodHS256, tt.key, goodClaims(), nil)
			_, err := k.ParseToken(tok, KindUser)
			if tt.ok && err != nil {
				t.Errorf("ParseToken: got %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, ErrToken) {
				t.Errorf("ParseToken: got %v, want ErrToken", err)
			}
		})
	}
}

func TestOpenAcceptedKeys(t *testing.T) {
	sign := randomKey(t)
	oldKey, newKey, otherKey := randomKey(t), randomKey(t), randomKey(t)
	old := rotated(t, sign, oldKey, nil, nil)
	other := rotated(t, sign, otherKey, nil, nil)
	k := rotated(t, sign, newKey, nil, [][]byte{oldKey})
	aad := []byte("host-1")

	got, err := k.Open(old.Seal([]byte("secret"), aad), aad)
	if err != nil || string(got) != "secret" {
		t.Errorf("Open of a value under an accepted key: got %q, %v, want secret, nil", got, err)
	}
	if _, err := k.Open(other.Seal([]byte("secret"), aad), aad); !errors.Is(err, ErrSealed) {
		t.Errorf("Open of a value under neither key: got %v, want ErrSealed", err)
	}
	if _, err := k.Open(old.Seal([]byte("secret"), aad), []byte("host-2")); !errors.Is(err, ErrSealed) {
		t.Errorf("Open under an accepted key with another aad: got %v, want ErrSealed", err)
	}
	// Seal uses the current key: the old keyring cannot open it, a keyring
	// of the new key alone can.
	sealed := k.Seal([]byte("fresh"), aad)
	if _, err := old.Open(sealed, aad); !errors.Is(err, ErrSealed) {
		t.Errorf("old keyring opening a new seal: got %v, want ErrSealed", err)
	}
	if got, err := rotated(t, sign, newKey, nil, nil).Open(sealed, aad); err != nil || string(got) != "fresh" {
		t.Errorf("new key alone opening a new seal: got %q, %v, want fresh, nil", got, err)
	}
}

func TestReseal(t *testing.T) {
	sign := randomKey(t)
	oldKey, newKey := randomKey(t), randomKey(t)
	old := rotated(t, sign, oldKey, nil, nil)
	k := rotated(t, sign, newKey, nil, [][]byte{oldKey})
	alone := rotated(t, sign, newKey, nil, nil)
	aad := []byte("delivery-1")

	under := old.Seal([]byte("secret"), aad)
	out, changed, err := k.Reseal(under, aad)
	if err != nil || !changed {
		t.Fatalf("Reseal of an old value: got changed %v, %v, want true, nil", changed, err)
	}
	if got, err := alone.Open(out, aad); err != nil || string(got) != "secret" {
		t.Errorf("new key alone opening the resealed value: got %q, %v, want secret, nil", got, err)
	}
	again, changed, err := k.Reseal(out, aad)
	if err != nil || changed || !bytes.Equal(again, out) {
		t.Errorf("Reseal of a current value: got changed %v, %v, want it unchanged", changed, err)
	}
	if _, _, err := alone.Reseal(under, aad); !errors.Is(err, ErrSealed) {
		t.Errorf("Reseal under no key: got %v, want ErrSealed", err)
	}
}

func TestParseKeys(t *testing.T) {
	a, b := randomKey(t), randomKey(t)
	ea, eb := base64.StdEncoding.EncodeToString(a), base64.StdEncoding.EncodeToString(b)
	got, err := ParseKeys(" " + ea + ", " + eb + ",")
	if err != nil || len(got) != 2 || !bytes.Equal(got[0], a) || !bytes.Equal(got[1], b) {
		t.Errorf("ParseKeys: got %d keys, %v, want the two", len(got), err)
	}
	if got, err := ParseKeys(""); err != nil || len(got) != 0 {
		t.Errorf("ParseKeys(\"\"): got %v, %v, want none", got, err)
	}
	short := base64.StdEncoding.EncodeToString(a[:31])
	for _, bad := range []string{ea + ",s3cr3t!", short, ea + "," + short} {
		_, err := ParseKeys(bad)
		if err == nil {
			t.Errorf("ParseKeys(bad): got nil error, want one")
			continue
		}
		for _, part := range strings.Split(bad, ",") {
			if strings.Contains(err.Error(), part) {
				t.Errorf("ParseKeys error %q echoes the value", err)
			}
		}
	}
}
