package hosts

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/battery"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/keyring"
)

// keyStore holds two hosts' public keys; the embedded nil Store panics on
// anything else.
type keyStore struct {
	Store
	keys map[string]ed25519.PublicKey
}

func (k keyStore) HostByID(_ context.Context, id string) (Host, Secrets, error) {
	pub, ok := k.keys[id]
	if !ok {
		return Host{}, Secrets{}, ErrNotFound
	}
	return Host{ID: id, Status: StatusOnline}, Secrets{AgentPubKey: pub, CredGen: 1}, nil
}

// TestChallengeRefresh (T45): a signed challenge renews the token once;
// the same signed challenge again, another host's key, a challenge older
// than agentproto.ChallengeTTL (on the coordination's clock) and a
// signature over the raw nonce without the domain prefix are refused.
func TestChallengeRefresh(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	co := inproc.NewWithClock(func() time.Time { return time.Unix(0, now.Load()) })
	t.Cleanup(func() { co.Close() })
	key := bytes.Repeat([]byte{1}, 32)
	keys, err := keyring.New(key, key)
	if err != nil {
		t.Fatal(err)
	}
	const hostA, hostB = "7d0c0c8e-93b4-4a5e-9f6e-3b1f2b3c4d5e", "8e1d1d9f-93b4-4a5e-9f6e-3b1f2b3c4d5e"
	privA := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
	privB := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))
	st := keyStore{keys: map[string]ed25519.PublicKey{
		hostA: privA.Public().(ed25519.PublicKey), hostB: privB.Public().(ed25519.PublicKey)}}
	s := NewService(st, co, keys, Config{}, nil, &drops{}, &rotations{}, nil)
	ctx := t.Context()
	challenge := func() string {
		t.Helper()
		ch, err := s.Challenge(ctx, hostA)
		if err != nil {
			t.Fatal(err)
		}
		if raw, err := base64.RawURLEncoding.DecodeString(ch.Challenge); err != nil || len(raw)*8 < 128 || ch.ExpiresIn != 60 {
			t.Fatalf("challenge %+v: want ≥128 bits, 60 s", ch)
		}
		return ch.Challenge
	}
	sign := func(priv ed25519.PrivateKey, msg []byte) string {
		return base64.StdEncoding.EncodeToString(ed25519.Sign(priv, msg))
	}
	refused := func(what string, err error) {
		t.Helper()
		if !apperr.Is(err, "invalid_token") {
			t.Errorf("%s: %v, want invalid_token", what, err)
		}
	}

	ch := challenge()
	sig := sign(privA, agentproto.ChallengeMessage(hostA, ch))
	if tok, err := s.Refresh(ctx, hostA, ch, sig); err != nil || tok.AgentToken == "" {
		t.Fatalf("valid signature: %+v %v", tok, err)
	}
	_, err = s.Refresh(ctx, hostA, ch, sig)
	refused("replay of the same signed challenge", err)

	ch = challenge()
	_, err = s.Refresh(ctx, hostA, ch, sign(privB, agentproto.ChallengeMessage(hostA, ch)))
	refused("host B's key for host A", err)

	ch = challenge()
	_, err = s.Refresh(ctx, hostA, ch, sign(privA, []byte(ch)))
	refused("signature without the domain prefix", err)

	ch = challenge()
	now.Add(int64(agentproto.ChallengeTTL + time.Second))
	_, err = s.Refresh(ctx, hostA, ch, sign(privA, agentproto.ChallengeMessage(hostA, ch)))
	refused("challenge 61 s old", err)

	ch = challenge()
	now.Add(int64(agentproto.ChallengeTTL - time.Second))
	if _, err := s.Refresh(ctx, hostA, ch, sign(privA, agentproto.ChallengeMessage(hostA, ch))); err != nil {
		t.Fatalf("challenge 59 s old: %v, want a token", err)
	}
	battery.Report(t, "T45", "6 refresh attempts: valid signature → token; replayed signed challenge, host B's key for host A, signature over the raw nonce, challenge 61 s old → invalid_token (59 s old → token)")
}
