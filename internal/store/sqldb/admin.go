package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"hostgate/internal/admin"
	"hostgate/internal/paging"
)

// Admins is the admins' storage, on the shared core.
type Admins struct{ d *DB }

var (
	_ admin.Store = Admins{}
	_ admin.Tx    = adminTx{}
)

// Admins returns the admins' storage.
func (d *DB) Admins() admin.Store { return Admins{d} }

// Tx implements admin.Store.
func (s Admins) Tx(ctx context.Context, fn func(admin.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(adminTx{t}) })
}

// adminTx is the admins' unit of work.
type adminTx struct{ *tx }

const adminCols = "id, username, role, status, created_at, last_login_at"

// scanAdmin scans adminCols, then any extra columns into extra.
func scanAdmin(r rowScanner, extra ...any) (admin.Admin, error) {
	var a admin.Admin
	dest := append([]any{&a.ID, &a.Username, (*string)(&a.Role), &a.Status, timeDest{&a.CreatedAt}, nullTimeDest{&a.LastLoginAt}}, extra...)
	return a, r.Scan(dest...)
}

// CreateAdmin inserts a; ErrUsernameTaken when the username exists.
func (s Admins) CreateAdmin(ctx context.Context, a admin.Admin, passwordHash string) error {
	return s.d.insertAdmin(ctx, s.d.write, a, passwordHash)
}

// InsertAdmin implements admin.Tx.
func (t adminTx) InsertAdmin(ctx context.Context, a admin.Admin, passwordHash string) error {
	return t.d.insertAdmin(ctx, t.tx.tx, a, passwordHash)
}

func (d *DB) insertAdmin(ctx context.Context, q queryer, a admin.Admin, passwordHash string) error {
	_, err := q.ExecContext(ctx,
		`INSERT INTO admins (id, username, password_hash, role, status, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6)`,
		a.ID, a.Username, passwordHash, string(a.Role), a.Status, d.timeArg(a.CreatedAt))
	if d.dialect.IsUniqueViolation(err) {
		return admin.ErrUsernameTaken
	}
	if err != nil {
		return d.errorf("create admin", err)
	}
	return nil
}

// ListAdmins returns a page of matching admins by username, and the count
// of all matches, both from one snapshot.
func (s Admins) ListAdmins(ctx context.Context, f admin.Filter, p paging.Page) ([]admin.Admin, int, error) {
	var w where
	if f.Query != "" {
		w.add(`username LIKE $%d ESCAPE '!'`, "%"+escapeLike(strings.ToLower(f.Query))+"%")
	}
	if f.Role != "" {
		w.add(`role = $%d`, string(f.Role))
	}
	if f.Status != "" {
		w.add(`status = $%d`, f.Status)
	}
	return listPage(ctx, s.d, "admins", adminCols, "admins", w, keyOrder{Col: "username", Tie: "id"}, p,
		func(r rowScanner) (admin.Admin, error) { return scanAdmin(r) })
}

// AdminCredentials returns the admin and its password hash; ErrAdminNotFound.
func (s Admins) AdminCredentials(ctx context.Context, username string) (admin.Admin, string, error) {
	d := s.d
	var hash string
	row := d.read.QueryRowContext(ctx,
		`SELECT `+adminCols+`, password_hash FROM admins WHERE username = $1`, username)
	a, err := d.adminResult(scanAdmin(row, &hash))
	if err != nil {
		return admin.Admin{}, "", err
	}
	return a, hash, nil
}

// AdminByID returns an admin; ErrAdminNotFound.
func (s Admins) AdminByID(ctx context.Context, id string) (admin.Admin, error) {
	d := s.d
	row := d.read.QueryRowContext(ctx, selectAdminByID, id)
	return d.adminResult(scanAdmin(row))
}

// AnyAdmin reports whether the store holds an admin, whatever its status.
func (s Admins) AnyAdmin(ctx context.Context) (bool, error) {
	d := s.d
	var n int
	err := d.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM admins LIMIT 1) a`).Scan(&n)
	if err != nil {
		return false, d.errorf("look for an admin", err)
	}
	return n > 0, nil
}

// adminResult maps a missing row to ErrAdminNotFound.
func (d *DB) adminResult(a admin.Admin, err error) (admin.Admin, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return admin.Admin{}, admin.ErrAdminNotFound
	}
	if err != nil {
		return admin.Admin{}, d.errorf("read admin", err)
	}
	return a, nil
}

// SetAdminPasswordHash replaces the stored hash; ErrAdminNotFound.
func (s Admins) SetAdminPasswordHash(ctx context.Context, id, hash string) error {
	d := s.d
	res, err := d.write.ExecContext(ctx, `UPDATE admins SET password_hash = $1 WHERE id = $2`, hash, id)
	if err != nil {
		return d.errorf("set admin password hash", err)
	}
	return affected(res, admin.ErrAdminNotFound)
}

const (
	lockOwners           = `SELECT id FROM admins WHERE role = 'owner' AND status = 'active' ORDER BY id`
	lockOwnersForUpdate  = lockOwners + ` FOR NO KEY UPDATE`
	selectAdminByID      = `SELECT ` + adminCols + ` FROM admins WHERE id = $1`
	selectAdminForUpdate = selectAdminByID + ` FOR NO KEY UPDATE`
)

// LockOwners implements admin.Tx. On PostgreSQL the enabled owners' rows
// are locked in id order (so two units of work never wait for each other
// in a circle); a unit of work that waited for one re-reads it when it
// gets the lock, and leaves out an owner the other one disabled or
// demoted. On SQLite the single writer already excludes the others.
func (t adminTx) LockOwners(ctx context.Context) ([]string, error) {
	rows, err := t.tx.tx.QueryContext(ctx, t.lock(lockOwners, lockOwnersForUpdate))
	if err != nil {
		return nil, t.d.errorf("lock owners", err)
	}
	return collect(rows, func(r rowScanner) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
}

// LockAdmin implements admin.Tx.
func (t adminTx) LockAdmin(ctx context.Context, id string) (admin.Admin, error) {
	return t.d.adminResult(scanAdmin(t.tx.tx.QueryRowContext(ctx, t.lock(selectAdminByID, selectAdminForUpdate), id)))
}

// SetAdminRole implements admin.Tx.
func (t adminTx) SetAdminRole(ctx context.Context, id string, role admin.Role) error {
	res, err := t.tx.tx.ExecContext(ctx, `UPDATE admins SET role = $1 WHERE id = $2`, string(role), id)
	if err != nil {
		return t.d.errorf("set admin role", err)
	}
	return affected(res, admin.ErrAdminNotFound)
}

// RevokeAdminSessions implements admin.Tx.
func (t adminTx) RevokeAdminSessions(ctx context.Context, adminID string, now time.Time) ([]string, error) {
	return t.d.revokeOwnerSessions(ctx, t.tx.tx, adminSessions, adminID, now)
}

// SetAdminStatus implements admin.Tx.
func (t adminTx) SetAdminStatus(ctx context.Context, id, status string) error {
	res, err := t.tx.tx.ExecContext(ctx, `UPDATE admins SET status = $1 WHERE id = $2`, status, id)
	if err != nil {
		return t.d.errorf("set admin status", err)
	}
	return affected(res, admin.ErrAdminNotFound)
}
