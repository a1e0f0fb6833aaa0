package sqldb

import (
	"database/sql"
	"fmt"
	"slices"
	"time"

	"hostgate/internal/paging"
)

// Keyset paging (paging.Keyset): a list's order is one optional sort
// column and a unique tie-breaker in the same direction, which the indexes
// of the lists hold in that order. A page after a key is then a range of
// the index, however deep it is, where an OFFSET walks every row before it.

// keyKind is the type of a key column, checked on every key a cursor
// brings, so that a forged value is a bad cursor and never an SQL error.
type keyKind int

const (
	kindText keyKind = iota
	kindTime
	kindInt
)

// keyOrder is a list's order: Col (if any) then Tie, both in one direction.
type keyOrder struct {
	Col      string // sort column expression; "" orders by Tie alone
	ColKind  keyKind
	Nullable bool // Col may be NULL: NULLs first ascending, last descending
	Tie      string
	TieKind  keyKind
	Desc     bool
}

// newestFirst is the order of most lists: created_at DESC, id DESC.
var newestFirst = keyOrder{Col: "created_at", ColKind: kindTime, Tie: "id", Desc: true}

// sql is the ORDER BY clause of o, as orderBy writes it.
func (o keyOrder) sql() string {
	if o.Col == "" {
		if o.Desc {
			return o.Tie + " DESC"
		}
		return o.Tie
	}
	return orderBy(o.Col, o.Desc, o.Nullable, o.Tie)
}

// keyCols are the columns that follow a row's own to give its key.
func (o keyOrder) keyCols() string {
	if o.Col == "" {
		return o.Tie
	}
	return o.Col + ", " + o.Tie
}

// kinds are the kinds of a key's values, in order.
func (o keyOrder) kinds() []keyKind {
	if o.Col == "" {
		return []keyKind{o.TieKind}
	}
	return []keyKind{o.ColKind, o.TieKind}
}

// check reports whether k is a key of o: one value of each kind, NULL only
// for a nullable column.
func (o keyOrder) check(k paging.Key) error {
	kinds := o.kinds()
	if len(k) != len(kinds) {
		return paging.InvalidCursor("it does not fit this list's order")
	}
	for i, v := range k {
		ok := false
		switch v.(type) {
		case nil:
			ok = i == 0 && o.Col != "" && o.Nullable
		case string:
			ok = kinds[i] == kindText
		case time.Time:
			ok = kinds[i] == kindTime
		case int64:
			ok = kinds[i] == kindInt
		}
		if !ok {
			return paging.InvalidCursor("it does not fit this list's order")
		}
	}
	return nil
}

// after adds to w the condition of the rows after k, a key of o (checked),
// when they are one range of o's index (not o.twoRanges). A nullable
// column's NULLs sort first ascending and last descending (orderBy).
func (d *DB) after(w *where, o keyOrder, k paging.Key) {
	op := ">"
	if o.Desc {
		op = "<"
	}
	switch {
	case o.Col == "":
		w.addSQL(o.Tie + " " + op + " " + w.arg(d.keyArg(k[0])))
	case k[0] == nil: // descending after a NULL: the NULLs after it
		w.addSQL(o.Col + " IS NULL AND " + o.Tie + " " + op + " " + w.arg(d.keyArg(k[1])))
	default: // the NULLs are before it (ascending) or none are (not nullable)
		v, t := w.arg(d.keyArg(k[0])), w.arg(d.keyArg(k[1]))
		w.addSQL(fmt.Sprintf("(%s, %s) %s (%s, %s)", o.Col, o.Tie, op, v, t))
	}
}

// twoRanges reports whether the rows after k in o are two ranges of o's
// index: ascending after a NULL, the NULLs after it and then every value;
// descending after a value, the values after it and then every NULL.
func (o keyOrder) twoRanges(k paging.Key) bool {
	return o.Col != "" && o.Nullable && (k[0] == nil) != o.Desc
}

// twoRangeQuery is the page of limit rows after k in o when they are two
// ranges of the index: each range read as a range, in order, at most
// limit rows, and the two put in order (at most 2×limit rows to sort).
// Each row ends with o's key columns and the number of its range.
func (d *DB) twoRangeQuery(cols, from string, w where, o keyOrder, k paging.Key, limit int) (string, []any) {
	first := where{conds: slices.Clone(w.conds), args: slices.Clone(w.args)}
	second := where{conds: slices.Clone(w.conds), args: slices.Clone(w.args)}
	if o.Desc { // after a value: the values after it, then the NULLs
		v, t := first.arg(d.keyArg(k[0])), first.arg(d.keyArg(k[1]))
		first.addSQL(fmt.Sprintf("(%s, %s) < (%s, %s)", o.Col, o.Tie, v, t))
		second.addSQL(o.Col + " IS NULL")
	} else { // after a NULL: the NULLs after it, then the values
		first.addSQL(o.Col + " IS NULL AND " + o.Tie + " > " + first.arg(d.keyArg(k[1])))
		second.addSQL(o.Col + " IS NOT NULL")
	}
	lim := fmt.Sprintf(" LIMIT $%d", len(first.args)+1)
	part := func(w where, n int) string {
		return fmt.Sprintf(`SELECT * FROM (SELECT %s, %s AS key_col, %s AS key_tie, %d AS key_range FROM %s%s ORDER BY %s%s) r%d`,
			cols, o.Col, o.Tie, n, from, w.sql(), o.sql(), lim, n)
	}
	outer := keyOrder{Col: "key_col", Nullable: o.Nullable, Tie: "key_tie", Desc: o.Desc}
	q := `SELECT * FROM (` + part(first, 1) + ` UNION ALL ` + part(second, 2) + `) u ORDER BY key_range, ` + outer.sql() + lim
	return q, append(first.args, int64(limit))
}

// keyArg is a key value as the engine compares it.
func (d *DB) keyArg(v any) any {
	if t, ok := v.(time.Time); ok {
		return d.timeArg(t)
	}
	return v
}

// keyDests are scan destinations for o's key columns, and the key they
// hold once scanned.
func keyDests(o keyOrder) ([]any, func() paging.Key) {
	kinds := o.kinds()
	dests := make([]any, len(kinds))
	vals := make([]func() any, len(kinds))
	for i, kind := range kinds {
		switch kind {
		case kindTime:
			var t *time.Time
			dests[i] = nullTimeDest{&t}
			vals[i] = func() any {
				if t == nil {
					return nil
				}
				return *t
			}
		case kindInt:
			var n sql.NullInt64
			dests[i] = &n
			vals[i] = func() any {
				if !n.Valid {
					return nil
				}
				return n.Int64
			}
		default:
			var s sql.NullString
			dests[i] = &s
			vals[i] = func() any {
				if !s.Valid {
					return nil
				}
				return s.String
			}
		}
	}
	return dests, func() paging.Key {
		k := make(paging.Key, len(vals))
		for i, v := range vals {
			k[i] = v()
		}
		return k
	}
}

// keyScanner scans a row's own columns and then its key's.
type keyScanner struct {
	r     rowScanner
	extra []any
}

// Scan implements rowScanner.
func (s keyScanner) Scan(dest ...any) error {
	return s.r.Scan(append(dest, s.extra...)...)
}
