// Package passwords hashes and checks passwords with argon2id, in the PHC
// string format, and holds the password rules every account kind shares.
package passwords

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"

	"hostgate/internal/apperr"
)

// Params are argon2id cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// Default follows OWASP's first recommendation: 19 MiB, 2 passes, 1 lane.
var Default = Params{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
	// MinLen and MaxLen bound a password in bytes. The maximum keeps one
	// request from buying a long hash; nothing is ever truncated.
	MinLen = 8
	MaxLen = 1024
)

// Hasher hashes with fixed parameters and caps how many hashes run at once,
// so a burst of logins queues instead of exhausting memory (19 MiB each).
type Hasher struct {
	params Params
	slots  chan struct{}
	dummy  string
}

// NewHasher returns a hasher allowing 2×GOMAXPROCS concurrent hashes.
func NewHasher(p Params) *Hasher {
	h := &Hasher{params: p, slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
	h.dummy = h.encode(make([]byte, saltLen), make([]byte, keyLen))
	return h
}

// Hash returns the PHC string for password.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	key, err := h.derive(ctx, []byte(password), salt, h.params)
	if err != nil {
		return "", err
	}
	return h.encode(salt, key), nil
}

// Verify reports whether password matches encoded, and whether encoded was
// made with other parameters and should be replaced by a fresh Hash.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (ok, rehash bool, err error) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, false, err
	}
	got, err := h.derive(ctx, []byte(password), salt, p)
	if err != nil {
		return false, false, err
	}
	ok = subtle.ConstantTimeCompare(got, want) == 1
	return ok, ok && p != h.params, nil
}

// Burn spends the time of one verification, for a login whose account does
// not exist, so the answer takes as long as a wrong password.
func (h *Hasher) Burn(ctx context.Context, password string) {
	_, _, _ = h.Verify(ctx, password, h.dummy)
}

func (h *Hasher) derive(ctx context.Context, pw, salt []byte, p Params) ([]byte, error) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-h.slots }()
	return argon2.IDKey(pw, salt, p.Time, p.Memory, p.Threads, keyLen), nil
}

func (h *Hasher) encode(salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		h.params.Memory, h.params.Time, h.params.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

var errFormat = errors.New("passwords: malformed hash")

func decode(s string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, nil, nil, errFormat
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version || parts[2] != fmt.Sprintf("v=%d", v) {
		return p, nil, nil, errFormat
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, errFormat
	}
	// Exact text only, and costs bounded, so a tampered row cannot make a
	// login hash forever while holding a slot.
	if parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", p.Memory, p.Time, p.Threads) ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 || p.Memory > 256*1024 || p.Time > 16 || p.Threads > 16 {
		return p, nil, nil, errFormat
	}
	if salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, errFormat
	}
	if key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(key) != keyLen {
		return p, nil, nil, errFormat
	}
	return p, salt, key, nil
}

// CodeWeakPassword is the error code for a password the rules refuse.
const CodeWeakPassword = "weak_password"

// Check applies the password rules (docs/accounts.md): 8 to 1024 bytes, not
// a well-known password, not the account's own name or email.
func Check(password, account string) error {
	switch {
	case len(password) < MinLen:
		return apperr.New(CodeWeakPassword, fmt.Sprintf("password must be at least %d bytes", MinLen))
	case len(password) > MaxLen:
		return apperr.New(CodeWeakPassword, fmt.Sprintf("password must be at most %d bytes", MaxLen))
	case common[strings.ToLower(password)]:
		return apperr.New(CodeWeakPassword, "password is too common")
	case account != "" && strings.EqualFold(password, account):
		return apperr.New(CodeWeakPassword, "password must not be the account name")
	}
	return nil
}

// common holds passwords that appear at the top of every published breach
// list; a fuller breached-password check is future work (docs/accounts.md).
var common = commonSet(`password password1 password123 passw0rd 12345678 123456789
		1234567890 12341234 11111111 00000000 88888888 87654321 iloveyou qwertyui qwerty123
		qwertyuiop 1q2w3e4r 1qaz2wsx zaq12wsx abcd1234 abc12345 asdfghjk asdf1234 letmein1
		welcome1 football baseball sunshine princess superman trustno1 admin123 administrator
		changeme computer internet starwars whatever dragon12 monkey12 hostgate`)

// commonSet is the set of the space-separated words in list.
func commonSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, p := range strings.Fields(list) {
		set[p] = true
	}
	return set
}
