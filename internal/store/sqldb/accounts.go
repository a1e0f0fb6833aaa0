package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/paging"
)

// Accounts is the users' and sessions' storage, on the shared core.
type Accounts struct{ d *DB }

var (
	_ accounts.Store = Accounts{}
	_ accounts.Tx    = accountsTx{}
)

// Accounts returns the users' and sessions' storage.
func (d *DB) Accounts() accounts.Store { return Accounts{d} }

// Tx implements accounts.Store.
func (s Accounts) Tx(ctx context.Context, fn func(accounts.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(accountsTx{t}) })
}

// accountsTx is the accounts' unit of work.
type accountsTx struct{ *tx }

const userCols = "id, email, display_name, status, created_at"

// scanUser scans userCols, then any extra columns into extra.
func scanUser(r rowScanner, extra ...any) (accounts.User, error) {
	var u accounts.User
	dest := append([]any{&u.ID, &u.Email, &u.DisplayName, (*string)(&u.Status), timeDest{&u.CreatedAt}}, extra...)
	return u, r.Scan(dest...)
}

// CreateUser inserts the user, its first session and that session's first
// refresh token in one transaction; ErrEmailTaken when the email exists.
func (a Accounts) CreateUser(ctx context.Context, u accounts.User, passwordHash string, s accounts.Session, refreshHash []byte) error {
	d := a.d
	return d.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at)
			 VALUES ($1, $2, $3, $4, $5, $6)`,
			u.ID, u.Email, u.DisplayName, string(u.Status), passwordHash, d.timeArg(u.CreatedAt))
		if d.dialect.IsUniqueViolation(err) {
			return accounts.ErrEmailTaken
		}
		if err != nil {
			return d.errorf("create user", err)
		}
		return d.insertSession(ctx, tx, s, refreshHash)
	})
}

// CreateSession opens a session with its first refresh token.
func (a Accounts) CreateSession(ctx context.Context, s accounts.Session, refreshHash []byte) error {
	d := a.d
	return d.withTx(ctx, func(tx *sql.Tx) error {
		return d.insertSession(ctx, tx, s, refreshHash)
	})
}

// insertSession opens the user's session s with its first refresh token.
func (d *DB) insertSession(ctx context.Context, tx *sql.Tx, s accounts.Session, refreshHash []byte) error {
	row := sessionRow{ID: s.ID, Owner: s.UserID, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, RevokedAt: s.RevokedAt}
	return d.openSession(ctx, tx, userSessions, row, refreshHash)
}

// UserCredentials returns the user with this email and its password hash.
func (a Accounts) UserCredentials(ctx context.Context, email string) (accounts.User, string, error) {
	d := a.d
	var hash string
	row := d.read.QueryRowContext(ctx, `SELECT `+userCols+`, password_hash FROM users WHERE email = $1`, email)
	u, err := d.userResult(scanUser(row, &hash))
	if err != nil {
		return accounts.User{}, "", err
	}
	return u, hash, nil
}

// UserByID returns a user; ErrUserNotFound.
func (a Accounts) UserByID(ctx context.Context, id string) (accounts.User, error) {
	d := a.d
	row := d.read.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE id = $1`, id)
	return d.userResult(scanUser(row))
}

// UpdateDisplayName sets the name and returns the updated user.
func (a Accounts) UpdateDisplayName(ctx context.Context, id, name string) (accounts.User, error) {
	d := a.d
	row := d.write.QueryRowContext(ctx,
		`UPDATE users SET display_name = $1 WHERE id = $2 RETURNING `+userCols, name, id)
	return d.userResult(scanUser(row))
}

// userResult maps a missing row to ErrUserNotFound.
func (d *DB) userResult(u accounts.User, err error) (accounts.User, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return accounts.User{}, accounts.ErrUserNotFound
	}
	if err != nil {
		return accounts.User{}, d.errorf("read user", err)
	}
	return u, nil
}

// SetPasswordHash replaces the stored hash; ErrUserNotFound.
func (a Accounts) SetPasswordHash(ctx context.Context, id, hash string) error {
	d := a.d
	res, err := d.write.ExecContext(ctx, `UPDATE users SET password_hash = $1 WHERE id = $2`, hash, id)
	if err != nil {
		return d.errorf("set password hash", err)
	}
	return affected(res, accounts.ErrUserNotFound)
}

// ListUsers returns a page of matching users, in f's order, and the count
// of all matches, both from one snapshot.
func (a Accounts) ListUsers(ctx context.Context, f accounts.UserFilter, p paging.Page) ([]accounts.User, int, error) {
	d := a.d
	field, desc, ok := f.Sort.Field()
	if !ok {
		return nil, 0, fmt.Errorf("%s: list users: unknown sort %q", d.dialect.Name, f.Sort)
	}
	from, w := d.userWhere(f)
	return listPage(ctx, d, "users", userCols, from, w, keyOrder{Col: field, ColKind: userSortKinds[field], Tie: "id", Desc: desc}, p,
		func(r rowScanner) (accounts.User, error) { return scanUser(r) })
}

// userSortKinds is the kind of each field of accounts.UserSortFields.
var userSortKinds = map[string]keyKind{"email": kindText, "created_at": kindTime, "display_name": kindText}

// userWhere is the table of users and the filter over it. With a query
// the table is the users that match it: a literal part (or start) of the
// email or display name, through the search indexes (search.go).
func (d *DB) userWhere(f accounts.UserFilter) (string, where) {
	var w where
	from := "users"
	if f.Query != "" {
		from = "(" + d.userMatches(&w, f.Query, f.QueryPrefix) + ") matched_users"
	}
	if f.Status != "" {
		w.add(`status = $%d`, string(f.Status))
	}
	return from, w
}

// SetUserStatus implements accounts.Tx.
func (t accountsTx) SetUserStatus(ctx context.Context, id string, status accounts.Status) error {
	res, err := t.tx.tx.ExecContext(ctx, `UPDATE users SET status = $1 WHERE id = $2`, string(status), id)
	if err != nil {
		return t.d.errorf("set user status", err)
	}
	return affected(res, accounts.ErrUserNotFound)
}

// RevokeUserSessions implements accounts.Tx.
func (t accountsTx) RevokeUserSessions(ctx context.Context, userID string, now time.Time) ([]string, error) {
	return t.d.revokeOwnerSessions(ctx, t.tx.tx, userSessions, userID, now)
}

// ChangePassword sets the hash, revokes the user's open sessions and opens
// s, in one transaction; it returns the ids of the sessions it revoked.
func (a Accounts) ChangePassword(ctx context.Context, userID, hash string, now time.Time, s accounts.Session, refreshHash []byte) ([]string, error) {
	d := a.d
	var ids []string
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $1 WHERE id = $2`, hash, userID)
		if err != nil {
			return d.errorf("change password", err)
		}
		if err := affected(res, accounts.ErrUserNotFound); err != nil {
			return err
		}
		if ids, err = d.revokeOwnerSessions(ctx, tx, userSessions, userID, now); err != nil {
			return err
		}
		return d.insertSession(ctx, tx, s, refreshHash)
	})
	return ids, err
}

// SessionState returns the session's times and its user's status;
// ErrSessionEnded when there is no such session.
func (a Accounts) SessionState(ctx context.Context, sessionID string) (accounts.SessionState, error) {
	var st accounts.SessionState
	err := a.d.sessionState(ctx, userSessions, sessionID,
		&st.UserID, timeDest{&st.ExpiresAt}, nullTimeDest{&st.RevokedAt}, (*string)(&st.UserStatus))
	if err != nil {
		return accounts.SessionState{}, err
	}
	return st, nil
}

// RotateRefresh consumes oldHash and issues newHash for the same session
// (rotateRefresh).
func (a Accounts) RotateRefresh(ctx context.Context, oldHash, newHash []byte, now time.Time) (accounts.Session, error) {
	s, err := a.d.rotateRefresh(ctx, userSessions, oldHash, newHash, now)
	return s.user(), err
}

// RevokeSession ends the session that issued refreshHash, keeping an
// earlier revocation time, and returns it; ErrRefreshUnknown.
func (a Accounts) RevokeSession(ctx context.Context, refreshHash []byte, now time.Time) (accounts.Session, error) {
	s, err := a.d.revokeSession(ctx, userSessions, refreshHash, now)
	return s.user(), err
}

// escapeLike makes s match itself literally in a LIKE pattern with
// ESCAPE '!'. '!' rather than backslash: its meaning in string literals
// does not depend on PostgreSQL's standard_conforming_strings.
func escapeLike(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// CountUsers implements accounts.Store, grouped over users_status_newest.
func (a Accounts) CountUsers(ctx context.Context) (map[accounts.Status]int, error) {
	d := a.d
	rows, err := d.read.QueryContext(ctx, `SELECT status, count(*) FROM users GROUP BY status`)
	if err != nil {
		return nil, d.errorf("count users", err)
	}
	out := map[accounts.Status]int{accounts.StatusActive: 0, accounts.StatusSuspended: 0}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, d.errorf("count users", err)
		}
		out[accounts.Status(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, d.errorf("count users", err)
	}
	return out, nil
}
