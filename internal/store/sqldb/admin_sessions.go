package sqldb

import (
	"context"
	"database/sql"
	"time"

	"hostgate/internal/admin"
)

// Admin sessions and their refresh tokens: the users' kind (sessions.go)
// over admin_sessions and admin_refresh_tokens.

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
		row := sessionRow{ID: sess.ID, Owner: sess.AdminID, CreatedAt: sess.CreatedAt, ExpiresAt: sess.ExpiresAt, RevokedAt: sess.RevokedAt}
		return d.openSession(ctx, tx, adminSessions, row, refreshHash)
	})
}

// SessionState implements admin.Store: the read of every admin
// access-token check on a cache miss, the session and its admin's status
// and role.
func (s Admins) SessionState(ctx context.Context, sessionID string) (admin.SessionState, error) {
	var st admin.SessionState
	err := s.d.sessionState(ctx, adminSessions, sessionID,
		&st.AdminID, timeDest{&st.ExpiresAt}, nullTimeDest{&st.RevokedAt}, &st.AdminStatus, (*string)(&st.Role))
	if err != nil {
		return admin.SessionState{}, err
	}
	return st, nil
}

// RotateRefresh implements admin.Store (rotateRefresh).
func (s Admins) RotateRefresh(ctx context.Context, oldHash, newHash []byte, now time.Time) (admin.Session, error) {
	sess, err := s.d.rotateRefresh(ctx, adminSessions, oldHash, newHash, now)
	return sess.admin(), err
}

// RevokeSession implements admin.Store.
func (s Admins) RevokeSession(ctx context.Context, refreshHash []byte, now time.Time) (admin.Session, error) {
	sess, err := s.d.revokeSession(ctx, adminSessions, refreshHash, now)
	return sess.admin(), err
}

// EndSession implements admin.Store.
func (s Admins) EndSession(ctx context.Context, sessionID string, now time.Time) error {
	return s.d.endSession(ctx, adminSessions, sessionID, now)
}
