package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"hostgate/internal/hosts"
	"hostgate/internal/paging"
)

// Host tags and saved filters (migration 0017, docs/hosts.md "Tags and
// saved filters").

// inChunk is how many ids one IN list carries: well under either
// engine's limit on parameters.
const inChunk = 500

// rowsQueryer runs queries: *sql.DB (the read pool) or *sql.Tx.
type rowsQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// inList adds vs as arguments and returns the list of their placeholders.
func (w *where) inList(vs []string) string {
	marks := make([]string, len(vs))
	for i, v := range vs {
		marks[i] = w.arg(v)
	}
	return strings.Join(marks, ", ")
}

// chunks calls fn with ids inChunk at a time.
func chunks(ids []string, fn func([]string) error) error {
	for len(ids) > 0 {
		n := min(len(ids), inChunk)
		if err := fn(ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// tagConds adds, for each tag expression, the condition that the host
// whose id is idCol carries it: its ids read from host_tags_lookup (the
// owner's, ownerArg, the placeholder of the owner's id) or, for every
// owner (ownerArg ""), host_tags_any_owner.
func tagConds(w *where, idCol, ownerArg string, exprs []hosts.TagExpr) {
	for _, e := range exprs {
		w.addSQL(idCol + ` IN (` + tagLookup(w, ownerArg, e) + `)`)
	}
}

// tagLookup is the query of the ids of the hosts that carry e (of the
// owner ownerArg, or any owner's for "").
func tagLookup(w *where, ownerArg string, e hosts.TagExpr) string {
	sub := `SELECT host_id FROM host_tags WHERE `
	if ownerArg != "" {
		sub += `user_id = ` + ownerArg + ` AND `
	}
	sub += `key = ` + w.arg(e.Key)
	if e.HasValue {
		sub += ` AND value = ` + w.arg(e.Value)
	}
	return sub
}

// ownedSource is the table of the owner's hosts f reads, under the name
// hosts, and the filter over it. With a tag on PostgreSQL the table is the
// hosts of the first tag: their ids from host_tags_lookup, then each host
// by its key. A LATERAL subquery with LIMIT 1 is not flattened into a
// join, so the planner cannot answer a tag of a tenth of a large fleet
// with a hash join over every host of the owner, which its costs prefer
// (measured at 100,000 hosts: 178 ms, 95 of them the scan of hosts). On
// SQLite ownedWhere already reads the tag's ids first.
func (d *DB) ownedSource(owner string, f hosts.OwnedFilter) (string, where) {
	if d.dialect.FTS5 || len(f.TagExprs) == 0 {
		return "hosts", d.ownedWhere(owner, f)
	}
	first := f.TagExprs[0]
	f.TagExprs = f.TagExprs[1:]
	w := d.ownedWhere(owner, f) // the owner is $1
	return `(` + tagLookup(&w, "$1", first) + `) m
		CROSS JOIN LATERAL (SELECT ` + hostCols + `, deleted_at FROM hosts WHERE hosts.id = m.host_id LIMIT 1) hosts`, w
}

// HostTags implements hosts.Store.
func (s Hosts) HostTags(ctx context.Context, hostIDs []string) (map[string]hosts.Tags, error) {
	return s.d.hostTags(ctx, s.d.read, hostIDs)
}

// TxHostTags implements hosts.Tx.
func (t hostsTx) TxHostTags(ctx context.Context, hostIDs []string) (map[string]hosts.Tags, error) {
	return t.d.hostTags(ctx, t.tx.tx, hostIDs)
}

// hostTags reads the tags of hostIDs by the primary key of host_tags, one
// query for a page of hosts.
func (d *DB) hostTags(ctx context.Context, q rowsQueryer, hostIDs []string) (map[string]hosts.Tags, error) {
	out := map[string]hosts.Tags{}
	err := chunks(hostIDs, func(ids []string) error {
		var w where
		rows, err := q.QueryContext(ctx, `SELECT host_id, key, value FROM host_tags WHERE host_id IN (`+w.inList(ids)+`)`, w.args...)
		if err != nil {
			return d.errorf("read host tags", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, k, v string
			if err := rows.Scan(&id, &k, &v); err != nil {
				return d.errorf("read host tags", err)
			}
			if out[id] == nil {
				out[id] = hosts.Tags{}
			}
			out[id][k] = v
		}
		if err := rows.Err(); err != nil {
			return d.errorf("read host tags", err)
		}
		return nil
	})
	return out, err
}

// CountTags implements hosts.Store over host_tags_lookup: the owner's
// range, grouped in the index's order.
func (s Hosts) CountTags(ctx context.Context, owner string, p paging.Page) ([]hosts.TagCount, int, error) {
	d := s.d
	var items []hosts.TagCount
	var total int
	err := d.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT key, value FROM host_tags WHERE user_id = $1 GROUP BY key, value) t`,
			owner).Scan(&total); err != nil {
			return d.errorf("count tags", err)
		}
		rows, err := tx.QueryContext(ctx, `SELECT key, value, count(*) FROM host_tags WHERE user_id = $1
			GROUP BY key, value ORDER BY key, value LIMIT $2 OFFSET $3`, owner, int64(max(p.Limit, 1)), int64(max(p.Offset, 0)))
		if err != nil {
			return d.errorf("count tags", err)
		}
		items, err = collect(rows, func(r rowScanner) (hosts.TagCount, error) {
			var c hosts.TagCount
			return c, r.Scan(&c.Key, &c.Value, &c.HostCount)
		})
		if err != nil {
			return d.errorf("count tags", err)
		}
		return nil
	})
	return items, total, err
}

// tagsOnlyWhere is the filter over host_tags of the owner's hosts that
// carry f's tags, when tags are all f asks for (ok): the first tag's
// range of host_tags_lookup, the others' ids looked up in it.
func tagsOnlyWhere(owner string, f hosts.OwnedFilter) (where, bool) {
	rest := f
	rest.TagExprs = nil
	if len(f.TagExprs) == 0 || rest.Narrowed() {
		return where{}, false
	}
	var w where
	ownerArg := w.arg(owner)
	first := f.TagExprs[0]
	w.addSQL(`user_id = ` + ownerArg)
	w.add(`key = $%d`, first.Key)
	if first.HasValue {
		w.add(`value = $%d`, first.Value)
	}
	tagConds(&w, "host_id", ownerArg, f.TagExprs[1:])
	return w, true
}

// SelectOwnedHosts implements hosts.Store.
func (s Hosts) SelectOwnedHosts(ctx context.Context, owner string, f hosts.OwnedFilter, limit int) ([]string, error) {
	d := s.d
	q, args := d.selectOwnedQuery(owner, f, limit)
	rows, err := d.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, d.errorf("select hosts", err)
	}
	ids, err := collect(rows, func(r rowScanner) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
	if err != nil {
		return nil, d.errorf("select hosts", err)
	}
	return ids, nil
}

// selectOwnedQuery is the query of SelectOwnedHosts. A selection by tags
// alone (a job's target) reads host_tags only: the first tag's range of
// host_tags_lookup, for key=value already in the order asked for, the
// other tags' ids looked up in the same index.
func (d *DB) selectOwnedQuery(owner string, f hosts.OwnedFilter, limit int) (string, []any) {
	if w, ok := tagsOnlyWhere(owner, f); ok {
		args := append(w.args, int64(max(limit, 0)))
		return `SELECT host_id FROM host_tags` + w.sql() + fmt.Sprintf(` ORDER BY created_at, host_id LIMIT $%d`, len(args)), args
	}
	from, w := d.ownedSource(owner, f)
	args := append(w.args, int64(max(limit, 0)))
	return `SELECT id FROM ` + from + w.sql() + fmt.Sprintf(` ORDER BY created_at, id LIMIT $%d`, len(args)), args
}

// FindOwnedHosts implements hosts.Store, by the hosts' primary key.
func (s Hosts) FindOwnedHosts(ctx context.Context, owner string, ids []string) ([]string, error) {
	d := s.d
	type found struct {
		id string
		at time.Time
	}
	var all []found
	err := chunks(slices.Compact(slices.Sorted(slices.Values(ids))), func(ids []string) error {
		var w where
		owner := w.arg(owner)
		rows, err := d.read.QueryContext(ctx, `SELECT id, created_at FROM hosts
			WHERE id IN (`+w.inList(ids)+`) AND user_id = `+owner+` AND deleted_at IS NULL`, w.args...)
		if err != nil {
			return d.errorf("find hosts", err)
		}
		fs, err := collect(rows, func(r rowScanner) (found, error) {
			var f found
			return f, r.Scan(&f.id, timeDest{&f.at})
		})
		if err != nil {
			return d.errorf("find hosts", err)
		}
		all = append(all, fs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b found) int { return cmp.Or(a.at.Compare(b.at), strings.Compare(a.id, b.id)) })
	out := make([]string, len(all))
	for i, f := range all {
		out[i] = f.id
	}
	return out, nil
}

const (
	lockOwnedHosts          = `SELECT id FROM hosts WHERE user_id = $1 AND deleted_at IS NULL AND id IN (%s) ORDER BY id`
	lockOwnedHostsForUpdate = lockOwnedHosts + ` FOR NO KEY UPDATE`
)

// LockOwnedHosts implements hosts.Tx: on PostgreSQL the rows are locked
// in id order, as every other lock of several hosts.
func (t hostsTx) LockOwnedHosts(ctx context.Context, owner string, ids []string) (int, error) {
	n := 0
	err := chunks(slices.Sorted(slices.Values(ids)), func(ids []string) error {
		var w where
		w.arg(owner)
		q := fmt.Sprintf(t.lock(lockOwnedHosts, lockOwnedHostsForUpdate), w.inList(ids))
		rows, err := t.tx.tx.QueryContext(ctx, q, w.args...)
		if err != nil {
			return t.d.errorf("lock hosts", err)
		}
		defer rows.Close()
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			return t.d.errorf("lock hosts", err)
		}
		return nil
	})
	return n, err
}

// ReplaceTags implements hosts.Tx.
func (t hostsTx) ReplaceTags(ctx context.Context, owner, hostID string, tags hosts.Tags) error {
	if _, err := t.tx.tx.ExecContext(ctx, `DELETE FROM host_tags WHERE host_id = $1`, hostID); err != nil {
		return t.d.errorf("replace tags", err)
	}
	return t.PutTags(ctx, owner, []string{hostID}, tags)
}

// RemoveTags implements hosts.Tx.
func (t hostsTx) RemoveTags(ctx context.Context, hostIDs, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	return chunks(hostIDs, func(ids []string) error {
		var w where
		hostsIn := w.inList(ids)
		_, err := t.tx.tx.ExecContext(ctx, `DELETE FROM host_tags WHERE host_id IN (`+hostsIn+`) AND key IN (`+w.inList(keys)+`)`, w.args...)
		if err != nil {
			return t.d.errorf("remove tags", err)
		}
		return nil
	})
}

var tagColumns = []column{{"host_id", "text"}, {"user_id", "text"}, {"key", "text"}, {"value", "text"}}

// PutTags implements hosts.Tx: one batch of (host, tag) rows, each with
// its host's owner and creation time read from hosts (a host not the
// owner's gets none).
func (t hostsTx) PutTags(ctx context.Context, owner string, hostIDs []string, tags hosts.Tags) error {
	if len(tags) == 0 {
		return nil
	}
	keys := tags.Keys()
	rows := make([][]any, 0, len(hostIDs)*len(keys))
	for _, id := range hostIDs {
		for _, k := range keys {
			rows = append(rows, []any{id, owner, k, tags[k]})
		}
	}
	// WHERE true: SQLite needs it before ON CONFLICT after a SELECT.
	return t.d.execBatch(ctx, t.tx.tx, "put tags", tagColumns, rows,
		`INSERT INTO host_tags (host_id, user_id, key, value, created_at)
		 SELECT h.id, h.user_id, v.key, v.value, h.created_at FROM v JOIN hosts h ON h.id = v.host_id AND h.user_id = v.user_id WHERE true
		 ON CONFLICT (host_id, key) DO UPDATE SET value = excluded.value`)
}

const filterCols = "id, user_id, name, query, created_at, updated_at"

func scanFilter(r rowScanner) (hosts.SavedFilter, error) {
	var f hosts.SavedFilter
	var q string
	if err := r.Scan(&f.ID, &f.UserID, &f.Name, &q, timeDest{&f.CreatedAt}, timeDest{&f.UpdatedAt}); err != nil {
		return f, err
	}
	return f, json.Unmarshal([]byte(q), &f.Query)
}

const (
	lockUser          = `SELECT id FROM users WHERE id = $1`
	lockUserForUpdate = lockUser + ` FOR NO KEY UPDATE`
)

// CreateFilter implements hosts.Store: the owner's row is locked, so
// that concurrent creations count one after the other.
func (s Hosts) CreateFilter(ctx context.Context, f hosts.SavedFilter, limit int) error {
	d := s.d
	q, err := json.Marshal(f.Query)
	if err != nil {
		return err
	}
	return d.unit(ctx, func(t *tx) error {
		var id string
		if err := t.tx.QueryRowContext(ctx, t.lock(lockUser, lockUserForUpdate), f.UserID).Scan(&id); err != nil {
			return d.errorf("lock user", err)
		}
		var n int
		if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM saved_filters WHERE user_id = $1`, f.UserID).Scan(&n); err != nil {
			return d.errorf("count filters", err)
		}
		if n >= limit {
			return hosts.ErrFilterLimit
		}
		res, err := t.tx.ExecContext(ctx, `INSERT INTO saved_filters (`+filterCols+`) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (user_id, name) DO NOTHING`,
			f.ID, f.UserID, f.Name, string(q), d.timeArg(f.CreatedAt), d.timeArg(f.UpdatedAt))
		if err != nil {
			return d.errorf("create filter", err)
		}
		return affected(res, hosts.ErrFilterNameTaken)
	})
}

// SavedFilter implements hosts.Store.
func (s Hosts) SavedFilter(ctx context.Context, owner, id string) (hosts.SavedFilter, error) {
	d := s.d
	f, err := scanFilter(d.read.QueryRowContext(ctx, `SELECT `+filterCols+` FROM saved_filters WHERE id = $1 AND user_id = $2`, id, owner))
	if errors.Is(err, sql.ErrNoRows) {
		return hosts.SavedFilter{}, hosts.ErrFilterNotFound
	}
	if err != nil {
		return hosts.SavedFilter{}, d.errorf("read filter", err)
	}
	return f, nil
}

// ListFilters implements hosts.Store, by the unique (user_id, name).
func (s Hosts) ListFilters(ctx context.Context, owner string, p paging.Page) ([]hosts.SavedFilter, int, error) {
	var w where
	w.add(`user_id = $%d`, owner)
	return listPage(ctx, s.d, "filters", filterCols, "saved_filters", w, keyOrder{Col: "name", Tie: "id"}, p, scanFilter)
}

// UpdateFilter implements hosts.Store.
func (s Hosts) UpdateFilter(ctx context.Context, f hosts.SavedFilter) error {
	d := s.d
	q, err := json.Marshal(f.Query)
	if err != nil {
		return err
	}
	res, err := d.write.ExecContext(ctx, `UPDATE saved_filters SET name = $1, query = $2, updated_at = $3 WHERE id = $4 AND user_id = $5`,
		f.Name, string(q), d.timeArg(f.UpdatedAt), f.ID, f.UserID)
	if d.dialect.IsUniqueViolation(err) {
		return hosts.ErrFilterNameTaken
	}
	if err != nil {
		return d.errorf("update filter", err)
	}
	return affected(res, hosts.ErrFilterNotFound)
}

// DeleteFilter implements hosts.Store.
func (s Hosts) DeleteFilter(ctx context.Context, owner, id string) error {
	d := s.d
	res, err := d.write.ExecContext(ctx, `DELETE FROM saved_filters WHERE id = $1 AND user_id = $2`, id, owner)
	if err != nil {
		return d.errorf("delete filter", err)
	}
	return affected(res, hosts.ErrFilterNotFound)
}
