package sessions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRefreshTokens(t *testing.T) {
	tok, h := NewRefresh()
	if len(tok) != 43 {
		t.Errorf("token %q: %d characters, want 43 (32 bytes, base64url)", tok, len(tok))
	}
	if want := sha256.Sum256([]byte(tok)); !bytes.Equal(h, want[:]) {
		t.Error("the stored hash is not the token's SHA-256")
	}
	if got, ok := HashRefresh(tok); !ok || !bytes.Equal(got, h) {
		t.Errorf("HashRefresh of an issued token = %x, %v", got, ok)
	}
	if other, _ := NewRefresh(); other == tok {
		t.Error("two tokens alike")
	}
	for _, bad := range []string{"", strings.Repeat("a", maxRefresh+1)} {
		if _, ok := HashRefresh(bad); ok {
			t.Errorf("HashRefresh accepts a token of %d characters", len(bad))
		}
	}
}

func TestLive(t *testing.T) {
	now := time.Now()
	if !Live(nil, now.Add(time.Second), now) {
		t.Error("an open session is not live")
	}
	if Live(nil, now, now) {
		t.Error("a session is live at its expiry")
	}
	if Live(&now, now.Add(time.Second), now) {
		t.Error("a revoked session is live")
	}
}

func TestStateOfAnEndedSessionIsZero(t *testing.T) {
	c := NewCache[int]("test", nil)
	st, err := c.State(t.Context(), "s", func(context.Context, string) (int, error) { return 7, ErrSessionEnded })
	if err != nil || st != 0 {
		t.Errorf("State of no session = %d, %v; want 0, nil", st, err)
	}
	boom := errors.New("boom")
	if _, err := c.State(t.Context(), "s", func(context.Context, string) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("State with a failing read: %v", err)
	}
	reads := 0
	read := func(_ context.Context, id string) (int, error) {
		reads++
		if id != "s" {
			t.Errorf("read of %q", id)
		}
		return 1, nil
	}
	for range 2 {
		if st, err := c.State(t.Context(), "s", read); err != nil || st != 1 {
			t.Errorf("State = %d, %v", st, err)
		}
	}
	if reads != 1 {
		t.Errorf("%d reads of a kept state, want 1", reads)
	}
	c.Forget(t.Context(), "s")
	if _, err := c.State(t.Context(), "s", read); err != nil || reads != 2 {
		t.Errorf("after Forget: %v, %d reads; want a second read", err, reads)
	}
}

func TestRotate(t *testing.T) {
	ctx := t.Context()
	c := NewCache[int]("test", nil)
	tok, h := NewRefresh()

	called := false
	if _, err := c.Rotate(ctx, "", func(_, _ []byte) (string, error) { called = true; return "", nil }); !errors.Is(err, ErrRefreshUnknown) || called {
		t.Errorf("Rotate of an empty token: %v, store asked: %v", err, called)
	}

	var nextHash []byte
	next, err := c.Rotate(ctx, tok, func(old, n []byte) (string, error) {
		if !bytes.Equal(old, h) {
			t.Error("Rotate did not pass the token's hash")
		}
		nextHash = n
		return "s", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := HashRefresh(next); !bytes.Equal(got, nextHash) {
		t.Error("the next token does not hash to what the store recorded")
	}

	// A reuse forgets the session's kept state.
	if _, err := c.State(ctx, "s", func(context.Context, string) (int, error) { return 1, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rotate(ctx, tok, func(_, _ []byte) (string, error) { return "s", ErrRefreshReused }); !errors.Is(err, ErrRefreshReused) {
		t.Errorf("Rotate of a reused token: %v", err)
	}
	if st, _ := c.State(ctx, "s", func(context.Context, string) (int, error) { return 2, nil }); st != 2 {
		t.Error("a reuse left the session's state kept")
	}
}

func TestRevoke(t *testing.T) {
	ctx := t.Context()
	c := NewCache[int]("test", nil)
	tok, h := NewRefresh()
	if err := c.Revoke(ctx, strings.Repeat("a", maxRefresh+1), func([]byte) (string, error) { return "", nil }); !errors.Is(err, ErrRefreshUnknown) {
		t.Errorf("Revoke of an overlong token: %v", err)
	}
	if _, err := c.State(ctx, "s", func(context.Context, string) (int, error) { return 1, nil }); err != nil {
		t.Fatal(err)
	}
	if err := c.Revoke(ctx, tok, func([]byte) (string, error) { return "", ErrRefreshUnknown }); !errors.Is(err, ErrRefreshUnknown) {
		t.Errorf("Revoke of an unknown token: %v", err)
	}
	err := c.Revoke(ctx, tok, func(got []byte) (string, error) {
		if !bytes.Equal(got, h) {
			t.Error("Revoke did not pass the token's hash")
		}
		return "s", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx, "s", func(context.Context, string) (int, error) { return 2, nil }); st != 2 {
		t.Error("a revoked session's state stayed kept")
	}
}
