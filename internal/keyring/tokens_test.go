package keyring

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// t0 is the fixed clock of the token tests.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixedKeyring returns a keyring whose clock reads at.
func fixedKeyring(t *testing.T, at time.Time) *Keyring {
	t.Helper()
	k := newKeyring(t)
	k.now = func() time.Time { return at }
	return k
}

// goodClaims are the claims SignToken writes, for a user token valid 15
// minutes from t0; forged tokens start from them and change one thing.
func goodClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": issuer,
		"sub": "user-1",
		"aud": []string{KindUser},
		"iat": t0.Unix(),
		"exp": t0.Add(15 * time.Minute).Unix(),
		"sid": "session-1",
	}
}

func with(c jwt.MapClaims, key string, value any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	if value == nil {
		delete(out, key)
	} else {
		out[key] = value
	}
	return out
}

// sign signs claims with method and key, adding extra header fields.
func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("SignedString(%s): got %v, want nil", method.Alg(), err)
	}
	return s
}

// forgeHeader signs header and claims with HS256 under key whatever the
// header's alg says: an algorithm-confusion token.
func forgeHeader(t *testing.T, header map[string]any, claims jwt.MapClaims, key []byte) string {
	t.Helper()
	tok := &jwt.Token{Header: header, Claims: claims, Method: jwt.SigningMethodHS256}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("SignedString: got %v, want nil", err)
	}
	return s
}

func TestParseTokenRefuses(t *testing.T) {
	k := fixedKeyring(t, t0)
	attacker := randomKey(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatalf("rsa.GenerateKey: got %v, want nil", err)
	}
	attackerJWK := map[string]any{"kty": "oct", "k": base64.RawURLEncoding.EncodeToString(attacker)}
	rsaJWK := map[string]any{
		"kty": "RSA",
		"n":   base64.RawURLEncoding.EncodeToString(rsaKey.N.Bytes()),
		"e":   "AQAB",
	}
	good := goodClaims()
	hs256 := jwt.SigningMethodHS256

	noneToken := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good, nil)
	parts := strings.Split(sign(t, hs256, k.signing, good, nil), ".")

	tests := []struct {
		name  string
		token string
		kind  string // KindUser when empty
	}{
		{name: "alg none", token: noneToken},
		{name: "alg none with the real signature", token: strings.Split(noneToken, ".")[0] + "." + parts[1] + "." + parts[2]},
		{name: "alg None", token: forgeHeader(t, map[string]any{"alg": "None", "typ": "JWT"}, good, k.signing)},
		{name: "HS384 with the right key", token: sign(t, jwt.SigningMethodHS384, k.signing, good, nil)},
		{name: "HS512 with the right key", token: sign(t, jwt.SigningMethodHS512, k.signing, good, nil)},
		{name: "RS256 signed by an attacker", token: sign(t, jwt.SigningMethodRS256, rsaKey, good, nil)},
		{name: "RS256 header, HMAC with the right key", token: forgeHeader(t, map[string]any{"alg": "RS256", "typ": "JWT"}, good, k.signing)},
		{name: "no alg header", token: forgeHeader(t, map[string]any{"typ": "JWT"}, good, k.signing)},
		{name: "signed by another key", token: sign(t, hs256, attacker, good, nil)},
		{name: "signature stripped", token: parts[0] + "." + parts[1] + "."},
		{name: "signature of another token", token: parts[0] + "." + strings.Split(sign(t, hs256, k.signing, with(good, "sub", "admin-1"), nil), ".")[1] + "." + parts[2]},
		{name: "expired 6s ago", token: sign(t, hs256, k.signing, with(good, "exp", t0.Add(-6*time.Second).Unix()), nil)},
		{name: "expired an hour ago", token: sign(t, hs256, k.signing, with(good, "exp", t0.Add(-time.Hour).Unix()), nil)},
		{name: "no exp", token: sign(t, hs256, k.signing, with(good, "exp", nil), nil)},
		{name: "exp not a number", token: sign(t, hs256, k.signing, with(good, "exp", "tomorrow"), nil)},
		{name: "issued 6s in the future", token: sign(t, hs256, k.signing, with(good, "iat", t0.Add(6*time.Second).Unix()), nil)},
		{name: "not valid before an hour from now", token: sign(t, hs256, k.signing, with(good, "nbf", t0.Add(time.Hour).Unix()), nil)},
		{name: "admin token as user", token: sign(t, hs256, k.signing, with(good, "aud", []string{KindAdmin}), nil)},
		{name: "user token as admin", token: sign(t, hs256, k.signing, good, nil), kind: KindAdmin},
		{name: "agent token as user", token: sign(t, hs256, k.signing, with(good, "aud", KindAgent), nil)},
		{name: "user token, no kind asked", token: sign(t, hs256, k.signing, good, nil), kind: "-"},
		{name: "no aud", token: sign(t, hs256, k.signing, with(good, "aud", nil), nil)},
		{name: "empty aud", token: sign(t, hs256, k.signing, with(good, "aud", ""), nil)},
		{name: "wrong issuer", token: sign(t, hs256, k.signing, with(good, "iss", "evil"), nil)},
		{name: "no issuer", token: sign(t, hs256, k.signing, with(good, "iss", nil), nil)},
		{name: "missing sid", token: sign(t, hs256, k.signing, with(good, "sid", nil), nil)},
		{name: "empty sid", token: sign(t, hs256, k.signing, with(good, "sid", ""), nil)},
		{name: "missing sub", token: sign(t, hs256, k.signing, with(good, "sub", nil), nil)},
		{name: "5000 characters", token: strings.Repeat("a", 5000)},
		{name: "right key, over 4096 characters", token: sign(t, hs256, k.signing, with(good, "pad", strings.Repeat("p", 5000)), nil)},
		{name: "10000 dots", token: strings.Repeat(".", 10000)},
		{name: "two dots", token: ".."},
		{name: "empty", token: ""},
		{name: "bearer prefix", token: "Bearer " + sign(t, hs256, k.signing, good, nil)},
		{name: "jwk header with the attacker key", token: sign(t, hs256, attacker, good, map[string]any{"jwk": attackerJWK})},
		{name: "jwk header with an attacker RSA key", token: sign(t, jwt.SigningMethodRS256, rsaKey, good, map[string]any{"jwk": rsaJWK})},
		{name: "jku header", token: sign(t, hs256, attacker, good, map[string]any{"jku": "https://attacker.example/jwks.json"})},
		{name: "kid header", token: sign(t, hs256, attacker, good, map[string]any{"kid": "attacker"})},
		{name: "kid path traversal", token: sign(t, hs256, attacker, good, map[string]any{"kid": "../../../../dev/null"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind := tt.kind
			switch kind {
			case "":
				kind = KindUser
			case "-":
				kind = ""
			}
			got, err := k.ParseToken(tt.token, kind)
			if !errors.Is(err, ErrToken) {
				t.Errorf("ParseToken: got error %v, want ErrToken", err)
			}
			if got != (Claims{}) {
				t.Errorf("ParseToken: got claims %+v, want none", got)
			}
		})
	}
}

// TestParseTokenAcceptsTheBatteryBase checks the forgery battery's base:
// the claims it forges from are accepted when signed properly, so each
// refusal above is down to the one thing changed.
func TestParseTokenAcceptsTheBatteryBase(t *testing.T) {
	k := fixedKeyring(t, t0)
	tests := []struct {
		name   string
		header map[string]any
	}{
		{name: "plain"},
		{name: "kid of the signing key", header: map[string]any{"kid": KeyID(k.signing)}},
		{name: "jku header ignored", header: map[string]any{"jku": "https://attacker.example/jwks.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := sign(t, jwt.SigningMethodHS256, k.signing, goodClaims(), tt.header)
			got, err := k.ParseToken(tok, KindUser)
			if err != nil {
				t.Fatalf("ParseToken: got %v, want nil", err)
			}
			if got.Subject != "user-1" || got.SessionID != "session-1" {
				t.Errorf("ParseToken: got subject %q sid %q, want user-1 session-1", got.Subject, got.SessionID)
			}
		})
	}
}

func TestParseTokenLeeway(t *testing.T) {
	tests := []struct {
		name    string
		at      time.Time // clock when parsing; the token expires at t0+15m
		wantErr bool
	}{
		{name: "just issued", at: t0},
		{name: "one second before expiry", at: t0.Add(15*time.Minute - time.Second)},
		{name: "at expiry", at: t0.Add(15 * time.Minute)},
		{name: "expired by 4s", at: t0.Add(15*time.Minute + 4*time.Second)},
		{name: "expired by 5s", at: t0.Add(15*time.Minute + 5*time.Second), wantErr: true},
		{name: "expired by 6s", at: t0.Add(15*time.Minute + 6*time.Second), wantErr: true},
		{name: "clock 4s behind the issuer", at: t0.Add(-4 * time.Second)},
		{name: "clock 6s behind the issuer", at: t0.Add(-6 * time.Second), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := fixedKeyring(t, t0)
			tok, _, err := k.SignToken(Claims{Kind: KindUser, Subject: "user-1", SessionID: "session-1"}, 15*time.Minute)
			if err != nil {
				t.Fatalf("SignToken: got %v, want nil", err)
			}
			k.now = func() time.Time { return tt.at }
			_, err = k.ParseToken(tok, KindUser)
			if tt.wantErr && !errors.Is(err, ErrToken) {
				t.Errorf("ParseToken at %v: got %v, want ErrToken", tt.at.Sub(t0), err)
			}
			if !tt.wantErr && err != nil {
				t.Errorf("ParseToken at %v: got %v, want nil", tt.at.Sub(t0), err)
			}
		})
	}
}

func TestTokenRoundTrip(t *testing.T) {
	// A clock with sub-second precision and a zone: issued times are whole
	// seconds in UTC.
	at := time.Date(2025, 6, 1, 14, 0, 0, 987_654_321, time.FixedZone("CEST", 2*3600))
	wantIssued := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   Claims
		ttl  time.Duration
	}{
		{name: "user", in: Claims{Kind: KindUser, Subject: "user-1", SessionID: "sess-1"}, ttl: 15 * time.Minute},
		{name: "admin with role", in: Claims{Kind: KindAdmin, Subject: "admin-1", SessionID: "sess-2", Role: "owner"}, ttl: 15 * time.Minute},
		{name: "agent", in: Claims{Kind: KindAgent, Subject: "host-1", SessionID: "sess-3"}, ttl: time.Hour},
		{name: "unicode subject", in: Claims{Kind: KindUser, Subject: "üser-ñ", SessionID: "s"}, ttl: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := fixedKeyring(t, at)
			tok, issued, err := k.SignToken(tt.in, tt.ttl)
			if err != nil {
				t.Fatalf("SignToken: got %v, want nil", err)
			}
			if !issued.IssuedAt.Equal(wantIssued) || issued.IssuedAt.Location() != time.UTC {
				t.Errorf("SignToken IssuedAt: got %v, want %v", issued.IssuedAt, wantIssued)
			}
			if want := wantIssued.Add(tt.ttl); !issued.ExpiresAt.Equal(want) {
				t.Errorf("SignToken ExpiresAt: got %v, want %v", issued.ExpiresAt, want)
			}

			got, err := k.ParseToken(tok, tt.in.Kind)
			if err != nil {
				t.Fatalf("ParseToken: got %v, want nil", err)
			}
			if got.Kind != tt.in.Kind || got.Subject != tt.in.Subject || got.SessionID != tt.in.SessionID || got.Role != tt.in.Role {
				t.Errorf("ParseToken: got %+v, want kind %q subject %q sid %q role %q",
					got, tt.in.Kind, tt.in.Subject, tt.in.SessionID, tt.in.Role)
			}
			if !got.IssuedAt.Equal(issued.IssuedAt) {
				t.Errorf("ParseToken IssuedAt: got %v, want %v", got.IssuedAt, issued.IssuedAt)
			}
			if !got.ExpiresAt.Equal(issued.ExpiresAt) {
				t.Errorf("ParseToken ExpiresAt: got %v, want %v", got.ExpiresAt, issued.ExpiresAt)
			}
		})
	}
}

// TestParseTokenWithoutIssuedAt: a token with the right signature but no iat
// claim is never issued by SignToken and must be refused, not crash.
func TestParseTokenWithoutIssuedAt(t *testing.T) {
	k := fixedKeyring(t, t0)
	tok := sign(t, jwt.SigningMethodHS256, k.signing, with(goodClaims(), "iat", nil), nil)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("ParseToken without iat: got panic %v, want ErrToken", r)
		}
	}()
	if _, err := k.ParseToken(tok, KindUser); !errors.Is(err, ErrToken) {
		t.Errorf("ParseToken without iat: got %v, want ErrToken", err)
	}
}
