package admin

import (
	"context"
	"errors"
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
	"hostgate/internal/sessions"
)

// Policy holds the admin session timings.
type Policy struct {
	AccessTTL  time.Duration // access token lifetime
	RefreshTTL time.Duration // session (refresh token) lifetime
}

// DefaultPolicy is the admin timings: a one-hour access token (spec
// section 8) renewed by a refresh token of a session of 30 days.
var DefaultPolicy = Policy{AccessTTL: time.Hour, RefreshTTL: 30 * 24 * time.Hour}

// Error codes owned by this package.
const (
	CodeInvalidUsername = "invalid_username"
	CodeInvalidRole     = "invalid_role"
	CodeUsernameTaken   = "username_taken"
	// CodeLastOwner refuses a change that would leave no enabled owner.
	CodeLastOwner = "last_owner"
)

var usernameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{2,63}$`)

// Service carries out admin account operations.
type Service struct {
	store  Store
	coord  Tickets // step-up tickets
	keys   *keyring.Keyring
	hasher *passwords.Hasher
	guard  *lockout.Guard
	policy Policy
	now    func() time.Time
	// sessions keeps what access-token checks read from the store, by
	// session id, for at most recent.TTL.
	sessions *sessions.Cache[SessionState]
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
	return &Service{store: st, coord: c, keys: keys, hasher: h, guard: g, policy: DefaultPolicy, now: time.Now,
		sessions: sessions.NewCache[SessionState]("admin_sessions", bus)}
}

// Principal is an authenticated admin request.
type Principal struct {
	AdminID   string
	Role      Role
	SessionID string
}

// Auth is the result of an admin login or refresh.
type Auth struct {
	AccessToken  string
	RefreshToken string
	AccessTTL    time.Duration
	// RefreshTTL is how long the refresh token of a new session lives.
	RefreshTTL time.Duration
	Admin      Admin
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
	if err := checkRole(role); err != nil {
		return Admin{}, err
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
			return Admin{}, usernameTaken()
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

// SetStatus enables or disables the admin named username on actor's
// behalf (`hostgate admin enable|disable`), by the rules of SetStatusByID.
func (s *Service) SetStatus(ctx context.Context, actor audit.Actor, username, status string) (Admin, error) {
	a, err := s.byUsername(ctx, username)
	if err != nil {
		return Admin{}, err
	}
	return s.SetStatusByID(ctx, actor, a.ID, status)
}

// SetRoleByName gives the admin named username role on actor's behalf
// (`hostgate admin set-role`), by the rules of SetRole; the command runs on
// the server, so it needs no step-up.
func (s *Service) SetRoleByName(ctx context.Context, actor audit.Actor, username string, role Role) (Admin, error) {
	a, err := s.byUsername(ctx, username)
	if err != nil {
		return Admin{}, err
	}
	return s.changeRole(ctx, actor, a.ID, role)
}

func (s *Service) byUsername(ctx context.Context, username string) (Admin, error) {
	a, _, err := s.store.AdminCredentials(ctx, strings.ToLower(strings.TrimSpace(username)))
	if errors.Is(err, ErrAdminNotFound) {
		return Admin{}, apperr.NotFound("admin")
	}
	return a, err
}
