package admin

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/keyring"
	"hostgate/internal/passwords"
	"hostgate/internal/sessions"
)

// Admin sessions are package sessions', as the users' (package accounts): a
// sign-in opens a session; its access tokens carry the session id and live
// Policy.AccessTTL; its refresh tokens are single use, each refresh giving
// the next one, and presenting one already used ends the session. A session ends at logout,
// when its admin is disabled or its role changes, and when it expires; its
// access tokens are refused from then on, at once on the instance that
// ended it and on every instance the forget reaches, within recent.TTL
// everywhere else.

const wrongLogin = "username or password is incorrect"

// checkPassword checks an admin's password, counting a failure towards the
// admin's lockout. An unknown username, a wrong password and a disabled
// admin give the same answer.
func (s *Service) checkPassword(ctx context.Context, username, password string) (Admin, error) {
	name := strings.ToLower(strings.TrimSpace(username))
	if err := s.guard.Check(ctx, name); err != nil {
		return Admin{}, err
	}
	a, hash, err := s.store.AdminCredentials(ctx, name)
	if errors.Is(err, ErrAdminNotFound) || len(password) > passwords.MaxLen {
		s.hasher.Burn(ctx, password)
		return Admin{}, s.guard.Fail(ctx, name, wrongLogin)
	}
	if err != nil {
		return Admin{}, err
	}
	ok, _, err := s.hasher.Verify(ctx, password, hash)
	if err != nil {
		return Admin{}, err
	}
	if !ok || a.Status != StatusActive {
		return Admin{}, s.guard.Fail(ctx, name, wrongLogin)
	}
	if err := s.guard.Succeed(ctx, name); err != nil {
		return Admin{}, err
	}
	return a, nil
}

// Login checks an admin's password and opens a session, recording the
// sign-in as the admin's last_login_at.
func (s *Service) Login(ctx context.Context, username, password string) (Auth, error) {
	a, err := s.checkPassword(ctx, username, password)
	if err != nil {
		return Auth{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	refresh, h := sessions.NewRefresh()
	sess := Session{ID: uuid.NewString(), AdminID: a.ID, CreatedAt: now, ExpiresAt: now.Add(s.policy.RefreshTTL)}
	if err := s.store.OpenSession(ctx, sess, h); err != nil {
		return Auth{}, err
	}
	a.LastLoginAt = &now
	return s.issue(a, sess.ID, refresh)
}

// Refresh exchanges a refresh token for a new pair. A token that was
// already exchanged ends its whole session.
func (s *Service) Refresh(ctx context.Context, refreshToken string) (Auth, error) {
	var sess Session
	next, err := s.sessions.Rotate(ctx, refreshToken, func(old, nextHash []byte) (string, error) {
		var err error
		sess, err = s.store.RotateRefresh(ctx, old, nextHash, s.now().UTC())
		return sess.ID, err
	})
	switch {
	case errors.Is(err, ErrRefreshReused), errors.Is(err, ErrSessionEnded), errors.Is(err, ErrRefreshUnknown):
		return Auth{}, sessionEnded()
	case err != nil:
		return Auth{}, err
	}
	a, err := s.store.AdminByID(ctx, sess.AdminID)
	if err != nil {
		return Auth{}, err
	}
	if a.Status != StatusActive {
		return Auth{}, sessionEnded()
	}
	return s.issue(a, sess.ID, next)
}

// Logout ends the session of a refresh token, and its access tokens with it.
func (s *Service) Logout(ctx context.Context, refreshToken string) error {
	err := s.sessions.Revoke(ctx, refreshToken, func(h []byte) (string, error) {
		sess, err := s.store.RevokeSession(ctx, h, s.now().UTC())
		return sess.ID, err
	})
	if errors.Is(err, ErrRefreshUnknown) {
		return sessionEnded()
	}
	return err
}

// EndSession ends p's session (a logout by access token).
func (s *Service) EndSession(ctx context.Context, p Principal) error {
	err := s.store.EndSession(ctx, p.SessionID, s.now().UTC())
	if errors.Is(err, ErrSessionEnded) {
		return sessionEnded()
	}
	if err != nil {
		return err
	}
	s.sessions.Forget(ctx, p.SessionID)
	return nil
}

// Authenticate checks an admin access token, and that its session is still
// open, its admin active and of the token's role: the store says so, read
// at most recent.TTL ago.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	c, err := s.keys.ParseToken(token, keyring.KindAdmin)
	if err != nil || !Role(c.Role).Valid() || c.SessionID == "" {
		return Principal{}, apperr.New(apperr.CodeInvalidToken, "admin token is invalid or expired")
	}
	st, err := s.sessions.State(ctx, c.SessionID, s.store.SessionState)
	if err != nil {
		return Principal{}, err
	}
	if !st.Live(s.now()) || st.AdminID != c.Subject || st.Role != Role(c.Role) {
		return Principal{}, sessionEnded()
	}
	return Principal{AdminID: c.Subject, Role: Role(c.Role), SessionID: c.SessionID}, nil
}

// SessionEnded reports whether the admin's session has ended (logout, the
// admin disabled or its role changed, refresh-token reuse, expiry), for
// connections that outlive the request that authenticated them.
func (s *Service) SessionEnded(ctx context.Context, adminID, sessionID string) (bool, error) {
	st, err := s.sessions.State(ctx, sessionID, s.store.SessionState)
	if err != nil {
		return false, err
	}
	return !st.Live(s.now()) || st.AdminID != adminID, nil
}

func (s *Service) issue(a Admin, sessionID, refresh string) (Auth, error) {
	tok, _, err := s.keys.SignToken(keyring.Claims{
		Kind: keyring.KindAdmin, Subject: a.ID, SessionID: sessionID, Role: string(a.Role),
	}, s.policy.AccessTTL)
	if err != nil {
		return Auth{}, err
	}
	return Auth{AccessToken: tok, RefreshToken: refresh, AccessTTL: s.policy.AccessTTL, RefreshTTL: s.policy.RefreshTTL, Admin: a}, nil
}

// sessionEnded is the refusal of a token whose session has ended (or
// never was).
func sessionEnded() error {
	return apperr.New(apperr.CodeInvalidToken, "the admin session has ended (signed out, disabled, role changed, or expired): sign in again")
}
