package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/sessions"
)

// Sessions with single-use rotating refresh tokens (package sessions), one
// implementation for the users' (sessions, refresh_tokens) and the admins'
// (admin_sessions, admin_refresh_tokens): a sessionTables names the tables
// of one kind.

// sessionTables is one kind of session: where its sessions, their refresh
// tokens and their owners are, and the queries over them.
type sessionTables struct {
	what   string // the kind in error messages: "" or "admin "
	noun   string // its owner in error messages: "user" or "admin"
	active string // the owners' status in which their sessions are live
	// The statements, made once by newSessionTables.
	insertSession, insertRefresh, consumeRefresh, liveSession, revokeByToken, revokeOwner, endSession, state string
}

// sessionSchema names the tables of one kind of session.
type sessionSchema struct {
	what     string // the kind in error messages: "" or "admin "
	noun     string // its owner in error messages: "user" or "admin"
	sessions string // the sessions: id, owner, created_at, expires_at, revoked_at
	refresh  string // their refresh tokens: token_hash, session_id, created_at, used_at
	owner    string // the sessions' column of their owner's id
	owners   string // the owners: id, status
	active   string // the owners' status in which their sessions are live
	// stateCols are more columns of the owner (o) that a state read
	// returns, after the session's owner, expiry, revocation and the
	// owner's status.
	stateCols string
}

// userSessions and adminSessions are the two kinds.
var (
	userSessions = newSessionTables(sessionSchema{noun: "user", sessions: "sessions", refresh: "refresh_tokens",
		owner: "user_id", owners: "users", active: string(accounts.StatusActive)})
	adminSessions = newSessionTables(sessionSchema{what: "admin ", noun: "admin", sessions: "admin_sessions", refresh: "admin_refresh_tokens",
		owner: "admin_id", owners: "admins", active: admin.StatusActive, stateCols: ", o.role"})
)

func newSessionTables(s sessionSchema) *sessionTables {
	r := strings.NewReplacer("{sessions}", s.sessions, "{refresh}", s.refresh, "{owner}", s.owner,
		"{owners}", s.owners, "{stateCols}", s.stateCols)
	return &sessionTables{
		what:          s.what,
		noun:          s.noun,
		active:        s.active,
		insertSession: r.Replace(`INSERT INTO {sessions} (id, {owner}, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)`),
		insertRefresh: r.Replace(`INSERT INTO {refresh} (token_hash, session_id, created_at) VALUES ($1, $2, $3)`),
		consumeRefresh: r.Replace(
			`UPDATE {refresh} SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL RETURNING session_id`),
		liveSession: r.Replace(`SELECT s.id, s.{owner}, s.created_at, s.expires_at, s.revoked_at, o.status
		 FROM {sessions} s JOIN {owners} o ON o.id = s.{owner} WHERE s.id = $1`),
		revokeByToken: r.Replace(`UPDATE {sessions} SET revoked_at = COALESCE(revoked_at, $1)
		 WHERE id = (SELECT session_id FROM {refresh} WHERE token_hash = $2)
		 RETURNING id, {owner}, created_at, expires_at, revoked_at`),
		revokeOwner: r.Replace(
			`UPDATE {sessions} SET revoked_at = $1 WHERE {owner} = $2 AND revoked_at IS NULL RETURNING id`),
		endSession: r.Replace(`UPDATE {sessions} SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`),
		// state is the hot read of every access-token check on a cache
		// miss: the session and its owner's status, one primary-key join.
		state: r.Replace(`SELECT s.{owner}, s.expires_at, s.revoked_at, o.status{stateCols}
FROM {sessions} s JOIN {owners} o ON o.id = s.{owner} WHERE s.id = $1`),
	}
}

// sessionRow is a session of either kind; Owner is its user's or admin's id.
type sessionRow struct {
	ID, Owner            string
	CreatedAt, ExpiresAt time.Time
	RevokedAt            *time.Time
}

func (r sessionRow) user() accounts.Session {
	return accounts.Session{ID: r.ID, UserID: r.Owner, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
}

func (r sessionRow) admin() admin.Session {
	return admin.Session{ID: r.ID, AdminID: r.Owner, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
}

// dest is where a row of id, owner, created_at, expires_at, revoked_at
// scans into r.
func (r *sessionRow) dest() []any {
	return []any{&r.ID, &r.Owner, timeDest{&r.CreatedAt}, timeDest{&r.ExpiresAt}, nullTimeDest{&r.RevokedAt}}
}

// openSession inserts the session s and its first refresh token, which
// hashes to refreshHash, inside tx.
func (d *DB) openSession(ctx context.Context, tx *sql.Tx, t *sessionTables, s sessionRow, refreshHash []byte) error {
	_, err := tx.ExecContext(ctx, t.insertSession,
		s.ID, s.Owner, d.timeArg(s.CreatedAt), d.timeArg(s.ExpiresAt), d.nullTimeArg(s.RevokedAt))
	if err != nil {
		return d.errorf("create "+t.what+"session", err)
	}
	return d.insertRefresh(ctx, tx, t, refreshHash, s.ID, s.CreatedAt)
}

func (d *DB) insertRefresh(ctx context.Context, tx *sql.Tx, t *sessionTables, hash []byte, sessionID string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, t.insertRefresh, hash, sessionID, d.timeArg(now)); err != nil {
		return d.errorf("insert "+t.what+"refresh token", err)
	}
	return nil
}

// sessionState reads a session's state into dest, in t.state's columns;
// ErrSessionEnded when there is no such session.
func (d *DB) sessionState(ctx context.Context, t *sessionTables, sessionID string, dest ...any) error {
	err := d.readRow(ctx, t.state, sessionID).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return sessions.ErrSessionEnded
	}
	if err != nil {
		return d.errorf("read "+t.what+"session state", err)
	}
	return nil
}

// rotateRefresh consumes oldHash and issues newHash for the same session.
// The consuming UPDATE is conditional on the token being unused, so of
// concurrent callers only one sees a row; every other one finds the token
// used, which is a reuse: it revokes the session, commits that, and
// returns the revoked session with ErrRefreshReused.
func (d *DB) rotateRefresh(ctx context.Context, t *sessionTables, oldHash, newHash []byte, now time.Time) (sessionRow, error) {
	var s sessionRow
	reused := false
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var sessionID string
		err := tx.QueryRowContext(ctx, t.consumeRefresh, d.timeArg(now), oldHash).Scan(&sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			reused = true
			s, err = d.revokeByToken(ctx, tx, t, oldHash, now)
			return err
		}
		if err != nil {
			return d.errorf("consume "+t.what+"refresh token", err)
		}
		if s, err = d.liveSession(ctx, tx, t, sessionID, now); err != nil {
			return err
		}
		return d.insertRefresh(ctx, tx, t, newHash, sessionID, now)
	})
	if err == nil && reused {
		err = sessions.ErrRefreshReused
	}
	return s, err
}

// liveSession returns the session if it is neither revoked nor expired at
// now and its owner is active, else the session with ErrSessionEnded (the
// caller may tell a suspended user why).
func (d *DB) liveSession(ctx context.Context, tx *sql.Tx, t *sessionTables, id string, now time.Time) (sessionRow, error) {
	var s sessionRow
	var status string
	err := tx.QueryRowContext(ctx, t.liveSession, id).Scan(append(s.dest(), &status)...)
	if errors.Is(err, sql.ErrNoRows) {
		return sessionRow{}, sessions.ErrSessionEnded
	}
	if err != nil {
		return sessionRow{}, d.errorf("read "+t.what+"session", err)
	}
	if s.RevokedAt != nil || !s.ExpiresAt.After(now) || status != t.active {
		return s, sessions.ErrSessionEnded
	}
	return s, nil
}

// revokeSession ends the session that issued refreshHash, keeping an
// earlier revocation time, and returns it; ErrRefreshUnknown.
func (d *DB) revokeSession(ctx context.Context, t *sessionTables, refreshHash []byte, now time.Time) (sessionRow, error) {
	var s sessionRow
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		s, err = d.revokeByToken(ctx, tx, t, refreshHash, now)
		return err
	})
	return s, err
}

// revokeByToken revokes the session that issued hash, keeping an earlier
// revocation time; ErrRefreshUnknown when no session did.
func (d *DB) revokeByToken(ctx context.Context, q queryer, t *sessionTables, hash []byte, now time.Time) (sessionRow, error) {
	var s sessionRow
	err := q.QueryRowContext(ctx, t.revokeByToken, d.timeArg(now), hash).Scan(s.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return sessionRow{}, sessions.ErrRefreshUnknown
	}
	if err != nil {
		return sessionRow{}, d.errorf("revoke "+t.what+"session", err)
	}
	return s, nil
}

// revokeOwnerSessions revokes the owner's open sessions inside tx and
// returns their ids.
func (d *DB) revokeOwnerSessions(ctx context.Context, tx *sql.Tx, t *sessionTables, owner string, now time.Time) ([]string, error) {
	rows, err := tx.QueryContext(ctx, t.revokeOwner, d.timeArg(now), owner)
	if err != nil {
		return nil, d.errorf("revoke "+t.noun+" sessions", err)
	}
	return collect(rows, func(r rowScanner) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
}

// endSession ends the session with this id, keeping an earlier revocation
// time; ErrSessionEnded when there is no such session.
func (d *DB) endSession(ctx context.Context, t *sessionTables, sessionID string, now time.Time) error {
	res, err := d.write.ExecContext(ctx, t.endSession, d.timeArg(now), sessionID)
	if err != nil {
		return d.errorf("end "+t.what+"session", err)
	}
	return affected(res, sessions.ErrSessionEnded)
}
