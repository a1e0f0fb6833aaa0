package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/admin"
)

// Admin sessions and their refresh tokens: the users' (accounts.go) over
// admin_sessions and admin_refresh_tokens.

const adminSessionCols = "id, admin_id, created_at, expires_at, revoked_at"

func scanAdminSession(r rowScanner) (admin.Session, error) {
	var s admin.Session
	err := r.Scan(&s.ID, &s.AdminID, timeDest{&s.CreatedAt}, timeDest{&s.ExpiresAt}, nullTimeDest{&s.RevokedAt})
	return s, err
}

// OpenSession records the sign-in on the admin, then opens the session
// with its first refresh token, in one transaction. The admin's row is
// written first, so a concurrent change of the admin (which locks the row)
// and this sign-in take their locks in the same order.
func (s Admins) OpenSession(ctx context.Context, sess admin.Session, refreshHash []byte) error {
	d := s.d
	return d.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE admins SET last_login_at = $1 WHERE id = $2`, d.timeArg(sess.CreatedAt), sess.AdminID)
		if err != nil {
			return d.errorf("record admin sign-in", err)
		}
		if err := affected(res, admin.ErrAdminNotFound); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO admin_sessions (id, admin_id, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)`,
			sess.ID, sess.AdminID, d.timeArg(sess.CreatedAt), d.timeArg(sess.ExpiresAt), d.nullTimeArg(sess.RevokedAt))
		if err != nil {
			return d.errorf("create admin session", err)
		}
		return d.insertAdminRefresh(ctx, tx, refreshHash, sess.ID, sess.CreatedAt)
	})
}

func (d *DB) insertAdminRefresh(ctx context.Context, tx *sql.Tx, hash []byte, sessionID string, now time.Time) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO admin_refresh_tokens (token_hash, session_id, created_at) VALUES ($1, $2, $3)`,
		hash, sessionID, d.timeArg(now))
	if err != nil {
		return d.errorf("insert admin refresh token", err)
	}
	return nil
}

// adminSessionState is the read of every admin access-token check on a
// cache miss: the session and its admin's role and status.
const adminSessionState = `SELECT s.admin_id, a.role, a.status, s.expires_at, s.revoked_at
FROM admin_sessions s JOIN admins a ON a.id = s.admin_id WHERE s.id = $1`

// SessionState implements admin.Store.
func (s Admins) SessionState(ctx context.Context, sessionID string) (admin.SessionState, error) {
	d := s.d
	var st admin.SessionState
	err := d.read.QueryRowContext(ctx, adminSessionState, sessionID).Scan(
		&st.AdminID, (*string)(&st.Role), &st.AdminStatus, timeDest{&st.ExpiresAt}, nullTimeDest{&st.RevokedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return admin.SessionState{}, admin.ErrSessionEnded
	}
	if err != nil {
		return admin.SessionState{}, d.errorf("read admin session state", err)
	}
	return st, nil
}

// RotateRefresh implements admin.Store: the consuming UPDATE is
// conditional on the token being unused, so of concurrent callers only one
// sees a row; every other one finds the token used, which is a reuse: it
// revokes the session, commits that, and returns it with ErrRefreshReused.
func (s Admins) RotateRefresh(ctx context.Context, oldHash, newHash []byte, now time.Time) (admin.Session, error) {
	d := s.d
	var sess admin.Session
	reused := false
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var sessionID string
		err := tx.QueryRowContext(ctx,
			`UPDATE admin_refresh_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL RETURNING session_id`,
			d.timeArg(now), oldHash).Scan(&sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			reused = true
			sess, err = d.revokeAdminByToken(ctx, tx, oldHash, now)
			return err
		}
		if err != nil {
			return d.errorf("consume admin refresh token", err)
		}
		if sess, err = d.liveAdminSession(ctx, tx, sessionID, now); err != nil {
			return err
		}
		return d.insertAdminRefresh(ctx, tx, newHash, sessionID, now)
	})
	if err == nil && reused {
		err = admin.ErrRefreshReused
	}
	return sess, err
}

// liveAdminSession returns the session if it is neither revoked nor
// expired at now and its admin is active, else the session with
// ErrSessionEnded.
func (d *DB) liveAdminSession(ctx context.Context, tx *sql.Tx, id string, now time.Time) (admin.Session, error) {
	var s admin.Session
	var status string
	err := tx.QueryRowContext(ctx,
		`SELECT s.id, s.admin_id, s.created_at, s.expires_at, s.revoked_at, a.status
		 FROM admin_sessions s JOIN admins a ON a.id = s.admin_id WHERE s.id = $1`, id).Scan(
		&s.ID, &s.AdminID, timeDest{&s.CreatedAt}, timeDest{&s.ExpiresAt}, nullTimeDest{&s.RevokedAt}, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return admin.Session{}, admin.ErrSessionEnded
	}
	if err != nil {
		return admin.Session{}, d.errorf("read admin session", err)
	}
	if s.RevokedAt != nil || !s.ExpiresAt.After(now) || status != admin.StatusActive {
		return s, admin.ErrSessionEnded
	}
	return s, nil
}

// RevokeSession implements admin.Store.
func (s Admins) RevokeSession(ctx context.Context, refreshHash []byte, now time.Time) (admin.Session, error) {
	d := s.d
	var sess admin.Session
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		sess, err = d.revokeAdminByToken(ctx, tx, refreshHash, now)
		return err
	})
	return sess, err
}

// EndSession implements admin.Store.
func (s Admins) EndSession(ctx context.Context, sessionID string, now time.Time) error {
	d := s.d
	res, err := d.write.ExecContext(ctx,
		`UPDATE admin_sessions SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, d.timeArg(now), sessionID)
	if err != nil {
		return d.errorf("end admin session", err)
	}
	return affected(res, admin.ErrSessionEnded)
}

// revokeAdminByToken revokes the session that issued hash, keeping an
// earlier revocation time; ErrRefreshUnknown when no session did.
func (d *DB) revokeAdminByToken(ctx context.Context, q queryer, hash []byte, now time.Time) (admin.Session, error) {
	row := q.QueryRowContext(ctx,
		`UPDATE admin_sessions SET revoked_at = COALESCE(revoked_at, $1)
		 WHERE id = (SELECT session_id FROM admin_refresh_tokens WHERE token_hash = $2)
		 RETURNING `+adminSessionCols,
		d.timeArg(now), hash)
	s, err := scanAdminSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return admin.Session{}, admin.ErrRefreshUnknown
	}
	if err != nil {
		return admin.Session{}, d.errorf("revoke admin session", err)
	}
	return s, nil
}
