package passwords

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"hostgate/internal/apperr"
)

// phc matches the string Hash must produce with the Default parameters.
var phc = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$`)

func mustHash(t *testing.T, h *Hasher, password string) string {
	t.Helper()
	encoded, err := h.Hash(t.Context(), password)
	if err != nil {
		t.Fatalf("Hash: got error %v, want nil", err)
	}
	return encoded
}

func mustVerify(t *testing.T, h *Hasher, password, encoded string) (ok, rehash bool) {
	t.Helper()
	ok, rehash, err := h.Verify(t.Context(), password, encoded)
	if err != nil {
		t.Fatalf("Verify: got error %v, want nil", err)
	}
	return ok, rehash
}

func TestHashFormat(t *testing.T) {
	h := NewHasher(Default)
	encoded := mustHash(t, h, "correct horse battery staple")

	m := phc.FindStringSubmatch(encoded)
	if m == nil {
		t.Fatalf("Hash: got %q, want $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>", encoded)
	}
	salt, err := base64.RawStdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatalf("salt %q: got decode error %v, want unpadded standard base64", m[1], err)
	}
	if len(salt) != 16 {
		t.Errorf("salt: got %d bytes, want 16", len(salt))
	}
	key, err := base64.RawStdEncoding.DecodeString(m[2])
	if err != nil {
		t.Fatalf("key %q: got decode error %v, want unpadded standard base64", m[2], err)
	}
	if len(key) != 32 {
		t.Errorf("key: got %d bytes, want 32", len(key))
	}
}

func TestHashIsSalted(t *testing.T) {
	h := NewHasher(Default)
	a := mustHash(t, h, "correct horse battery staple")
	b := mustHash(t, h, "correct horse battery staple")
	if a == b {
		t.Fatalf("two hashes of one password: got both %q, want different", a)
	}
	sa, sb := phc.FindStringSubmatch(a), phc.FindStringSubmatch(b)
	if sa == nil || sb == nil {
		t.Fatalf("hashes: got %q and %q, want PHC strings", a, b)
	}
	if sa[1] == sb[1] {
		t.Errorf("salts: got both %q, want different", sa[1])
	}
}

func TestVerify(t *testing.T) {
	h := NewHasher(Default)
	long := strings.Repeat("x", 72)
	tests := []struct {
		name     string
		stored   string // the password that was hashed
		given    string // the password offered to Verify
		wantOK   bool
		wantDiff bool
	}{
		{name: "right password", stored: "correct horse battery staple", given: "correct horse battery staple", wantOK: true},
		{name: "wrong password", stored: "correct horse battery staple", given: "correct horse battery stapler"},
		{name: "case differs", stored: "Correct Horse", given: "correct horse"},
		{name: "empty given", stored: "correct horse battery staple", given: ""},
		{name: "differs only after byte 72", stored: long + "a", given: long + "b"},
		{name: "prefix of 72 bytes", stored: long + "tail", given: long},
		{name: "8 bytes", stored: strings.Repeat("a", 8), given: strings.Repeat("a", 8), wantOK: true},
		{name: "64 bytes", stored: strings.Repeat("b", 64), given: strings.Repeat("b", 64), wantOK: true},
		{name: "128 bytes", stored: strings.Repeat("c", 128), given: strings.Repeat("c", 128), wantOK: true},
		{name: "1024 bytes", stored: strings.Repeat("d", 1024), given: strings.Repeat("d", 1024), wantOK: true},
		{name: "1024 bytes, last byte differs", stored: strings.Repeat("d", 1024), given: strings.Repeat("d", 1023) + "e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			encoded := mustHash(t, h, tt.stored)
			ok, rehash := mustVerify(t, h, tt.given, encoded)
			if ok != tt.wantOK {
				t.Errorf("Verify ok: got %v, want %v", ok, tt.wantOK)
			}
			if rehash {
				t.Errorf("Verify rehash: got true, want false for a hash made with the same parameters")
			}
		})
	}
}

func TestVerifyWeakerParamsAsksForRehash(t *testing.T) {
	weak := NewHasher(Params{Memory: 8 * 1024, Time: 1, Threads: 1})
	encoded := mustHash(t, weak, "correct horse battery staple")
	if !strings.HasPrefix(encoded, "$argon2id$v=19$m=8192,t=1,p=1$") {
		t.Fatalf("weak hash: got %q, want m=8192,t=1,p=1 parameters", encoded)
	}

	h := NewHasher(Default)
	ok, rehash := mustVerify(t, h, "correct horse battery staple", encoded)
	if !ok || !rehash {
		t.Errorf("Verify right password: got ok=%v rehash=%v, want ok=true rehash=true", ok, rehash)
	}
	// A wrong password never asks for a rehash: there is nothing to store.
	ok, rehash = mustVerify(t, h, "wrong password", encoded)
	if ok || rehash {
		t.Errorf("Verify wrong password: got ok=%v rehash=%v, want ok=false rehash=false", ok, rehash)
	}
}

func TestVerifyMalformed(t *testing.T) {
	h := NewHasher(Default)
	valid := mustHash(t, h, "correct horse battery staple")
	parts := strings.Split(valid, "$") // "", "argon2id", "v=19", params, salt, key
	if len(parts) != 6 {
		t.Fatalf("valid hash: got %d $-separated parts, want 6", len(parts))
	}
	salt, key := parts[4], parts[5]
	join := func(p ...string) string { return strings.Join(p, "$") }

	tests := []struct {
		name    string
		encoded string
	}{
		{name: "empty", encoded: ""},
		{name: "not PHC", encoded: "correct horse battery staple"},
		{name: "argon2i", encoded: join("", "argon2i", "v=19", "m=19456,t=2,p=1", salt, key)},
		{name: "argon2d", encoded: join("", "argon2d", "v=19", "m=19456,t=2,p=1", salt, key)},
		{name: "bcrypt", encoded: "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{name: "upper-case algorithm", encoded: join("", "ARGON2ID", "v=19", "m=19456,t=2,p=1", salt, key)},
		{name: "version 16", encoded: join("", "argon2id", "v=16", "m=19456,t=2,p=1", salt, key)},
		{name: "version missing", encoded: join("", "argon2id", "m=19456,t=2,p=1", salt, key)},
		{name: "version not a number", encoded: join("", "argon2id", "v=x", "m=19456,t=2,p=1", salt, key)},
		{name: "key missing", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=1", salt)},
		{name: "salt and key missing", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=1")},
		{name: "empty key", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=1", salt, "")},
		{name: "extra part", encoded: valid + "$extra"},
		{name: "no leading dollar", encoded: strings.TrimPrefix(valid, "$")},
		{name: "params missing", encoded: join("", "argon2id", "v=19", "", salt, key)},
		{name: "params incomplete", encoded: join("", "argon2id", "v=19", "m=19456,t=2", salt, key)},
		{name: "params reordered", encoded: join("", "argon2id", "v=19", "t=2,m=19456,p=1", salt, key)},
		{name: "bad base64 salt", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=1", "!!!!", key)},
		{name: "bad base64 key", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=1", salt, "not*base64")},
		{name: "padded base64 key", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=1", salt, key+"=")},
		{name: "memory 0", encoded: join("", "argon2id", "v=19", "m=0,t=2,p=1", salt, key)},
		{name: "time 0", encoded: join("", "argon2id", "v=19", "m=19456,t=0,p=1", salt, key)},
		{name: "threads 0", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=0", salt, key)},
		{name: "negative memory", encoded: join("", "argon2id", "v=19", "m=-1,t=2,p=1", salt, key)},
		{name: "memory just over 1 GiB", encoded: join("", "argon2id", "v=19", fmt.Sprintf("m=%d,t=2,p=1", 1<<20+1), salt, key)},
		{name: "absurd memory", encoded: join("", "argon2id", "v=19", "m=4294967295,t=2,p=1", salt, key)},
		{name: "memory overflows uint32", encoded: join("", "argon2id", "v=19", "m=99999999999,t=2,p=1", salt, key)},
		{name: "threads overflow uint8", encoded: join("", "argon2id", "v=19", "m=19456,t=2,p=256", salt, key)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				ok  bool
				err error
			)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Verify(%q): got panic %v, want an error", tt.encoded, r)
					}
				}()
				ok, _, err = h.Verify(t.Context(), "correct horse battery staple", tt.encoded)
			}()
			if err == nil {
				t.Errorf("Verify(%q): got ok=%v and nil error, want an error", tt.encoded, ok)
			}
			if ok {
				t.Errorf("Verify(%q): got ok=true, want false", tt.encoded)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		password string
		account  string
		wantCode string // "" for no error
	}{
		{name: "empty", password: "", wantCode: CodeWeakPassword},
		{name: "7 bytes", password: "abcdefg", wantCode: CodeWeakPassword},
		{name: "8 bytes", password: "tr0ub4d!"},
		{name: "7 bytes that are 3 runes", password: "\u00e9\u00e9\u00e9a", wantCode: CodeWeakPassword},
		{name: "1024 bytes", password: strings.Repeat("k", 1024)},
		{name: "1025 bytes", password: strings.Repeat("k", 1025), wantCode: CodeWeakPassword},
		{name: "common password", password: "password123", wantCode: CodeWeakPassword},
		{name: "common password upper case", password: "PASSWORD123", wantCode: CodeWeakPassword},
		{name: "common password mixed case", password: "LetMeIn1", wantCode: CodeWeakPassword},
		{name: "equals account name", password: "alice@example.com", account: "alice@example.com", wantCode: CodeWeakPassword},
		{name: "equals account name other case", password: "Alice@Example.com", account: "alice@example.com", wantCode: CodeWeakPassword},
		{name: "contains account name", password: "alice@example.com!", account: "alice@example.com"},
		{name: "no account given", password: "tr0ub4d!", account: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.password, tt.account)
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("Check: got %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check: got nil, want code %s", tt.wantCode)
			}
			if got := apperr.Code(err); got != tt.wantCode {
				t.Errorf("Check code: got %s, want %s", got, tt.wantCode)
			}
		})
	}
}

// TestCommonPasswordsAreRefused checks the built list: every word is kept
// in lower case (Check looks the password up lowered) and each is refused
// as too common, in any case.
func TestCommonPasswordsAreRefused(t *testing.T) {
	if len(common) < 40 {
		t.Fatalf("common holds %d passwords, want the whole list", len(common))
	}
	for p := range common {
		if p != strings.ToLower(p) {
			t.Errorf("%q: not lower case, so Check never finds it", p)
		}
		for _, v := range []string{p, strings.ToUpper(p)} {
			err := Check(v, "")
			if apperr.Code(err) != CodeWeakPassword || !strings.Contains(err.Error(), "too common") {
				t.Errorf("Check(%q): got %v, want too common", v, err)
			}
		}
	}
}

// fillSlots takes every concurrency slot of h, so the next derive must wait,
// and gives them back when the test ends.
func fillSlots(t *testing.T, h *Hasher) {
	t.Helper()
	for range cap(h.slots) {
		h.slots <- struct{}{}
	}
	t.Cleanup(func() {
		for range cap(h.slots) {
			<-h.slots
		}
	})
}

func TestVerifyHonoursCancelledContext(t *testing.T) {
	h := NewHasher(Default)
	encoded := mustHash(t, h, "correct horse battery staple")
	fillSlots(t, h)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ok, rehash, err := h.Verify(ctx, "correct horse battery staple", encoded)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Verify with all slots taken and a cancelled context: got error %v, want context.Canceled", err)
	}
	if ok || rehash {
		t.Errorf("Verify with a cancelled context: got ok=%v rehash=%v, want false, false", ok, rehash)
	}

	if _, err := h.Hash(ctx, "correct horse battery staple"); !errors.Is(err, context.Canceled) {
		t.Errorf("Hash with all slots taken and a cancelled context: got error %v, want context.Canceled", err)
	}
}

func TestVerifyWaitsForASlot(t *testing.T) {
	h := NewHasher(Default)
	encoded := mustHash(t, h, "correct horse battery staple")
	fillSlots(t, h)

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := h.Verify(ctx, "correct horse battery staple", encoded)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Verify with all slots taken: got error %v, want context.DeadlineExceeded", err)
	}
	if waited := time.Since(start); waited < 40*time.Millisecond {
		t.Errorf("Verify with all slots taken: got answer after %v, want it to wait for the deadline", waited)
	}

	// One slot coming back lets a waiting Verify through.
	done := make(chan bool, 1)
	go func() {
		ok, _, _ := h.Verify(t.Context(), "correct horse battery staple", encoded)
		done <- ok
	}()
	select {
	case <-done:
		t.Fatal("Verify: got an answer while every slot was taken, want it to wait")
	case <-time.After(20 * time.Millisecond):
	}
	<-h.slots
	select {
	case ok := <-done:
		if !ok {
			t.Errorf("Verify after a slot came back: got ok=false, want true")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Verify after a slot came back: got no answer in 30s, want one")
	}
	h.slots <- struct{}{} // keep fillSlots' cleanup balanced
}

func TestBurnDoesNotPanic(t *testing.T) {
	h := NewHasher(Default)
	h.Burn(t.Context(), "anything")
	if _, _, _, err := decode(h.dummy); err != nil {
		t.Fatalf("dummy hash %q: got decode error %v, want nil", h.dummy, err)
	}
}
