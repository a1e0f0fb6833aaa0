package admin

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/sessions"
)

// Errors a Store returns.
var (
	ErrAdminNotFound = errors.New("admin: admin not found")
	ErrUsernameTaken = errors.New("admin: username taken")
	// ErrRefreshUnknown, ErrRefreshReused, ErrSessionEnded: package
	// sessions' (ErrSessionEnded also when the session's admin is disabled).
	ErrRefreshUnknown = sessions.ErrRefreshUnknown
	ErrRefreshReused  = sessions.ErrRefreshReused
	ErrSessionEnded   = sessions.ErrSessionEnded
	// ErrLastOwner: the change would leave no enabled owner (ChangeAdmin).
	ErrLastOwner = errors.New("admin: the last enabled owner")
)

// Session is one sign-in of an admin: a chain of refresh tokens of which
// only the newest is usable.
type Session struct {
	ID        string
	AdminID   string
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt *time.Time
}

// SessionState is what an access-token check needs to know about the
// token's session and its admin, read in one query.
type SessionState struct {
	AdminID     string
	Role        Role
	AdminStatus string
	ExpiresAt   time.Time
	RevokedAt   *time.Time
}

// Live reports whether the session's tokens may be used at now: the
// session is neither revoked nor expired, and its admin is active.
func (st SessionState) Live(now time.Time) bool {
	return sessions.Live(st.RevokedAt, st.ExpiresAt, now) && st.AdminStatus == StatusActive
}

// Filter narrows an admin listing. Query matches part of the username
// (case-insensitive); Role and Status match exactly; empty matches all.
type Filter struct {
	Query  string
	Role   Role
	Status string
}

// Store is what package admin needs from storage. Usernames are normalised.
type Store interface {
	// CreateAdmin inserts a; ErrUsernameTaken when the username exists.
	CreateAdmin(ctx context.Context, a Admin, passwordHash string) error
	// AdminCredentials returns the admin and its password hash; ErrAdminNotFound.
	AdminCredentials(ctx context.Context, username string) (Admin, string, error)
	// AdminByID returns an admin; ErrAdminNotFound.
	AdminByID(ctx context.Context, id string) (Admin, error)
	// ListAdmins returns a page of matching admins by username, and the
	// match count.
	ListAdmins(ctx context.Context, f Filter, p paging.Page) ([]Admin, int, error)
	// SetAdminPasswordHash replaces the stored hash.
	SetAdminPasswordHash(ctx context.Context, id, hash string) error
	// AnyAdmin reports whether any admin exists, whatever its status.
	AnyAdmin(ctx context.Context) (bool, error)
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error

	// OpenSession records s.CreatedAt as its admin's last sign-in and opens
	// s with its first refresh token, which hashes to refreshHash, in one
	// transaction; ErrAdminNotFound.
	OpenSession(ctx context.Context, s Session, refreshHash []byte) error
	// RotateRefresh consumes the refresh token oldHash and makes newHash the
	// session's next one, atomically: of any number of concurrent calls with
	// one token at most one succeeds. A token that was already consumed
	// revokes its whole session and returns that Session with
	// ErrRefreshReused. An unused token of a session that was revoked or has
	// expired, or whose admin is disabled, returns that Session with
	// ErrSessionEnded and changes nothing. Other errors: ErrRefreshUnknown.
	RotateRefresh(ctx context.Context, oldHash, newHash []byte, now time.Time) (Session, error)
	// SessionState returns the session's times and its admin's role and
	// status; ErrSessionEnded when there is no such session.
	SessionState(ctx context.Context, sessionID string) (SessionState, error)
	// RevokeSession ends the session that issued the refresh token (current
	// or already rotated) and returns it; ErrRefreshUnknown.
	RevokeSession(ctx context.Context, refreshHash []byte, now time.Time) (Session, error)
	// EndSession ends the session with this id, keeping an earlier
	// revocation time; ErrSessionEnded when there is no such session.
	EndSession(ctx context.Context, sessionID string, now time.Time) error
}

// Tx is the plain storage operations of a change to admins, inside one
// unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// InsertAdmin inserts a; ErrUsernameTaken.
	InsertAdmin(ctx context.Context, a Admin, passwordHash string) error
	// LockOwners returns the ids of the enabled owners and keeps their rows
	// from changing until the unit of work ends, so that two changes that
	// each count the owners cannot both rely on the same count.
	LockOwners(ctx context.Context) ([]string, error)
	// LockAdmin returns an admin, its row kept from changing until the unit
	// of work ends; ErrAdminNotFound.
	LockAdmin(ctx context.Context, id string) (Admin, error)
	// SetAdminStatus sets an admin's status; ErrAdminNotFound.
	SetAdminStatus(ctx context.Context, id, status string) error
	// SetAdminRole sets an admin's role; ErrAdminNotFound.
	SetAdminRole(ctx context.Context, id string, role Role) error
	// RevokeAdminSessions revokes every open session of the admin at now
	// and returns their ids.
	RevokeAdminSessions(ctx context.Context, adminID string, now time.Time) ([]string, error)
}

// Change is a change of one admin: a new role, a new status, or both;
// a zero field is left as it is.
type Change struct {
	Role   Role
	Status string
}

// ChangeAdmin applies c to the admin id and appends rec, stamped now, in
// one unit of work of st, and returns the admin as changed and the ids of
// the sessions it ended. The rules:
//   - an installation keeps at least one enabled owner: a change that
//     would make the last one stop being one changes nothing and returns
//     ErrLastOwner. The enabled owners are locked before they are counted,
//     so two owners disabling each other at once cannot both succeed;
//   - disabling an admin, or changing its role, ends all its sessions (a
//     role change takes effect at its next sign-in).
//
// ErrAdminNotFound changes nothing.
func ChangeAdmin(ctx context.Context, st Store, id string, c Change, now time.Time, rec audit.Entry) (Admin, []string, error) {
	var (
		next  Admin
		ended []string
	)
	err := st.Tx(ctx, func(tx Tx) error {
		owners, err := tx.LockOwners(ctx)
		if err != nil {
			return err
		}
		cur, err := tx.LockAdmin(ctx, id)
		if err != nil {
			return err
		}
		next = cur
		if c.Role != "" {
			next.Role = c.Role
		}
		if c.Status != "" {
			next.Status = c.Status
		}
		if cur.EnabledOwner() && !next.EnabledOwner() && !otherThan(owners, id) {
			return ErrLastOwner
		}
		if next.Status != cur.Status {
			if err := tx.SetAdminStatus(ctx, id, next.Status); err != nil {
				return err
			}
		}
		if next.Role != cur.Role {
			if err := tx.SetAdminRole(ctx, id, next.Role); err != nil {
				return err
			}
		}
		if next.Status == StatusDisabled || next.Role != cur.Role {
			if ended, err = tx.RevokeAdminSessions(ctx, id, now); err != nil {
				return err
			}
		}
		return tx.AppendAudit(ctx, rec.At(now))
	})
	if err != nil {
		return Admin{}, nil, err
	}
	return next, ended, nil
}

// otherThan reports whether ids holds an id other than id.
func otherThan(ids []string, id string) bool {
	for _, x := range ids {
		if x != id {
			return true
		}
	}
	return false
}

// SetAdminStatus sets an admin's status and appends rec, stamped now, in
// one unit of work of st (ChangeAdmin, with its rules); it returns the ids
// of the sessions it ended.
func SetAdminStatus(ctx context.Context, st Store, id, status string, now time.Time, rec audit.Entry) ([]string, error) {
	_, ended, err := ChangeAdmin(ctx, st, id, Change{Status: status}, now, rec)
	return ended, err
}

// InsertAdmin adds a and appends rec, stamped now, in one unit of work of
// st; ErrUsernameTaken changes nothing.
func InsertAdmin(ctx context.Context, st Store, a Admin, passwordHash string, now time.Time, rec audit.Entry) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.InsertAdmin(ctx, a, passwordHash); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(now))
	})
}
