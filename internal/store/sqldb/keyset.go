package sqldb

import (
	"database/sql"
	"fmt"
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
		return paging.ErrInvalidCursor("it does not fit this list's order")
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
			return paging.ErrInvalidCursor("it does not fit this list's order")
		}
	}
	return nil
}

// after adds to w the condition of the rows after k in o. A nullable
// column's NULLs sort first ascending and last descending (orderBy).
func (d *DB) after(w *where, o keyOrder, k paging.Key) error {
	if err := o.check(k); err != nil {
		return err
	}
	op := ">"
	if o.Desc {
		op = "<"
	}
	if o.Col == "" {
		w.addSQL(o.Tie + " " + op + " " + w.arg(d.keyArg(k[0])))
		return nil
	}
	if k[0] == nil { // after a NULL: the NULLs after it, then (ascending) the rest
		cond := o.Col + " IS NULL AND " + o.Tie + " " + op + " " + w.arg(d.keyArg(k[1]))
		if !o.Desc {
			cond = "(" + cond + " OR " + o.Col + " IS NOT NULL)"
		}
		w.addSQL(cond)
		return nil
	}
	v, t := w.arg(d.keyArg(k[0])), w.arg(d.keyArg(k[1]))
	cond := fmt.Sprintf("(%s, %s) %s (%s, %s)", o.Col, o.Tie, op, v, t)
	if o.Nullable && o.Desc {
		cond = "(" + cond + " OR " + o.Col + " IS NULL)"
	}
	w.addSQL(cond)
	return nil
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
