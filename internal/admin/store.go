package admin

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/audit"
)

// Errors a Store returns.
var (
	ErrAdminNotFound = errors.New("admin: admin not found")
	ErrUsernameTaken = errors.New("admin: username taken")
)

// Store is what package admin needs from storage. Usernames are normalised.
type Store interface {
	// CreateAdmin inserts a; ErrUsernameTaken when the username exists.
	CreateAdmin(ctx context.Context, a Admin, passwordHash string) error
	// AdminCredentials returns the admin and its password hash; ErrAdminNotFound.
	AdminCredentials(ctx context.Context, username string) (Admin, string, error)
	// AdminByID returns an admin; ErrAdminNotFound.
	AdminByID(ctx context.Context, id string) (Admin, error)
	// SetAdminPasswordHash replaces the stored hash.
	SetAdminPasswordHash(ctx context.Context, id, hash string) error
	// AnyAdmin reports whether any admin exists, whatever its status.
	AnyAdmin(ctx context.Context) (bool, error)
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is the plain storage operations of a change to admins, inside one
// unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// SetAdminStatus sets an admin's status; ErrAdminNotFound.
	SetAdminStatus(ctx context.Context, id, status string) error
}

// SetAdminStatus sets an admin's status and appends rec, stamped now, in
// one unit of work of st; ErrAdminNotFound changes nothing.
func SetAdminStatus(ctx context.Context, st Store, id, status string, now time.Time, rec audit.Entry) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.SetAdminStatus(ctx, id, status); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(now))
	})
}
