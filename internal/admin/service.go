package admin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/keyring"
	"hostgate/internal/lockout"
	"hostgate/internal/passwords"
	"hostgate/internal/recent"
)

// TokenTTL is the admin access token lifetime (spec section 8).
const TokenTTL = time.Hour

// Error codes owned by this package.
const (
	CodeInvalidUsername = "invalid_username"
	CodeInvalidRole     = "invalid_role"
	CodeUsernameTaken   = "username_taken"
)

var usernameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{2,63}$`)

// Service carries out admin account operations.
type Service struct {
	store  Store
	coord  Tickets // step-up tickets
	keys   *keyring.Keyring
	hasher *passwords.Hasher
	guard  *lockout.Guard
	now    func() time.Time
	// admins keeps what token checks read from the store, by admin id, for
	// at most recent.TTL.
	admins *recent.Cache[Admin]
}

// Tickets is what admins use of coordination (coord.Coord): step-up
// tickets.
type Tickets interface {
	PutTicket(ctx context.Context, key string, value []byte, ttl time.Duration) error
	TakeTicket(ctx context.Context, key string) (value []byte, ok bool, err error)
}

// NewService wires the admin service; bus carries the forgetting of kept
// admins to other instances.
func NewService(st Store, c Tickets, bus *recent.Bus, keys *keyring.Keyring, h *passwords.Hasher, g *lockout.Guard) *Service {
	return &Service{store: st, coord: c, keys: keys, hasher: h, guard: g, now: time.Now, admins: recent.New[Admin]("admins", bus)}
}

// Principal is an authenticated admin request.
type Principal struct {
	AdminID   string
	Role      Role
	SessionID string
}

// Auth is the result of an admin login.
type Auth struct {
	AccessToken string
	AccessTTL   time.Duration
	Admin       Admin
}

// NormalizeUsername lower-cases and checks a username.
func NormalizeUsername(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if !usernameRE.MatchString(s) {
		return "", apperr.New(CodeInvalidUsername, "username must be 3-64 characters of a-z, 0-9, '.', '_' or '-'")
	}
	return s, nil
}

// Create adds an admin; used by `hostgate admin create` and at start-up.
func (s *Service) Create(ctx context.Context, username, password string, role Role) (Admin, error) {
	username, err := NormalizeUsername(username)
	if err != nil {
		return Admin{}, err
	}
	if !role.Valid() {
		return Admin{}, apperr.New(CodeInvalidRole, fmt.Sprintf("role must be one of %v", Roles))
	}
	if err := passwords.Check(password, username); err != nil {
		return Admin{}, err
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return Admin{}, err
	}
	a := Admin{ID: uuid.NewString(), Username: username, Role: role, Status: StatusActive,
		CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.store.CreateAdmin(ctx, a, hash); err != nil {
		if errors.Is(err, ErrUsernameTaken) {
			return Admin{}, apperr.New(CodeUsernameTaken, "an admin with this username already exists")
		}
		return Admin{}, err
	}
	return a, nil
}

// EnsureOwner creates an owner named username unless an admin of that name
// exists; it reports whether it created one. An existing admin's password is
// left as it is.
func (s *Service) EnsureOwner(ctx context.Context, username, password string) (bool, error) {
	_, err := s.Create(ctx, username, password, Owner)
	if apperr.Is(err, CodeUsernameTaken) {
		return false, nil
	}
	return err == nil, err
}

// AnyAdmin reports whether an admin exists, so that a new installation
// can say how to create the first one.
func (s *Service) AnyAdmin(ctx context.Context) (bool, error) { return s.store.AnyAdmin(ctx) }

const wrongLogin = "username or password is incorrect"

// Login checks an admin's password and issues a one-hour token.
func (s *Service) Login(ctx context.Context, username, password string) (Auth, error) {
	name := strings.ToLower(strings.TrimSpace(username))
	if err := s.guard.Check(ctx, name); err != nil {
		return Auth{}, err
	}
	a, hash, err := s.store.AdminCredentials(ctx, name)
	if errors.Is(err, ErrAdminNotFound) || len(password) > passwords.MaxLen {
		s.hasher.Burn(ctx, password)
		return Auth{}, s.guard.Fail(ctx, name, wrongLogin)
	}
	if err != nil {
		return Auth{}, err
	}
	ok, _, err := s.hasher.Verify(ctx, password, hash)
	if err != nil {
		return Auth{}, err
	}
	if !ok || a.Status != StatusActive {
		return Auth{}, s.guard.Fail(ctx, name, wrongLogin)
	}
	if err := s.guard.Succeed(ctx, name); err != nil {
		return Auth{}, err
	}
	tok, _, err := s.keys.SignToken(keyring.Claims{
		Kind: keyring.KindAdmin, Subject: a.ID, SessionID: uuid.NewString(), Role: string(a.Role),
	}, TokenTTL)
	if err != nil {
		return Auth{}, err
	}
	return Auth{AccessToken: tok, AccessTTL: TokenTTL, Admin: a}, nil
}

// Authenticate checks an admin token, and that its admin is still active:
// the store says so, read at most recent.TTL ago.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	c, err := s.keys.ParseToken(token, keyring.KindAdmin)
	if err != nil || !Role(c.Role).Valid() {
		return Principal{}, apperr.New(apperr.CodeInvalidToken, "admin token is invalid or expired")
	}
	active, err := s.Active(ctx, c.Subject)
	if err != nil {
		return Principal{}, err
	}
	if !active {
		return Principal{}, apperr.New(apperr.CodeInvalidToken, "this admin is disabled")
	}
	return Principal{AdminID: c.Subject, Role: Role(c.Role), SessionID: c.SessionID}, nil
}

// Active reports whether an admin exists and is active, for token checks
// and for connections that outlive the request that authenticated them.
func (s *Service) Active(ctx context.Context, id string) (bool, error) {
	a, err := s.admins.Get(ctx, id, func(ctx context.Context) (Admin, error) { return s.store.AdminByID(ctx, id) })
	if errors.Is(err, ErrAdminNotFound) {
		return false, nil
	}
	return err == nil && a.Status == StatusActive, err
}

// SetStatus enables or disables the admin named username on actor's
// behalf (`hostgate admin enable|disable`). A disabled admin cannot sign
// in, and its tokens are refused from the next check: at once where the
// forget arrives, within recent.TTL everywhere else.
func (s *Service) SetStatus(ctx context.Context, actor audit.Actor, username, status string) (Admin, error) {
	action := audit.ActionAdminDisable
	if status == StatusActive {
		action = audit.ActionAdminEnable
	}
	a, _, err := s.store.AdminCredentials(ctx, strings.ToLower(strings.TrimSpace(username)))
	if errors.Is(err, ErrAdminNotFound) {
		return Admin{}, apperr.NotFound("admin")
	}
	if err != nil {
		return Admin{}, err
	}
	if err := SetAdminStatus(ctx, s.store, a.ID, status, s.now().UTC(), actor.Entry(action, "admin", a.ID)); err != nil {
		return Admin{}, err
	}
	s.admins.Forget(ctx, a.ID)
	a.Status = status
	return a, nil
}
