package keyring

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func randomKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, keyLen)
	if _, err := rand.Read(k); err != nil {
		t.Fatalf("rand.Read: got %v, want nil", err)
	}
	return k
}

func newKeyring(t *testing.T) *Keyring {
	t.Helper()
	k, err := New(randomKey(t), randomKey(t))
	if err != nil {
		t.Fatalf("New: got %v, want nil", err)
	}
	return k
}

func TestNewKeyLengths(t *testing.T) {
	tests := []struct {
		name       string
		signingLen int
		sealingLen int
		wantErr    bool
	}{
		{name: "both 32", signingLen: 32, sealingLen: 32},
		{name: "signing empty", signingLen: 0, sealingLen: 32, wantErr: true},
		{name: "signing 16", signingLen: 16, sealingLen: 32, wantErr: true},
		{name: "signing 31", signingLen: 31, sealingLen: 32, wantErr: true},
		{name: "sealing empty", signingLen: 32, sealingLen: 0, wantErr: true},
		{name: "sealing 16 (AES-128)", signingLen: 32, sealingLen: 16, wantErr: true},
		{name: "sealing 24 (AES-192)", signingLen: 32, sealingLen: 24, wantErr: true},
		{name: "sealing 31", signingLen: 32, sealingLen: 31, wantErr: true},
		{name: "sealing 33", signingLen: 32, sealingLen: 33, wantErr: true},
		{name: "sealing 64", signingLen: 32, sealingLen: 64, wantErr: true},
		{name: "both empty", signingLen: 0, sealingLen: 0, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := New(make([]byte, tt.signingLen), make([]byte, tt.sealingLen))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("New(%d-byte signing, %d-byte sealing): got nil error, want one", tt.signingLen, tt.sealingLen)
				}
				if k != nil {
					t.Errorf("New on error: got a keyring, want nil")
				}
				return
			}
			if err != nil || k == nil {
				t.Fatalf("New(%d-byte signing, %d-byte sealing): got %v, want a keyring", tt.signingLen, tt.sealingLen, err)
			}
		})
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := newKeyring(t)
	tests := []struct {
		name      string
		plaintext []byte
		aad       []byte
	}{
		{name: "text with aad", plaintext: []byte("ssh-ed25519 AAAA host secret"), aad: []byte("host:42")},
		{name: "empty plaintext", plaintext: []byte{}, aad: []byte("host:42")},
		{name: "no aad", plaintext: []byte("secret"), aad: nil},
		{name: "binary 4 KiB", plaintext: bytes.Repeat([]byte{0, 1, 2, 0xff}, 1024), aad: []byte{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sealed := k.Seal(tt.plaintext, tt.aad)
			if len(tt.plaintext) > 0 && bytes.Contains(sealed, tt.plaintext) {
				t.Errorf("Seal: got output containing the plaintext, want it hidden")
			}
			got, err := k.Open(sealed, tt.aad)
			if err != nil {
				t.Fatalf("Open: got %v, want nil", err)
			}
			if !bytes.Equal(got, tt.plaintext) {
				t.Errorf("Open: got %q, want %q", got, tt.plaintext)
			}
		})
	}
}

func TestSealIsRandomised(t *testing.T) {
	k := newKeyring(t)
	a := k.Seal([]byte("secret"), []byte("host:1"))
	b := k.Seal([]byte("secret"), []byte("host:1"))
	if bytes.Equal(a, b) {
		t.Fatalf("two Seals of one plaintext: got both %x, want different", a)
	}
	n := k.aead.NonceSize()
	if bytes.Equal(a[:n], b[:n]) {
		t.Errorf("nonces: got both %x, want different", a[:n])
	}
}

func TestOpenRefuses(t *testing.T) {
	k := newKeyring(t)
	plaintext, aad := []byte("root password"), []byte("host:42")
	sealed := k.Seal(plaintext, aad)

	type tc struct {
		name   string
		k      *Keyring
		sealed []byte
		aad    []byte
	}
	tests := []tc{
		{name: "wrong aad", k: k, sealed: sealed, aad: []byte("host:43")},
		{name: "missing aad", k: k, sealed: sealed, aad: nil},
		{name: "aad with extra byte", k: k, sealed: sealed, aad: append(bytes.Clone(aad), 0)},
		{name: "another keyring", k: newKeyring(t), sealed: sealed, aad: aad},
		{name: "nil", k: k, sealed: nil, aad: aad},
		{name: "extra trailing byte", k: k, sealed: append(bytes.Clone(sealed), 0), aad: aad},
	}
	for i := range sealed {
		flipped := bytes.Clone(sealed)
		flipped[i] ^= 0x01
		tests = append(tests, tc{name: "flip byte " + strconv.Itoa(i), k: k, sealed: flipped, aad: aad})
	}
	for n := range len(sealed) {
		tests = append(tests, tc{name: "truncated to " + strconv.Itoa(n), k: k, sealed: sealed[:n], aad: aad})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.k.Open(tt.sealed, tt.aad)
			if !errors.Is(err, ErrSealed) {
				t.Errorf("Open: got error %v, want ErrSealed", err)
			}
			if got != nil {
				t.Errorf("Open: got %q, want nil", got)
			}
		})
	}
}

// memStore is an in-memory Store: the first key stored under a name wins.
type memStore struct {
	mu    sync.Mutex
	keys  map[string][]byte
	calls int
	err   error // returned by every call when set
}

func newMemStore() *memStore { return &memStore{keys: map[string][]byte{}} }

func (s *memStore) ServerKey(_ context.Context, name string, candidate []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.err != nil {
		return nil, s.err
	}
	if k, ok := s.keys[name]; ok {
		return bytes.Clone(k), nil
	}
	s.keys[name] = bytes.Clone(candidate)
	return bytes.Clone(candidate), nil
}

func mustLoad(t *testing.T, st Store, signing, sealing string) *Keyring {
	t.Helper()
	k, err := Load(t.Context(), st, signing, sealing)
	if err != nil {
		t.Fatalf("Load: got %v, want nil", err)
	}
	return k
}

// assertSameKeys checks that b accepts a's tokens and opens a's seals.
func assertSameKeys(t *testing.T, a, b *Keyring) {
	t.Helper()
	tok, _, err := a.SignToken(Claims{Kind: KindUser, Subject: "u1", SessionID: "s1"}, time.Minute)
	if err != nil {
		t.Fatalf("SignToken: got %v, want nil", err)
	}
	if _, err := b.ParseToken(tok, KindUser); err != nil {
		t.Errorf("ParseToken with the other keyring: got %v, want nil (same signing key)", err)
	}
	got, err := b.Open(a.Seal([]byte("secret"), []byte("aad")), []byte("aad"))
	if err != nil || string(got) != "secret" {
		t.Errorf("Open with the other keyring: got %q, %v, want \"secret\", nil (same sealing key)", got, err)
	}
}

func TestLoadFromEnv(t *testing.T) {
	signing, sealing := randomKey(t), randomKey(t)
	st := newMemStore()
	k := mustLoad(t, st, base64.StdEncoding.EncodeToString(signing), base64.StdEncoding.EncodeToString(sealing))
	if st.calls != 0 {
		t.Errorf("store calls with both keys in env: got %d, want 0", st.calls)
	}
	direct, err := New(signing, sealing)
	if err != nil {
		t.Fatalf("New: got %v, want nil", err)
	}
	assertSameKeys(t, k, direct)
	assertSameKeys(t, direct, k)
}

func TestLoadBadEnv(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(randomKey(t))
	short := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 31))
	long := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 33))
	// 32 bytes of 0xfb encode with '+' and '/' in standard base64, '-' and '_'
	// in the URL alphabet, which Load does not accept.
	urlSafe := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32))
	tests := []struct {
		name             string
		signing, sealing string
		secret           string // must not appear in the error
	}{
		{name: "signing not base64", signing: "s3cr3t-not-base64!", sealing: good, secret: "s3cr3t-not-base64!"},
		{name: "signing 31 bytes", signing: short, sealing: good, secret: short},
		{name: "signing 33 bytes", signing: long, sealing: good, secret: long},
		{name: "signing URL alphabet", signing: urlSafe, sealing: good, secret: urlSafe},
		{name: "sealing not base64", signing: good, sealing: "s3cr3t-not-base64!", secret: "s3cr3t-not-base64!"},
		{name: "sealing 31 bytes", signing: good, sealing: short, secret: short},
		{name: "sealing 33 bytes", signing: good, sealing: long, secret: long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Load(t.Context(), newMemStore(), tt.signing, tt.sealing)
			if err == nil {
				t.Fatalf("Load: got nil error, want one")
			}
			if k != nil {
				t.Errorf("Load on error: got a keyring, want nil")
			}
			msg := err.Error()
			if strings.Contains(msg, tt.secret) {
				t.Errorf("Load error: got %q, want it not to echo the value", msg)
			}
			if strings.Contains(msg, good) {
				t.Errorf("Load error: got %q, want it not to echo the other key", msg)
			}
		})
	}
}

func TestLoadFromStore(t *testing.T) {
	st := newMemStore()
	a := mustLoad(t, st, "", "")
	b := mustLoad(t, st, "", "")
	assertSameKeys(t, a, b)
	assertSameKeys(t, b, a)

	if len(st.keys) != 2 {
		t.Fatalf("stored keys: got %d, want 2 (signing and sealing)", len(st.keys))
	}
	signing, sealing := st.keys["signing"], st.keys["sealing"]
	if len(signing) != keyLen || len(sealing) != keyLen {
		t.Fatalf("stored key lengths: got signing %d, sealing %d, want %d each", len(signing), len(sealing), keyLen)
	}
	if bytes.Equal(signing, sealing) {
		t.Errorf("stored keys: got one key for signing and sealing, want two")
	}
	if !bytes.Equal(a.signing, signing) {
		t.Errorf("signing key: got one not in the store, want the stored one")
	}

	// A keyring on another database has other keys.
	other := mustLoad(t, newMemStore(), "", "")
	tok, _, err := a.SignToken(Claims{Kind: KindUser, Subject: "u1", SessionID: "s1"}, time.Minute)
	if err != nil {
		t.Fatalf("SignToken: got %v, want nil", err)
	}
	if _, err := other.ParseToken(tok, KindUser); !errors.Is(err, ErrToken) {
		t.Errorf("ParseToken on another store's keyring: got %v, want ErrToken", err)
	}
}

func TestLoadMixesEnvAndStore(t *testing.T) {
	sealing := randomKey(t)
	st := newMemStore()
	a := mustLoad(t, st, "", base64.StdEncoding.EncodeToString(sealing))
	if _, ok := st.keys["sealing"]; ok {
		t.Errorf("store: got a sealing key, want none when the env gives it")
	}
	if _, ok := st.keys["signing"]; !ok {
		t.Errorf("store: got no signing key, want one generated")
	}
	b := mustLoad(t, st, "", base64.StdEncoding.EncodeToString(sealing))
	assertSameKeys(t, a, b)
}

func TestLoadStoreFailures(t *testing.T) {
	boom := errors.New("database is down")
	st := newMemStore()
	st.err = boom
	if _, err := Load(t.Context(), st, "", ""); !errors.Is(err, boom) {
		t.Errorf("Load with a failing store: got %v, want it to wrap %v", err, boom)
	}

	// Stored keys of the wrong length are refused by Load itself: New would
	// take a 48-byte signing key.
	tests := []struct {
		name   string
		stored map[string][]byte
	}{
		{name: "signing 16 bytes", stored: map[string][]byte{"signing": make([]byte, 16)}},
		{name: "signing 48 bytes", stored: map[string][]byte{"signing": make([]byte, 48)}},
		{name: "sealing 16 bytes", stored: map[string][]byte{"sealing": make([]byte, 16)}},
		{name: "sealing empty", stored: map[string][]byte{"sealing": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemStore()
			st.keys = tt.stored
			if k, err := Load(t.Context(), st, "", ""); err == nil || k != nil {
				t.Errorf("Load with a stored key of the wrong length: got %v, %v, want nil and an error", k, err)
			}
		})
	}
}
