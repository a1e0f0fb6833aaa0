// Package keyring holds the hub's own secrets: the key that signs access
// tokens and the key that seals stored secrets. Each comes from the
// environment when given, else it is generated once and kept in the store so
// that every hub instance on one database shares it. Keys are never logged.
package keyring

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

const keyLen = 32

// Keyring signs tokens and seals secrets. Besides the current keys it may
// hold accepted older (or newer) keys: verify-only for tokens, open-only for
// sealed values, so that keys can be rotated across a fleet without
// downtime (docs/operations-guide.md §6).
type Keyring struct {
	signing []byte
	kid     string
	// verify maps a key id to its signing key: the current one and every
	// accepted one.
	verify map[string][]byte
	// acceptedSigning are the accepted signing keys, in the order given.
	acceptedSigning [][]byte
	aead            cipher.AEAD
	// opens are the accepted sealing keys' ciphers, tried after aead.
	opens []cipher.AEAD
	now   func() time.Time
}

// KeyID is the id a token signed by key carries in its kid header: the
// first 8 bytes of the key's SHA-256, in hex. It names the key without
// revealing it.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}

// ParseKeys decodes a comma-separated list of base64 32-byte keys (blank
// entries around commas are ignored). The error never echoes the value.
func ParseKeys(list string) ([][]byte, error) {
	var keys [][]byte
	for i, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, err := base64.StdEncoding.DecodeString(f)
		if err != nil || len(k) != keyLen {
			return nil, fmt.Errorf("entry %d is not base64 of %d bytes", i+1, keyLen)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Accept returns a keyring like k that also verifies tokens signed by any of
// signing and opens values sealed under any of sealing. Signing and sealing
// still use k's current keys.
func (k *Keyring) Accept(signing, sealing [][]byte) (*Keyring, error) {
	out := *k
	out.verify = make(map[string][]byte, len(k.verify)+len(signing))
	for id, key := range k.verify {
		out.verify[id] = key
	}
	out.acceptedSigning = append([][]byte(nil), k.acceptedSigning...)
	for _, key := range signing {
		if len(key) != keyLen {
			return nil, fmt.Errorf("keyring: keys must be %d bytes", keyLen)
		}
		id := KeyID(key)
		if _, dup := out.verify[id]; dup {
			continue
		}
		out.verify[id] = key
		out.acceptedSigning = append(out.acceptedSigning, key)
	}
	out.opens = append([]cipher.AEAD(nil), k.opens...)
	for _, key := range sealing {
		aead, err := newAEAD(key)
		if err != nil {
			return nil, err
		}
		out.opens = append(out.opens, aead)
	}
	return &out, nil
}

// Load builds the keyring. signingB64 and sealingB64 are base64 keys from
// the environment (empty: use or create the stored key).
func Load(ctx context.Context, st Store, signingB64, sealingB64 string) (*Keyring, error) {
	signing, err := loadKey(ctx, st, "signing", signingB64)
	if err != nil {
		return nil, err
	}
	sealing, err := loadKey(ctx, st, "sealing", sealingB64)
	if err != nil {
		return nil, err
	}
	return New(signing, sealing)
}

// New builds a keyring from raw 32-byte keys.
func New(signing, sealing []byte) (*Keyring, error) {
	if len(signing) != keyLen || len(sealing) != keyLen {
		return nil, fmt.Errorf("keyring: keys must be %d bytes", keyLen)
	}
	aead, err := newAEAD(sealing)
	if err != nil {
		return nil, err
	}
	kid := KeyID(signing)
	return &Keyring{signing: signing, kid: kid, verify: map[string][]byte{kid: signing}, aead: aead, now: time.Now}, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != keyLen {
		return nil, fmt.Errorf("keyring: keys must be %d bytes", keyLen)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	return aead, nil
}

func loadKey(ctx context.Context, st Store, name, fromEnv string) ([]byte, error) {
	if fromEnv != "" {
		k, err := base64.StdEncoding.DecodeString(fromEnv)
		if err != nil || len(k) != keyLen {
			// The value itself is never echoed.
			return nil, fmt.Errorf("keyring: %s key must be base64 of %d bytes", name, keyLen)
		}
		return k, nil
	}
	candidate := make([]byte, keyLen)
	rand.Read(candidate)
	k, err := st.ServerKey(ctx, name, candidate)
	if err != nil {
		return nil, fmt.Errorf("keyring: load %s key: %w", name, err)
	}
	if len(k) != keyLen {
		return nil, fmt.Errorf("keyring: stored %s key has the wrong length", name)
	}
	return k, nil
}

// Seal encrypts plaintext with AES-256-GCM under the sealing key. aad binds
// the result to its place (a host id, say) so it cannot be moved elsewhere.
func (k *Keyring) Seal(plaintext, aad []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plaintext)+k.aead.Overhead())
	rand.Read(nonce)
	return k.aead.Seal(nonce, nonce, plaintext, aad)
}

// ErrSealed is returned for a sealed value that does not open.
var ErrSealed = errors.New("keyring: sealed value does not open")

// Open decrypts a value made by Seal with the same aad, under the current
// sealing key or any accepted one (GCM's authentication makes a wrong key
// fail cleanly, so each is tried in turn).
func (k *Keyring) Open(sealed, aad []byte) ([]byte, error) {
	out, _, err := k.open(sealed, aad)
	return out, err
}

// open is Open that also tells whether the current key opened the value.
func (k *Keyring) open(sealed, aad []byte) (plain []byte, current bool, err error) {
	if out, ok := openWith(k.aead, sealed, aad); ok {
		return out, true, nil
	}
	for _, a := range k.opens {
		if out, ok := openWith(a, sealed, aad); ok {
			return out, false, nil
		}
	}
	return nil, false, ErrSealed
}

func openWith(a cipher.AEAD, sealed, aad []byte) ([]byte, bool) {
	n := a.NonceSize()
	if len(sealed) < n+a.Overhead() {
		return nil, false
	}
	out, err := a.Open(nil, sealed[:n], sealed[n:], aad)
	return out, err == nil
}

// Reseal returns sealed re-sealed under the current key. A value already
// under the current key is returned as it is, with changed false; a value
// that opens under no key is ErrSealed.
func (k *Keyring) Reseal(sealed, aad []byte) (out []byte, changed bool, err error) {
	plain, current, err := k.open(sealed, aad)
	if err != nil {
		return nil, false, err
	}
	if current {
		return sealed, false, nil
	}
	return k.Seal(plain, aad), true, nil
}
