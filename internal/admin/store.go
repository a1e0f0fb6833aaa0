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
	// SetAdminStatus sets the status and writes rec in the same
	// transaction; ErrAdminNotFound.
	SetAdminStatus(ctx context.Context, id, status string, now time.Time, rec audit.Entry) error
}
