package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/keyring"
	"hostgate/internal/lockout"
	"hostgate/internal/names"
	"hostgate/internal/paging"
	"hostgate/internal/passwords"
	"hostgate/internal/recent"
	"hostgate/internal/sessions"
)

// Policy holds the account timings; docs/accounts.md quotes the defaults.
type Policy struct {
	AccessTTL  time.Duration // access token lifetime
	RefreshTTL time.Duration // session (refresh token) lifetime
}

// DefaultPolicy is the spec's timings (section 8).
var DefaultPolicy = Policy{AccessTTL: 15 * time.Minute, RefreshTTL: 30 * 24 * time.Hour}

// Error codes owned by this package.
const (
	CodeEmailTaken       = "email_taken"
	CodeInvalidEmail     = "invalid_email"
	CodeAccountSuspended = "account_suspended"
	maxDisplayName       = 64
)

// Service carries out account operations.
type Service struct {
	store  Store
	keys   *keyring.Keyring
	hasher *passwords.Hasher
	guard  *lockout.Guard
	policy Policy
	log    *slog.Logger
	now    func() time.Time
	// sessions keeps what access-token checks read from the store, by
	// session id, for at most recent.TTL.
	sessions *sessions.Cache[SessionState]
	// apiKeys forgets what it keeps of a user's API keys after the user's
	// status changed, so a suspension ends them at once.
	apiKeys KeyForgetter
}

// KeyForgetter forgets what is kept of a user's API-key checks (package
// apikeys), on every instance.
type KeyForgetter interface {
	ForgetUser(ctx context.Context, userID string)
}

// Deps are what the account service works with besides its store.
type Deps struct {
	// Bus carries the forgetting of kept session states to other instances.
	Bus     *recent.Bus
	Keys    *keyring.Keyring
	Hasher  *passwords.Hasher
	Lockout *lockout.Guard
	// APIKeys is told of each committed suspension or resumption.
	APIKeys KeyForgetter
}

// NewService wires the account service. Every dependency is required: a
// suspension that did not end the user's API keys would leave them working.
func NewService(st Store, d Deps, p Policy, log *slog.Logger) *Service {
	if st == nil || d.Bus == nil || d.Keys == nil || d.Hasher == nil || d.Lockout == nil || d.APIKeys == nil {
		panic("accounts.NewService: a dependency is missing")
	}
	return &Service{store: st, keys: d.Keys, hasher: d.Hasher, guard: d.Lockout, policy: p, log: log, now: time.Now,
		sessions: sessions.NewCache[SessionState]("sessions", d.Bus), apiKeys: d.APIKeys}
}

// Auth is the result of a register, login or refresh.
type Auth struct {
	AccessToken  string
	RefreshToken string
	AccessTTL    time.Duration
	// RefreshTTL is how long a refresh token of a new session lives.
	RefreshTTL time.Duration
	User       User
}

// Principal is an authenticated user request.
type Principal struct {
	UserID    string
	SessionID string
}

// NormalizeEmail trims and lower-cases an address and checks its form.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	// The local part becomes the display name at registration, so the
	// address is held to the names rule as well.
	if err != nil || a.Address != s || a.Name != "" || len(s) > 254 || names.Check(s) != nil {
		return "", apperr.New(CodeInvalidEmail, "email address is not valid")
	}
	return s, nil
}

// Register creates an account and signs it in.
func (s *Service) Register(ctx context.Context, email, password string) (Auth, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return Auth{}, err
	}
	if err := passwords.Check(password, email); err != nil {
		return Auth{}, err
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return Auth{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	u := User{ID: uuid.NewString(), Email: email, DisplayName: strings.Split(email, "@")[0], Status: StatusActive, CreatedAt: now}
	sess, refresh, refreshHash := s.newSession(u.ID, now)
	if err := s.store.CreateUser(ctx, u, hash, sess, refreshHash); err != nil {
		if errors.Is(err, ErrEmailTaken) {
			return Auth{}, apperr.New(CodeEmailTaken, "an account with this email already exists")
		}
		return Auth{}, err
	}
	return s.issue(u, sess.ID, refresh)
}

// Login checks a password and opens a session. An unknown email and a wrong
// password give the same answer in about the same time, and count toward
// the same lockout.
func (s *Service) Login(ctx context.Context, email, password string) (Auth, error) {
	norm := strings.ToLower(strings.TrimSpace(email))
	if err := s.guard.Check(ctx, norm); err != nil {
		return Auth{}, err
	}
	u, hash, err := s.store.UserCredentials(ctx, norm)
	if errors.Is(err, ErrUserNotFound) || len(password) > passwords.MaxLen {
		s.hasher.Burn(ctx, password)
		return Auth{}, s.guard.Fail(ctx, norm, wrongLogin)
	}
	if err != nil {
		return Auth{}, err
	}
	ok, rehash, err := s.hasher.Verify(ctx, password, hash)
	if err != nil {
		return Auth{}, err
	}
	if !ok {
		return Auth{}, s.guard.Fail(ctx, norm, wrongLogin)
	}
	if err := s.guard.Succeed(ctx, norm); err != nil {
		return Auth{}, err
	}
	if u.Status != StatusActive {
		return Auth{}, suspended()
	}
	if rehash {
		s.rehash(ctx, u.ID, password)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	sess, refresh, refreshHash := s.newSession(u.ID, now)
	if err := s.store.CreateSession(ctx, sess, refreshHash); err != nil {
		return Auth{}, err
	}
	return s.issue(u, sess.ID, refresh)
}

func (s *Service) rehash(ctx context.Context, id, password string) {
	h, err := s.hasher.Hash(ctx, password)
	if err == nil {
		err = s.store.SetPasswordHash(ctx, id, h)
	}
	if err != nil {
		s.log.WarnContext(ctx, "password rehash failed", "user_id", id, "err", err)
	}
}

const wrongLogin = "email or password is incorrect"

// Refresh exchanges a refresh token for a new pair. A token that was
// already exchanged ends its whole session. The current token of a
// suspended user's session is refused with account_suspended, so the
// console can say why; nothing is rotated.
func (s *Service) Refresh(ctx context.Context, refreshToken string) (Auth, error) {
	var sess Session
	next, err := s.sessions.Rotate(ctx, refreshToken, func(old, nextHash []byte) (string, error) {
		var err error
		sess, err = s.store.RotateRefresh(ctx, old, nextHash, s.now().UTC())
		return sess.ID, err
	})
	switch {
	case errors.Is(err, ErrRefreshReused):
		s.log.WarnContext(ctx, "refresh token reuse: session revoked", "session_id", sess.ID)
		return Auth{}, invalidRefresh()
	case errors.Is(err, ErrSessionEnded):
		return Auth{}, s.endedRefusal(ctx, sess.UserID)
	case errors.Is(err, ErrRefreshUnknown):
		return Auth{}, invalidRefresh()
	case err != nil:
		return Auth{}, err
	}
	u, err := s.store.UserByID(ctx, sess.UserID)
	if err != nil {
		return Auth{}, err
	}
	if u.Status != StatusActive {
		return Auth{}, statusRefusal(u.Status)
	}
	return s.issue(u, sess.ID, next)
}

// endedRefusal is the answer to the current refresh token of an ended
// session: account_suspended when its user is suspended, else
// invalid_token.
func (s *Service) endedRefusal(ctx context.Context, userID string) error {
	if userID == "" {
		return invalidRefresh()
	}
	u, err := s.store.UserByID(ctx, userID)
	if errors.Is(err, ErrUserNotFound) {
		return invalidRefresh()
	}
	if err != nil {
		return err
	}
	return statusRefusal(u.Status)
}

// statusRefusal refuses a refresh for a user who is not active.
func statusRefusal(st Status) error {
	if st == StatusSuspended {
		return suspended()
	}
	return invalidRefresh()
}

// Logout ends the session of a refresh token, and its access tokens with it.
func (s *Service) Logout(ctx context.Context, refreshToken string) error {
	err := s.sessions.Revoke(ctx, refreshToken, func(h []byte) (string, error) {
		sess, err := s.store.RevokeSession(ctx, h, s.now().UTC())
		return sess.ID, err
	})
	if errors.Is(err, ErrRefreshUnknown) {
		return invalidRefresh()
	}
	return err
}

// Authenticate checks an access token, and that its session is still open
// and its user active: the store says so, read at most recent.TTL ago.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	c, err := s.keys.ParseToken(token, keyring.KindUser)
	if err != nil {
		return Principal{}, apperr.New(apperr.CodeInvalidToken, "access token is invalid or expired")
	}
	st, err := s.sessions.State(ctx, c.SessionID, s.store.SessionState)
	if err != nil {
		return Principal{}, err
	}
	if !st.Live(s.now()) || st.UserID != c.Subject {
		return Principal{}, apperr.New(apperr.CodeInvalidToken, "session has ended")
	}
	return Principal{UserID: c.Subject, SessionID: c.SessionID}, nil
}

// SessionRevoked reports whether a login session has ended (logout,
// suspension, password change, refresh-token reuse, expiry), for
// connections that outlive the request that authenticated them.
func (s *Service) SessionRevoked(ctx context.Context, sessionID string) (bool, error) {
	st, err := s.sessions.State(ctx, sessionID, s.store.SessionState)
	if err != nil {
		return false, err
	}
	return !st.Live(s.now()), nil
}

// Get returns a user; another user's or a missing id is not_found.
func (s *Service) Get(ctx context.Context, id string) (User, error) {
	u, err := s.store.UserByID(ctx, id)
	if errors.Is(err, ErrUserNotFound) {
		return User{}, apperr.NotFound("user")
	}
	return u, err
}

// UpdateDisplayName changes the user's display name.
func (s *Service) UpdateDisplayName(ctx context.Context, id, name string) (User, error) {
	if p := names.Problem("display_name", name); p != "" {
		return User{}, apperr.New("invalid_name", p)
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > maxDisplayName {
		return User{}, apperr.New("invalid_name", fmt.Sprintf("display_name must be 1 to %d characters", maxDisplayName))
	}
	u, err := s.store.UpdateDisplayName(ctx, id, name)
	if errors.Is(err, ErrUserNotFound) {
		return User{}, apperr.NotFound("user")
	}
	return u, err
}

// List returns a page of users for the admin console.
func (s *Service) List(ctx context.Context, f UserFilter, p paging.Page) (paging.Result[User], error) {
	if f.Status != "" && f.Status != StatusActive && f.Status != StatusSuspended {
		return paging.Result[User]{}, apperr.New(apperr.CodeInvalidQuery, "status must be active or suspended")
	}
	if _, _, ok := f.Sort.Field(); !ok {
		return paging.Result[User]{}, apperr.New(apperr.CodeInvalidQuery, "sort: unknown order")
	}
	f.QueryPrefix = paging.PrefixOnly(f.Query)
	items, total, err := s.store.ListUsers(ctx, f, p)
	return paging.NewResult(items, total, p), err
}

// CountByStatus counts the users by status, for the dashboard.
func (s *Service) CountByStatus(ctx context.Context) (map[Status]int, error) {
	return s.store.CountUsers(ctx)
}

// SetStatus suspends or resumes a user on an admin's behalf. Suspension ends
// every session at once: the store revokes them, and their kept states are
// forgotten on every instance, so the next access-token check reads them.
func (s *Service) SetStatus(ctx context.Context, actor audit.Actor, id string, st Status) error {
	action := audit.ActionUserSuspend
	if st == StatusActive {
		action = audit.ActionUserResume
	}
	ids, err := SetUserStatus(ctx, s.store, id, st, s.now().UTC(), actor.Entry(action, "user", id))
	if errors.Is(err, ErrUserNotFound) {
		return apperr.NotFound("user")
	}
	if err != nil {
		return err
	}
	s.sessions.Forget(ctx, ids...)
	s.apiKeys.ForgetUser(ctx, id)
	return nil
}

// ChangePassword replaces a signed-in user's password. The current one is
// checked like a login's, and a wrong one counts toward the same lockout.
// Every session of the user ends (access and refresh tokens alike) and a
// new one is opened, answered as a login is.
func (s *Service) ChangePassword(ctx context.Context, userID, current, next string) (Auth, error) {
	u, err := s.Get(ctx, userID)
	if err != nil {
		return Auth{}, err
	}
	if err := s.guard.Check(ctx, u.Email); err != nil {
		return Auth{}, err
	}
	if err := passwords.Check(next, u.Email); err != nil {
		return Auth{}, err
	}
	if err := s.checkCurrent(ctx, u.Email, current); err != nil {
		return Auth{}, err
	}
	hash, err := s.hasher.Hash(ctx, next)
	if err != nil {
		return Auth{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	sess, refresh, refreshHash := s.newSession(u.ID, now)
	ids, err := s.store.ChangePassword(ctx, u.ID, hash, now, sess, refreshHash)
	if errors.Is(err, ErrUserNotFound) {
		return Auth{}, apperr.NotFound("user")
	}
	if err != nil {
		return Auth{}, err
	}
	s.sessions.Forget(ctx, ids...)
	return s.issue(u, sess.ID, refresh)
}

// checkCurrent checks the password of the account with this email,
// counting a wrong one toward the lockout.
func (s *Service) checkCurrent(ctx context.Context, email, password string) error {
	_, hash, err := s.store.UserCredentials(ctx, email)
	if err != nil {
		return err
	}
	ok := false
	if len(password) <= passwords.MaxLen {
		if ok, _, err = s.hasher.Verify(ctx, password, hash); err != nil {
			return err
		}
	}
	if !ok {
		return s.guard.Fail(ctx, email, "current password is incorrect")
	}
	return s.guard.Succeed(ctx, email)
}

func (s *Service) newSession(userID string, now time.Time) (Session, string, []byte) {
	refresh, h := sessions.NewRefresh()
	return Session{ID: uuid.NewString(), UserID: userID, CreatedAt: now, ExpiresAt: now.Add(s.policy.RefreshTTL)}, refresh, h
}

func (s *Service) issue(u User, sessionID, refresh string) (Auth, error) {
	tok, _, err := s.keys.SignToken(keyring.Claims{Kind: keyring.KindUser, Subject: u.ID, SessionID: sessionID}, s.policy.AccessTTL)
	if err != nil {
		return Auth{}, err
	}
	return Auth{AccessToken: tok, RefreshToken: refresh, AccessTTL: s.policy.AccessTTL, RefreshTTL: s.policy.RefreshTTL, User: u}, nil
}

// suspended is the refusal of a suspended user's login or refresh.
func suspended() error { return apperr.New(CodeAccountSuspended, "this account is suspended") }

func invalidRefresh() error {
	return apperr.New(apperr.CodeInvalidToken, "refresh token is invalid, expired or already used")
}
