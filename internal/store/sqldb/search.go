package sqldb

import (
	"fmt"
	"strings"
)

// The text search of the lists (migration 0015, docs/api.md "Searching
// lists"). A query of paging.MinSubstring characters or more matches a
// part of a column, case-insensitively: on PostgreSQL lower(column) LIKE
// '%q%', served by a pg_trgm GIN index of lower(column) (the hosts'
// columns copied to the table host_search by triggers, away from the rows
// the liveness flush rewrites); on SQLite a phrase query of an FTS5
// trigram table (host_search, user_search) kept by triggers. A shorter
// query matches the start of a column, a range over lower(column) served
// by a B-tree on both engines.
//
// A search over several columns is a union of one id lookup per column
// (and per joined table), each through its own index, never one OR over
// the columns of a join, which the planners answer with a scan.

// arg adds v as the next argument and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

// prefixEnd follows every string that starts with q in byte order (and
// so code point order): q and the greatest code point.
const prefixEnd = "\U0010FFFF"

// match is the condition that the text column matches the query q: its
// lower() contains q or, when prefix, starts with it. The arguments go
// to w.
func (d *DB) match(w *where, column, q string, prefix bool) string {
	q = strings.ToLower(q)
	if prefix {
		c := "lower(" + column + ")"
		if !d.dialect.FTS5 {
			// The B-tree of lower(column) is in byte order, whatever the
			// database's collation; a range in another would not use it.
			c += ` COLLATE "C"`
		}
		return c + " >= " + w.arg(q) + " AND " + c + " < " + w.arg(q+prefixEnd)
	}
	return "lower(" + column + ") LIKE " + w.arg("%"+escapeLike(q)+"%") + " ESCAPE '!'"
}

// ftsPhrase is the FTS5 query for q as a literal part of any of columns:
// a phrase, whose double quotes are doubled. The trigram tokenizer
// matches a phrase as a substring, case-insensitively.
func ftsPhrase(columns, q string) string {
	return "{" + columns + "} : \"" + strings.ReplaceAll(q, `"`, `""`) + `"`
}

// useFTS reports whether a query is looked up in the FTS5 tables: on
// SQLite, when it is long enough for a trigram.
func (d *DB) useFTS(prefix bool) bool { return d.dialect.FTS5 && !prefix }

// hostMatches is the table h of undeleted hosts (hostCols) that match the
// admin query q, joined with their owners u (email): a part (or the start)
// of their name, id or public IP, or of their owner's email. It is a
// table of its own rather than a condition on hosts, so that the planner
// never joins the matches back to every host: each part reads its rows
// through its index, and the union is all that is sorted and counted.
func (d *DB) hostMatches(w *where, q string, prefix bool) string {
	var parts []string
	switch {
	case d.useFTS(prefix):
		parts = append(parts, `SELECT `+hostCols+` FROM hosts WHERE deleted_at IS NULL AND id IN (
			SELECT id FROM host_search WHERE host_search MATCH `+w.arg(ftsPhrase("id name public_ip", q))+`)`,
			`SELECT `+hostCols+` FROM hosts WHERE deleted_at IS NULL AND user_id IN (
			SELECT k.id FROM user_search s JOIN user_search_keys k ON k.n = s.rowid
			WHERE user_search MATCH `+w.arg(ftsPhrase("email", q))+`)`)
	case d.dialect.FTS5: // SQLite, a prefix: B-trees of hosts and users
		for _, col := range []string{"name", "id", "public_ip"} {
			parts = append(parts, `SELECT `+hostCols+` FROM hosts WHERE deleted_at IS NULL AND `+d.match(w, col, q, prefix))
		}
		parts = append(parts, `SELECT `+hostCols+` FROM hosts WHERE deleted_at IS NULL AND user_id IN (
			SELECT id FROM users WHERE `+d.match(w, "email", q, prefix)+`)`)
	default:
		// PostgreSQL keeps the hosts' searched text in host_search
		// (migration 0015), apart from the rows the liveness flush
		// rewrites. The matching ids come first; each is then read from
		// hosts, and its owner's email from users, by key: a LATERAL
		// subquery with LIMIT 1 is not flattened into the join, so the
		// planner cannot answer it with a hash join over every host and
		// every user, which its costs prefer from a couple of hundred
		// estimated matches (measured: 5–30 ms at 20,000 hosts, where the
		// lookups by key take 0.2 ms).
		for _, col := range []string{"name", "id", "public_ip"} {
			parts = append(parts, `SELECT id FROM host_search WHERE `+d.match(w, col, q, prefix))
		}
		parts = append(parts, `SELECT id FROM hosts WHERE deleted_at IS NULL AND user_id IN (
			SELECT id FROM users WHERE `+d.match(w, "email", q, prefix)+`)`)
		return `(` + strings.Join(parts, "\n\t\tUNION ") + `) m
		CROSS JOIN LATERAL (SELECT ` + hostCols + ` FROM hosts WHERE hosts.id = m.id AND hosts.deleted_at IS NULL LIMIT 1) h
		CROSS JOIN LATERAL (SELECT email FROM users WHERE users.id = h.user_id LIMIT 1) u`
	}
	return `(` + strings.Join(parts, "\n\t\tUNION ") + `) h JOIN users u ON u.id = h.user_id`
}

// ownedHostSearch is the condition that a host of owner (the argument
// ownerArg) matches the user's query q: a part (or the start) of its name,
// or exactly its id. The ids that match are found first, the part of a
// name through the index over every owner's hosts (the caller's
// condition on the owner keeps the others out), so that a customer with
// many hosts is not scanned; a prefix, which a short query can share
// with many hosts, is looked up among the owner's.
func (d *DB) ownedHostSearch(w *where, ownerArg, q string, prefix bool) string {
	var names string
	switch {
	case d.useFTS(prefix):
		names = `SELECT id FROM host_search WHERE host_search MATCH ` + w.arg(ftsPhrase("name", q))
	case prefix:
		names = `SELECT id FROM hosts WHERE user_id = ` + ownerArg + ` AND deleted_at IS NULL AND ` + d.match(w, "name", q, prefix)
	default: // PostgreSQL: host_search holds the undeleted hosts' names
		names = `SELECT id FROM host_search WHERE ` + d.match(w, "name", q, prefix)
	}
	return `id IN (` + names + ` UNION ALL SELECT CAST(` + w.arg(q) + ` AS TEXT))`
}

// userMatches is the users (userCols) that match the admin query q: a
// part (or the start) of the email or display name; a table of its own,
// as hostMatches.
func (d *DB) userMatches(w *where, q string, prefix bool) string {
	if d.useFTS(prefix) {
		return `SELECT ` + userCols + ` FROM users WHERE id IN (SELECT k.id FROM user_search s JOIN user_search_keys k ON k.n = s.rowid
			WHERE user_search MATCH ` + w.arg(ftsPhrase("email display_name", q)) + `)`
	}
	return `SELECT ` + userCols + ` FROM users WHERE ` + d.match(w, "email", q, prefix) + `
		UNION SELECT ` + userCols + ` FROM users WHERE ` + d.match(w, "display_name", q, prefix)
}

// orderBy is the ORDER BY clause of column in the direction, ties broken
// by tie in the same direction. A nullable column's NULLs come first
// ascending and last descending, as in ownedOrder.
func orderBy(column string, desc, nullable bool, tie string) string {
	dir, nulls := "ASC", " NULLS FIRST"
	if desc {
		dir, nulls = "DESC", " NULLS LAST"
	}
	if !nullable {
		nulls = ""
	}
	return column + " " + dir + nulls + ", " + tie + " " + dir
}
