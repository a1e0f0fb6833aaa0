package keyring

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// fuzzKeyring has fixed keys and a fixed clock (t0), so the committed seeds,
// some of them signed with its key, mean the same thing on every run. None
// of them is a token it accepts.
func fuzzKeyring(t testing.TB) *Keyring {
	t.Helper()
	k, err := New(bytes.Repeat([]byte("fuzz-signing-key"), 2), bytes.Repeat([]byte("fuzz-sealing-key"), 2))
	if err != nil {
		t.Fatalf("New: got %v, want nil", err)
	}
	k.now = func() time.Time { return t0 }
	return k
}

// FuzzParseToken: no string panics ParseToken or is accepted as a token of
// any kind. Seeds are in testdata/fuzz/FuzzParseToken.
func FuzzParseToken(f *testing.F) {
	k := fuzzKeyring(f)
	f.Fuzz(func(t *testing.T, token string) {
		for _, kind := range []string{KindUser, KindAdmin, KindAgent, ""} {
			got, err := k.ParseToken(token, kind)
			if !errors.Is(err, ErrToken) {
				t.Fatalf("ParseToken(%q, %q): got error %v, want ErrToken", token, kind, err)
			}
			if got != (Claims{}) {
				t.Fatalf("ParseToken(%q, %q): got claims %+v, want none", token, kind, got)
			}
		}
	})
}

// TestFuzzKeyringAcceptsGoodTokens keeps the seeds meaningful: the fuzz
// keyring accepts the base claims they are forged from, so each seed signed
// with its key is refused for the one thing it changes.
func TestFuzzKeyringAcceptsGoodTokens(t *testing.T) {
	k := fuzzKeyring(t)
	tok := sign(t, jwt.SigningMethodHS256, k.signing, goodClaims(), nil)
	if _, err := k.ParseToken(tok, KindUser); err != nil {
		t.Fatalf("ParseToken of a good token: got %v, want nil", err)
	}
}
