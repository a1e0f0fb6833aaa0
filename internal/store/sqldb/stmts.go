package sqldb

import (
	"context"
	"database/sql"
)

// hotQueries are the statements of the charged client API call (key
// check, host lookup, charge) and of the user-token check, prepared once when the store opens if the
// dialect asks (PrepareHot). A charged call on SQLite spent a quarter of
// its CPU in the SQL parser before (docs/performance.md).
//
// They are prepared up front, never on first use: preparing takes a
// connection from the pool, and a transaction that waited for one while
// holding another could deadlock a saturated pool (SQLite's writer pool
// has one connection).
func hotQueries() []string {
	return []string{keyForAuth, ownedHost, priceRules, selectBalance, setBalance, insertBillingEvent, takeForCharge, modeAndPrice,
		userSessions.state}
}

// stmts maps a pool and a query to its prepared statement. It is filled
// by prepareHot before the store is shared and only read after.
type stmts map[stmtKey]*sql.Stmt

type stmtKey struct {
	db    *sql.DB
	query string
}

// prepareHot prepares the hot queries on both pools.
func (d *DB) prepareHot(ctx context.Context) error {
	d.stmts = stmts{}
	for _, db := range []*sql.DB{d.write, d.read} {
		for _, q := range hotQueries() {
			if _, ok := d.stmts[stmtKey{db, q}]; ok {
				continue // read and write are the same pool
			}
			s, err := db.PrepareContext(ctx, q)
			if err != nil {
				d.closeStmts()
				return d.errorf("prepare", err)
			}
			d.stmts[stmtKey{db, q}] = s
		}
	}
	return nil
}

// readRow runs a single-row query on the read pool, prepared when it is
// a hot one.
func (d *DB) readRow(ctx context.Context, query string, args ...any) *sql.Row {
	if s := d.stmts[stmtKey{d.read, query}]; s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return d.read.QueryRowContext(ctx, query, args...)
}

// txRow runs a single-row query inside tx. database/sql prepares a hot
// statement on the transaction's own connection the first time, and
// reuses it after.
func (d *DB) txRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if s := d.stmts[stmtKey{d.write, query}]; s != nil {
		return tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// txExec runs a statement inside tx, like txRow.
func (d *DB) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if s := d.stmts[stmtKey{d.write, query}]; s != nil {
		return tx.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// closeStmts releases the prepared statements before the pools close.
func (d *DB) closeStmts() {
	for _, s := range d.stmts {
		_ = s.Close()
	}
	d.stmts = nil
}
