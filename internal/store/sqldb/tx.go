package sqldb

import (
	"context"
	"database/sql"
	"time"

	"hostgate/internal/audit"
)

// tx is the core of every domain's unit of work: one write transaction
// on the writer pool, committed when the domain's function returns nil
// and rolled back otherwise. The domain types (billingTx, …) wrap it
// with their plain operations; it gives them the statements, the
// dialect's row locks and the audit append they all share.
//
// A row read to be changed is locked until the end (lock): FOR UPDATE on
// an engine with row locks; on one without (SQLite) the writer pool has a
// single connection, so a unit of work already excludes every other
// writer from its first statement to its commit.
type tx struct {
	d  *DB
	tx *sql.Tx
}

// unit runs fn in one unit of work (withTx).
func (d *DB) unit(ctx context.Context, fn func(t *tx) error) error {
	return d.withTx(ctx, func(sqlTx *sql.Tx) error { return fn(&tx{d: d, tx: sqlTx}) })
}

// row runs a single-row query, prepared when it is a hot one.
func (t *tx) row(ctx context.Context, query string, args ...any) *sql.Row {
	return t.d.txRow(ctx, t.tx, query, args...)
}

// exec runs a statement, prepared when it is a hot one.
func (t *tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.d.txExec(ctx, t.tx, query, args...)
}

// query runs a query of several rows, prepared when it is a hot one.
func (t *tx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.d.stmts[stmtKey{t.d.write, query}]; s != nil {
		return t.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

// lock is the query, a SELECT, that locks the rows it reads until the
// unit of work ends: withLock for an engine with row locks, plain
// otherwise (the single writer already excludes the others). Callers
// keep both forms as constants, so a hot statement stays prepared.
func (t *tx) lock(plain, withLock string) string {
	if t.d.dialect.RowLocks {
		return withLock
	}
	return plain
}

// AppendAudit writes e in the unit of work, filling a zero ID and a zero
// CreatedAt (with now). It implements audit.Appender.
func (t *tx) AppendAudit(ctx context.Context, e audit.Entry) error {
	return t.d.insertAudit(ctx, t.tx, withAuditDefaults(e, time.Now()))
}

var _ audit.Appender = (*tx)(nil)
