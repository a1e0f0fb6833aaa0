// Package sessions is what user and admin sign-ins share: sessions with
// single-use rotating refresh tokens. A sign-in opens a session; its
// refresh tokens (32 random bytes, of which the store keeps only the
// SHA-256) are single use, each exchange giving the next one, and
// presenting one already used ends the session. Access-token checks read
// a session's state through a Cache, which keeps it at most recent.TTL.
//
// What a session's owner may do (a suspended user, a disabled admin, a
// changed role) stays with its own package (accounts, admin).
package sessions

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"hostgate/internal/recent"
)

// Errors a session store returns.
var (
	// ErrRefreshUnknown: no session has ever issued this refresh token.
	ErrRefreshUnknown = errors.New("sessions: unknown refresh token")
	// ErrRefreshReused: the token was already rotated; the store has revoked
	// its session in the same transaction.
	ErrRefreshReused = errors.New("sessions: refresh token reused")
	// ErrSessionEnded: the session was revoked or has expired, or its owner
	// may no longer use it, or (from a state read) there is no such session.
	ErrSessionEnded = errors.New("sessions: session ended")
)

// maxRefresh is the longest refresh token a client may present; a
// longer one was never issued.
const maxRefresh = 128

// NewRefresh makes a refresh token (32 random bytes) and its stored hash.
func NewRefresh() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	tok := base64.RawURLEncoding.EncodeToString(b)
	h := sha256.Sum256([]byte(tok))
	return tok, h[:]
}

// HashRefresh is the stored hash of a presented refresh token; ok is false
// for a token no session could have issued (empty or too long).
func HashRefresh(tok string) ([]byte, bool) {
	if len(tok) == 0 || len(tok) > maxRefresh {
		return nil, false
	}
	h := sha256.Sum256([]byte(tok))
	return h[:], true
}

// Live reports whether a session revoked at revokedAt (nil: not revoked)
// and expiring at expiresAt may be used at now, whoever owns it.
func Live(revokedAt *time.Time, expiresAt, now time.Time) bool {
	return revokedAt == nil && now.Before(expiresAt)
}

// Cache keeps session states St read from the store, by session id, for
// at most recent.TTL, and forgets the states of sessions that end.
type Cache[St any] struct {
	states *recent.Cache[St]
}

// NewCache returns a cache named name, whose forgetting bus carries to
// the other instances.
func NewCache[St any](name string, bus *recent.Bus) *Cache[St] {
	return &Cache[St]{states: recent.New[St](name, bus)}
}

// State reads session id's state through the cache, from read on a miss.
// A session the store does not know (ErrSessionEnded) is an ended one:
// its zero state, which is not live.
func (c *Cache[St]) State(ctx context.Context, id string, read func(context.Context, string) (St, error)) (St, error) {
	st, err := c.states.Get(ctx, id, func(ctx context.Context) (St, error) { return read(ctx, id) })
	if errors.Is(err, ErrSessionEnded) {
		var zero St
		return zero, nil
	}
	return st, err
}

// Forget drops the kept states of sessions that just ended, here and on
// every other instance.
func (c *Cache[St]) Forget(ctx context.Context, ids ...string) {
	for _, id := range ids {
		c.states.Forget(ctx, id)
	}
}

// Rotate exchanges the refresh token tok for the next one, which it
// returns: rotate consumes the token hashed as old and records the one
// hashed as next, and answers with the session's id and the store's error
// (that of a session store's RotateRefresh). A token no session could have
// issued is ErrRefreshUnknown without asking the store. A reused token
// ends its session: its kept state is forgotten everywhere, and the
// error is ErrRefreshReused.
func (c *Cache[St]) Rotate(ctx context.Context, tok string, rotate func(old, next []byte) (string, error)) (string, error) {
	old, ok := HashRefresh(tok)
	if !ok {
		return "", ErrRefreshUnknown
	}
	next, nextHash := NewRefresh()
	id, err := rotate(old, nextHash)
	if errors.Is(err, ErrRefreshReused) {
		c.Forget(ctx, id)
	}
	if err != nil {
		return "", err
	}
	return next, nil
}

// Revoke ends the session that issued the refresh token tok: revoke ends
// the session of the token hashed as hash and answers with its id (that
// of a session store's RevokeSession); the session's kept state is then
// forgotten everywhere. A token no session could have issued is
// ErrRefreshUnknown without asking the store.
func (c *Cache[St]) Revoke(ctx context.Context, tok string, revoke func(hash []byte) (string, error)) error {
	h, ok := HashRefresh(tok)
	if !ok {
		return ErrRefreshUnknown
	}
	id, err := revoke(h)
	if err != nil {
		return err
	}
	c.Forget(ctx, id)
	return nil
}
