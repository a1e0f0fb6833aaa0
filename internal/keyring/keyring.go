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
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

const keyLen = 32

// Keyring signs tokens and seals secrets.
type Keyring struct {
	signing []byte
	aead    cipher.AEAD
	now     func() time.Time
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
	block, err := aes.NewCipher(sealing)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	return &Keyring{signing: signing, aead: aead, now: time.Now}, nil
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

// Open decrypts a value made by Seal with the same aad.
func (k *Keyring) Open(sealed, aad []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n+k.aead.Overhead() {
		return nil, ErrSealed
	}
	out, err := k.aead.Open(nil, sealed[:n], sealed[n:], aad)
	if err != nil {
		return nil, ErrSealed
	}
	return out, nil
}
