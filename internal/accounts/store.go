package accounts

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/sessions"
)

// Errors a Store returns; the service turns them into client errors.
var (
	ErrUserNotFound = errors.New("accounts: user not found")
	ErrEmailTaken   = errors.New("accounts: email already registered")
	// ErrRefreshUnknown, ErrRefreshReused, ErrSessionEnded: package
	// sessions' (ErrSessionEnded also when the session's user is not active).
	ErrRefreshUnknown = sessions.ErrRefreshUnknown
	ErrRefreshReused  = sessions.ErrRefreshReused
	ErrSessionEnded   = sessions.ErrSessionEnded
)

// Session is one login of a user: a chain of refresh tokens of which only
// the newest is usable.
type Session struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt *time.Time
}

// SessionState is what an access-token check needs to know about the
// token's session, read in one query.
type SessionState struct {
	UserID     string
	ExpiresAt  time.Time
	RevokedAt  *time.Time
	UserStatus Status
}

// Live reports whether the session's tokens may be used at now: the
// session is neither revoked nor expired, and its user is active.
func (st SessionState) Live(now time.Time) bool {
	return sessions.Live(st.RevokedAt, st.ExpiresAt, now) && st.UserStatus == StatusActive
}

// UserFilter narrows and orders a user listing. Query matches a part of
// the email or display name, case-insensitively; when QueryPrefix (set by
// the service for a query shorter than paging.MinSubstring) the start of
// one of them instead. Status matches exactly; empty fields match all. An
// empty Sort is DefaultUserSort.
type UserFilter struct {
	Query       string
	QueryPrefix bool
	Status      Status
	Sort        UserSort
}

// UserSort orders the admin user list: a field of UserSortFields,
// descending with a leading "-"; ties break on the id in the same
// direction.
type UserSort string

// UserSortFields are the fields the admin user list sorts by: the
// service's validation and the OpenAPI enum of GET /v1/admin/users?sort
// (through UserSorts) come from it.
var UserSortFields = []string{"email", "created_at", "display_name"}

// UserSorts is every UserSort value.
var UserSorts = paging.Sorts(UserSortFields)

// DefaultUserSort is the order of an empty UserSort: newest first.
const DefaultUserSort UserSort = "-created_at"

// Field returns s's field and direction; ok is false for a sort of no
// field of UserSortFields.
func (s UserSort) Field() (field string, desc, ok bool) {
	return paging.SortField(string(s), string(DefaultUserSort), UserSortFields)
}

// Store is what package accounts needs from storage. Emails passed in are
// already normalised. Each method is one transaction.
type Store interface {
	// CreateUser inserts u with its password hash, and a first session with
	// its refresh-token hash. ErrEmailTaken when the email exists.
	CreateUser(ctx context.Context, u User, passwordHash string, s Session, refreshHash []byte) error
	// UserCredentials returns the user with this email and its password hash.
	UserCredentials(ctx context.Context, email string) (User, string, error)
	// UserByID returns a user; ErrUserNotFound.
	UserByID(ctx context.Context, id string) (User, error)
	// UpdateDisplayName sets the name and returns the updated user.
	UpdateDisplayName(ctx context.Context, id, name string) (User, error)
	// SetPasswordHash replaces the stored hash (rehash with new parameters).
	SetPasswordHash(ctx context.Context, id, hash string) error
	// ListUsers returns a page of the users matching f, in f's order, and
	// the count of all matches.
	ListUsers(ctx context.Context, f UserFilter, p paging.Page) ([]User, int, error)
	// CountUsers counts the users by status, every status present (zero
	// for none).
	CountUsers(ctx context.Context) (map[Status]int, error)
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error
	// ChangePassword replaces the user's password hash, revokes every open
	// session of the user and opens s with its first refresh token, all in
	// one transaction; it returns the ids of the sessions it revoked.
	// ErrUserNotFound.
	ChangePassword(ctx context.Context, userID, hash string, now time.Time, s Session, refreshHash []byte) ([]string, error)

	// CreateSession opens a session whose first refresh token hashes to refreshHash.
	CreateSession(ctx context.Context, s Session, refreshHash []byte) error
	// RotateRefresh consumes the refresh token oldHash and makes newHash the
	// session's next one, atomically: of any number of concurrent calls with
	// one token at most one succeeds. A token that was already consumed
	// revokes its whole session and returns that Session together with
	// ErrRefreshReused, so the caller can end its access tokens too. An
	// unused token of a session that was revoked or has expired, or whose
	// user is not active, returns that Session with ErrSessionEnded and
	// changes nothing. Other errors: ErrRefreshUnknown.
	RotateRefresh(ctx context.Context, oldHash, newHash []byte, now time.Time) (Session, error)
	// SessionState returns the session's times and its user's status;
	// ErrSessionEnded when there is no such session.
	SessionState(ctx context.Context, sessionID string) (SessionState, error)
	// RevokeSession ends the session that issued the refresh token (current
	// or already rotated) and returns it; ErrRefreshUnknown.
	RevokeSession(ctx context.Context, refreshHash []byte, now time.Time) (Session, error)
}

// Tx is the plain storage operations of a change to accounts, inside one
// unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// SetUserStatus sets a user's status; ErrUserNotFound.
	SetUserStatus(ctx context.Context, id string, status Status) error
	// RevokeUserSessions revokes every open session of the user at now
	// and returns their ids.
	RevokeUserSessions(ctx context.Context, userID string, now time.Time) ([]string, error)
}

// SetUserStatus sets a user's status and writes rec, stamped now, in one
// unit of work of st; suspending also revokes every open session of the
// user. It returns the ids of the sessions it revoked; ErrUserNotFound
// changes nothing.
func SetUserStatus(ctx context.Context, st Store, id string, status Status, now time.Time, rec audit.Entry) ([]string, error) {
	var ids []string
	err := st.Tx(ctx, func(tx Tx) error {
		if err := tx.SetUserStatus(ctx, id, status); err != nil {
			return err
		}
		if status == StatusSuspended {
			var err error
			if ids, err = tx.RevokeUserSessions(ctx, id, now); err != nil {
				return err
			}
		}
		return tx.AppendAudit(ctx, rec.At(now))
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}
