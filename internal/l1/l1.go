// Package l1 is the legacy encrypted "L1" message codec shared by the hub's
// POST /gateway and the agent's local L1 listener.
//
// On the wire a request is the base64 text (standard alphabet, padded) of
// AES-256-CBC with PKCS7 padding. The AES key is the bytes of the host's
// 32-character secret_key as written (not hex-decoded) and the IV is its
// first 16 characters. The plaintext is one JSON object, the frame:
//
//	{"bid": 123, "control": 8192, "args": {"path": "…", "data": …},
//	 "ts": 1767268800, "nonce": "…"}
//
// Because the IV is fixed, equal plaintexts encrypt to equal ciphertexts,
// so the frame carries a timestamp and a nonce: a receiver accepts ts within
// MaxSkew of its clock and remembers each nonce until its ts is stale (see
// CheckReplay). The answer is plain JSON {code, data, msg} (Response).
//
// Every way a body can be wrong (base64, length, block, padding, JSON, a
// field, the clock window) gives the one error ErrInvalid, and a bad
// padding takes the same path as a bad frame, so that a sender learns
// nothing about why: CBC without a MAC must not become a padding oracle.
// docs/l1.md is written from this package.
package l1

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"hostgate/internal/agentproto"
)

// Protocol limits.
const (
	// SecretKeyLen is the length of a secret_key, which is the AES-256 key.
	SecretKeyLen = 32
	// MaxBody bounds the base64 text of one request, checked before any work.
	MaxBody = 1 << 20
	// MaxSkew is how far a request's ts may be from the receiver's clock.
	MaxSkew = 300 * time.Second
	// MinNonceLen and MaxNonceLen bound a nonce's length in characters.
	MinNonceLen = 16
	MaxNonceLen = 64
)

var (
	// ErrInvalid is the one error Decode returns for any bad body. Its text
	// is what a receiver may show the sender.
	ErrInvalid = errors.New("l1: invalid message")
	// ErrKeySize reports a secret key that is not SecretKeyLen characters:
	// a configuration or programming error, never a sender's fault.
	ErrKeySize = errors.New("l1: secret key must be 32 characters")
)

// Request is what an L1 message asks for: one of the sixteen legacy
// controls with its arguments as the client API takes them ({path, data}),
// stamped with the sender's clock and a nonce.
type Request struct {
	Control int64
	Args    agentproto.ControlArgs
	// TS is the sender's clock in unix seconds.
	TS int64
	// Nonce is 16…64 characters of [A-Za-z0-9_-], unique per request.
	Nonce string
}

// NewRequest stamps a request for sending now, with a fresh random nonce.
func NewRequest(control int64, args agentproto.ControlArgs, now time.Time) Request {
	return Request{Control: control, Args: args, TS: now.Unix(), Nonce: rand.Text()}
}

// Time is the request's timestamp.
func (r Request) Time() time.Time { return time.Unix(r.TS, 0) }

// IsLegacyControl reports whether v is one of the sixteen legacy controls,
// the bit flags 1 (DIR_MK) through 32768 (ORCHESTRATED_SHUTDOWN). The newer
// controls (1<<16 and up) are not reachable over L1.
func IsLegacyControl(v int64) bool {
	return v > 0 && v <= agentproto.CtlOrchestratedShutdown && v&(v-1) == 0
}

// validate checks the fields every request must have, whatever the clock.
func (r Request) validate() error {
	if !IsLegacyControl(r.Control) {
		return fmt.Errorf("l1: control %d is not a legacy control (1…32768, one bit)", r.Control)
	}
	if r.TS <= 0 {
		return errors.New("l1: ts must be positive unix seconds")
	}
	return validateNonce(r.Nonce)
}

// ValidateNonce checks a nonce's syntax: MinNonceLen…MaxNonceLen
// characters of [A-Za-z0-9_-].
func ValidateNonce(n string) error { return validateNonce(n) }

func validateNonce(n string) error {
	if len(n) < MinNonceLen || len(n) > MaxNonceLen {
		return fmt.Errorf("l1: nonce must be %d…%d characters, got %d", MinNonceLen, MaxNonceLen, len(n))
	}
	for i := range len(n) {
		if !nonceChar(n[i]) {
			return fmt.Errorf("l1: nonce has a character outside [A-Za-z0-9_-] at %d", i)
		}
	}
	return nil
}

func nonceChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// fresh reports whether ts is within MaxSkew of now, in whole seconds: it
// is until the instant NonceExpiry.
func fresh(ts int64, now time.Time) bool {
	d := now.Unix() - ts
	return d >= -int64(MaxSkew/time.Second) && d <= int64(MaxSkew/time.Second)
}
