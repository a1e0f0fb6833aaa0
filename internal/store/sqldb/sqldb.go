// Package sqldb implements every domain storage interface once, over
// database/sql, for both engines the hub supports: a type per domain
// (Billing, Hosts, …) on a shared core, whose units of work (tx.go) the
// domains decide in. A Dialect captures the
// little that differs between PostgreSQL and SQLite; the SQL itself is
// portable ($n placeholders, RETURNING, ON CONFLICT, LIKE … ESCAPE).
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hostgate/internal/paging"
)

// Dialect is what the shared implementation needs to know about an engine.
type Dialect struct {
	// Name is what Store.Name reports: "postgres" or "sqlite".
	Name string
	// IsUniqueViolation reports whether err is a unique-constraint
	// violation, from the engine's error code, never from its text.
	IsUniqueViolation func(err error) bool
	// TextTimes stores times as TimeFormat text, for an engine without a
	// time type; otherwise times are passed to the driver as time.Time.
	TextTimes bool
	// RowLocks says the engine has SELECT … FOR UPDATE [SKIP LOCKED]. An
	// engine without it (SQLite) must serialise writers instead, so that a
	// read-then-write in one transaction sees no concurrent writer.
	RowLocks bool
	// PrepareHot prepares the hot statements when the store opens, for a
	// driver that does not cache prepared statements itself (SQLite; pgx
	// does).
	PrepareHot bool
	// WritingCTEs says the engine runs data-modifying statements inside
	// WITH (PostgreSQL): a lone charge is then one statement, one round
	// trip, instead of a transaction of six.
	WritingCTEs bool
	// ArrayParams says the driver passes a slice as an array parameter
	// (pgx): a batch of rows is then one statement of one array per column
	// (batch.go), whatever its size.
	ArrayParams bool
	// FTS5 says the engine searches text through FTS5 trigram tables
	// (SQLite, migration 0015); otherwise through pg_trgm indexes of
	// lower(column) and C-collated B-trees for prefixes (search.go).
	FTS5 bool
}

// TimeFormat is how times are stored when Dialect.TextTimes is set: UTC,
// fixed width, microseconds. Fixed width makes text order time order, so
// SQL comparisons and ORDER BY on the text are chronological.
const TimeFormat = "2006-01-02T15:04:05.000000Z"

// DB is the shared core over one database: its pools, dialect, prepared
// statements and unit of work. Each domain's storage is a small type over
// it (Accounts, APIKeys, …), returned by the method of that name; DB
// itself implements no domain's interface. It is safe for concurrent use.
type DB struct {
	dialect Dialect
	// write runs transactions and every statement that writes; read runs
	// plain reads. They are the same pool unless the engine wants its
	// writers serialised apart from its readers (SQLite).
	write *sql.DB
	read  *sql.DB
	stmts stmts
}

// New returns a store that writes through write and reads through read,
// which may be the same pool, with the schema in place: it prepares the
// hot statements. The store owns both pools: Close closes them.
func New(ctx context.Context, d Dialect, write, read *sql.DB) (*DB, error) {
	db := &DB{dialect: d, write: write, read: read}
	if d.PrepareHot {
		if err := db.prepareHot(ctx); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// Name names the engine: "postgres" or "sqlite".
func (d *DB) Name() string { return d.dialect.Name }

// Ping checks that both pools reach the database.
func (d *DB) Ping(ctx context.Context) error {
	if err := d.write.PingContext(ctx); err != nil {
		return fmt.Errorf("%s: ping: %w", d.dialect.Name, err)
	}
	if err := d.read.PingContext(ctx); err != nil {
		return fmt.Errorf("%s: ping readers: %w", d.dialect.Name, err)
	}
	return nil
}

// PoolStats reports the connection pools' statistics: "main", or "write"
// and "read" when the engine keeps them apart.
func (d *DB) PoolStats() map[string]sql.DBStats {
	if d.read == d.write {
		return map[string]sql.DBStats{"main": d.write.Stats()}
	}
	return map[string]sql.DBStats{"write": d.write.Stats(), "read": d.read.Stats()}
}

// Close closes the pools.
func (d *DB) Close() error {
	d.closeStmts()
	if d.read == d.write {
		return d.write.Close()
	}
	return errors.Join(d.read.Close(), d.write.Close())
}

// queryer is what both *sql.DB and *sql.Tx offer, so one helper serves a
// statement on its own and the same statement inside a transaction.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// withTx runs fn in a write transaction, committing when fn returns nil.
func (d *DB) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", d.dialect.Name, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // fn's error is the one worth reporting
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", d.dialect.Name, err)
	}
	return nil
}

// readTx runs fn in a read-only snapshot, so statements that belong
// together (a page and its total) see the same data.
func (d *DB) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	tx, err := d.read.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("%s: begin read: %w", d.dialect.Name, err)
	}
	defer func() { _ = tx.Rollback() }() // read-only: nothing to keep
	return fn(tx)
}

// errorf wraps an infrastructure error with the engine and operation.
func (d *DB) errorf(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", d.dialect.Name, op, err)
}

// affected reports the rows a statement changed, or notFound when none.
func affected(res sql.Result, notFound error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("rows affected: %w", err)
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// collect scans every row of rows with scan.
func collect[T any](rows *sql.Rows, scan func(rowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// where is a conjunction of conditions with their $n arguments. Each
// condition is a format with one %d verb (or %[1]d used several times)
// for its argument's placeholder number.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, arg any) {
	w.args = append(w.args, arg)
	w.conds = append(w.conds, fmt.Sprintf(cond, len(w.args)))
}

// addSQL adds a condition that takes no argument.
func (w *where) addSQL(cond string) {
	w.conds = append(w.conds, cond)
}

// sql is the WHERE clause, or "" when there are no conditions.
func (w where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// clampPage keeps a page inside the paging limits. The service validates
// pages; this only stops a bad one reaching SQL, where a negative LIMIT
// means "all" to SQLite and an error to PostgreSQL.
func clampPage(p paging.Page) (limit, offset int) {
	limit, offset = p.Limit, max(p.Offset, 0)
	if limit <= 0 {
		limit = paging.DefaultLimit
	}
	return min(limit, paging.MaxLimit), offset
}

// normTime is the one form every stored time takes: UTC, microseconds,
// the precision both engines keep. PostgreSQL would round rather than
// truncate, so truncating here keeps the engines equal.
func normTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// timeArg is t as the dialect stores it.
func (d *DB) timeArg(t time.Time) any {
	t = normTime(t)
	if d.dialect.TextTimes {
		return t.Format(TimeFormat)
	}
	return t
}

// nullTimeArg is timeArg, or NULL for nil.
func (d *DB) nullTimeArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return d.timeArg(*t)
}

// timeDest scans a stored time from either engine into *t: time.Time from
// PostgreSQL, TimeFormat text from SQLite.
type timeDest struct{ t *time.Time }

// Scan implements sql.Scanner.
func (s timeDest) Scan(src any) error {
	t, err := parseTime(src)
	if err != nil {
		return err
	}
	*s.t = t
	return nil
}

// nullTimeDest is timeDest for a nullable column: NULL scans as nil.
type nullTimeDest struct{ t **time.Time }

// Scan implements sql.Scanner.
func (s nullTimeDest) Scan(src any) error {
	if src == nil {
		*s.t = nil
		return nil
	}
	t, err := parseTime(src)
	if err != nil {
		return err
	}
	*s.t = &t
	return nil
}

// parseTime converts a driver value of a time column to a UTC time.
func parseTime(src any) (time.Time, error) {
	switch v := src.(type) {
	case time.Time:
		return v.UTC(), nil
	case string:
		return parseTimeText(v)
	case []byte:
		return parseTimeText(string(v))
	default:
		return time.Time{}, fmt.Errorf("time column holds %T", src)
	}
}

// parseTimeText parses TimeFormat text.
func parseTimeText(s string) (time.Time, error) {
	t, err := time.Parse(TimeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time column: %w", err)
	}
	return t, nil
}

// listPage counts the rows of from matching w and reads one page of them
// in order o, from one snapshot; what names the rows in errors.
func listPage[T any](ctx context.Context, d *DB, what, cols, from string, w where, o keyOrder, p paging.Page,
	scan func(rowScanner) (T, error)) ([]T, int, error) {
	return listPageCounted(ctx, d, what, cols, from, w, o, p, scan, `SELECT count(*) FROM `+from+w.sql(), w.args...)
}

// listPageCounted is listPage with the total read by countQuery instead
// of a count of the matches, for a total kept elsewhere. A page after a
// key (p.After) starts there rather than at an offset, and the key of
// the last item is reported (p.SetNext) when another page follows: one
// more row than the page is read to know.
func listPageCounted[T any](ctx context.Context, d *DB, what, cols, from string, w where, o keyOrder, p paging.Page,
	scan func(rowScanner) (T, error), countQuery string, countArgs ...any) ([]T, int, error) {
	query, args, limit, err := d.pageQuery(cols, from, w, o, p)
	if err != nil {
		return nil, 0, err
	}
	dests, key := keyDests(o)
	if after := p.After(); after != nil && o.twoRanges(after) {
		dests = append(dests, new(any)) // the range a row came from
	}
	var items []T
	var total int
	var next paging.Key
	err = d.readTx(ctx, func(tx *sql.Tx) error {
		items, next = nil, nil
		if err := tx.QueryRowContext(ctx, countQuery, countArgs...).Scan(&total); err != nil {
			return d.errorf("count "+what, err)
		}
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return d.errorf("list "+what, err)
		}
		defer rows.Close()
		var last paging.Key
		for rows.Next() {
			if len(items) == limit { // a row after the page: another page follows
				next = last
				break
			}
			v, err := scan(keyScanner{rows, dests})
			if err != nil {
				return d.errorf("list "+what, err)
			}
			items = append(items, v)
			last = key()
		}
		if err := rows.Err(); err != nil {
			return d.errorf("list "+what, err)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	p.SetNext(next)
	return items, total, nil
}

// pageQuery is the query of one page of from matching w in order o, and
// the row after it: after p's key, or at its offset. Each row is cols,
// then o's key columns, then (when o.twoRanges) one more column.
func (d *DB) pageQuery(cols, from string, w where, o keyOrder, p paging.Page) (query string, args []any, limit int, err error) {
	limit, offset := clampPage(p)
	after := p.After()
	if after != nil {
		if err := o.check(after); err != nil {
			return "", nil, 0, err
		}
		if o.twoRanges(after) {
			query, args = d.twoRangeQuery(cols, from, w, o, after, limit+1)
			return query, args, limit, nil
		}
		d.after(&w, o, after)
		offset = 0
	}
	n := len(w.args)
	args = append(append([]any(nil), w.args...), int64(limit+1), int64(offset))
	query = `SELECT ` + cols + `, ` + o.keyCols() + ` FROM ` + from + w.sql() + ` ORDER BY ` + o.sql() +
		fmt.Sprintf(" LIMIT $%d OFFSET $%d", n+1, n+2)
	return query, args, limit, nil
}
