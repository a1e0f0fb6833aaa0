package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/hosts"
	"hostgate/internal/paging"
)

// Hosts is the hosts' storage, on the shared core.
type Hosts struct{ d *DB }

var (
	_ hosts.Store = Hosts{}
	_ hosts.Tx    = hostsTx{}
)

// Hosts returns the hosts' storage.
func (d *DB) Hosts() hosts.Store { return Hosts{d} }

// Tx implements hosts.Store.
func (s Hosts) Tx(ctx context.Context, fn func(hosts.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(hostsTx{t}) })
}

// hostsTx is the hosts' unit of work.
type hostsTx struct{ *tx }

// hostColumns are the columns of hosts.Host, in scanHost's order.
var hostColumns = []string{
	"id", "user_id", "name", "bid", "listen_port", "public_ip", "os", "installed_version",
	"report_url", "status", "last_seen_at", "last_online_at", "created_at", "webhook_format",
}

var (
	hostCols = strings.Join(hostColumns, ", ")
	// hostColsOf is hostCols qualified by the alias h, for joins.
	hostColsOf = "h." + strings.Join(hostColumns, ", h.")
)

// secretCols are the columns of hosts.Secrets, in scanSecrets's order.
const secretCols = "secret_sealed, agent_pubkey, cred_gen"

// scanHost scans hostCols, then any extra columns into extra.
func scanHost(r rowScanner, extra ...any) (hosts.Host, error) {
	var h hosts.Host
	dest := append([]any{&h.ID, &h.UserID, &h.Name, &h.BID, &h.ListenPort, &h.PublicIP, &h.OS,
		&h.InstalledVersion, &h.ReportURL, (*string)(&h.Status), nullTimeDest{&h.LastSeenAt},
		nullTimeDest{&h.LastOnlineAt}, timeDest{&h.CreatedAt}, &h.WebhookFormat}, extra...)
	return h, r.Scan(dest...)
}

// scanHostSecrets scans hostCols followed by secretCols.
func scanHostSecrets(r rowScanner) (hosts.Host, hosts.Secrets, error) {
	var sec hosts.Secrets
	h, err := scanHost(r, &sec.SecretSealed, &sec.AgentPubKey, &sec.CredGen)
	return h, sec, err
}

// hostOrZero is h, or the zero host with the mapped error.
func (d *DB) hostOrZero(op string, h hosts.Host, err, notFound error) (hosts.Host, error) {
	if err := d.hostResult(op, err, notFound); err != nil {
		return hosts.Host{}, err
	}
	return h, nil
}

// hostResult maps a missing row to notFound and wraps other errors.
func (d *DB) hostResult(op string, err, notFound error) error {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return notFound
	case err != nil:
		return d.errorf(op, err)
	}
	return nil
}

// nullBytes is b, or NULL when b is empty.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// CreateHost inserts h with its secrets and, when iss is not nil, its first
// issuance: the issuance's key and token, its sealed secret when set (else
// sec's), and the generation after sec's. An empty status is pending.
//
// A clash on (user, bid) is ErrBIDTaken, found by ON CONFLICT rather than
// from an error code, so that it cannot be mistaken for a clash on the id.
// The unique constraint covers deleted hosts too: their bids stay reserved.
func (s Hosts) CreateHost(ctx context.Context, h hosts.Host, sec hosts.Secrets, iss *hosts.Issuance) error {
	d := s.d
	status := cmp.Or(h.Status, hosts.StatusPending)
	sealed, pub, gen := sec.SecretSealed, sec.AgentPubKey, sec.CredGen
	var tokenHash []byte
	var tokenExpires any
	if iss != nil {
		pub, tokenHash, tokenExpires, gen = iss.AgentPubKey, iss.InstallTokenHash, d.timeArg(iss.InstallExpiresAt), gen+1
		if len(iss.SecretSealed) > 0 {
			sealed = iss.SecretSealed
		}
	}
	res, err := d.write.ExecContext(ctx,
		`INSERT INTO hosts (`+hostCols+`, `+secretCols+`, install_token_hash, install_token_expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
		 ON CONFLICT (user_id, bid) DO NOTHING`,
		h.ID, h.UserID, h.Name, h.BID, h.ListenPort, h.PublicIP, h.OS, h.InstalledVersion,
		h.ReportURL, string(status), d.nullTimeArg(h.LastSeenAt), d.nullTimeArg(h.LastOnlineAt), d.timeArg(h.CreatedAt),
		cmp.Or(h.WebhookFormat, hosts.DefaultWebhookFormat), sealed, nullBytes(pub), gen, nullBytes(tokenHash), tokenExpires)
	if err != nil {
		return d.errorf("create host", err)
	}
	return affected(res, hosts.ErrBIDTaken)
}

var ownedHost = `SELECT ` + hostCols + ` FROM hosts WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`

// OwnedHost returns the owner's undeleted host; ErrNotFound.
func (s Hosts) OwnedHost(ctx context.Context, owner, id string) (hosts.Host, error) {
	d := s.d
	row := d.readRow(ctx, ownedHost, id, owner)
	h, err := scanHost(row)
	return d.hostOrZero("read host", h, err, hosts.ErrNotFound)
}

// ListOwnedHosts returns the owner's undeleted hosts, newest first.
func (s Hosts) ListOwnedHosts(ctx context.Context, owner string) ([]hosts.Host, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx,
		`SELECT `+hostCols+` FROM hosts WHERE user_id = $1 AND deleted_at IS NULL
		 ORDER BY created_at DESC, id DESC`, owner)
	if err != nil {
		return nil, d.errorf("list hosts", err)
	}
	hs, err := collect(rows, func(r rowScanner) (hosts.Host, error) { return scanHost(r) })
	if err != nil {
		return nil, d.errorf("list hosts", err)
	}
	return hs, nil
}

// ownedOrder is the ORDER BY clause of o (hosts.SortOrders), each served
// by an index of migration 0013 (or hosts_owner_newest). A nullable
// column's NULLs (hosts never seen) come first ascending and last
// descending: the default of SQLite and the order of PostgreSQL's
// hosts_owner_last_seen. A column that is never NULL gets no NULLS clause,
// so PostgreSQL can scan its index backwards.
func ownedOrder(o hosts.SortOrder) keyOrder {
	return keyOrder{Col: o.Column, ColKind: hostSortKinds[o.Column], Nullable: o.Nullable, Tie: "id", Desc: o.Desc}
}

// hostSortKinds is the kind of each sort column of the host lists.
var hostSortKinds = map[string]keyKind{
	"name": kindText, "created_at": kindTime, "last_seen_at": kindTime, "status": kindText,
	"installed_version": kindText, "email": kindText,
}

// PageOwnedHosts returns a page of the owner's undeleted hosts matching f,
// in f's order, with the count of all matches (read from host_counts,
// kept by triggers, when nothing is filtered). The query is a literal
// part of the name (or its start, f.QueryPrefix) or an exact id, found
// through the search indexes (search.go).
func (s Hosts) PageOwnedHosts(ctx context.Context, owner string, f hosts.OwnedFilter, p paging.Page) ([]hosts.Host, int, error) {
	d := s.d
	o, ok := f.Sort.Order()
	if !ok {
		return nil, 0, fmt.Errorf("%s: list hosts: unknown sort %q", d.dialect.Name, f.Sort)
	}
	order := ownedOrder(o)
	scan := func(r rowScanner) (hosts.Host, error) { return scanHost(r) }
	if tw, ok := tagsOnlyWhere(owner, f); ok {
		// Tags alone: the total counted in host_tags_lookup and, in
		// creation order, the page's ids read there too (host_tags keeps
		// each host's created_at), so that only the page's hosts are read.
		count := `SELECT count(*) FROM host_tags` + tw.sql()
		if o.Column == "created_at" {
			ids, err := d.taggedPage(tw, o.Desc, p)
			if err != nil {
				return nil, 0, err
			}
			// The outer order repeats the inner (a cursor's key holds
			// for both); the inner has skipped any offset.
			return listPageCounted(ctx, d, "hosts", hostCols, "hosts", ids, order,
				paging.Page{Limit: p.Limit, Keyset: p.Keyset}, scan, count, tw.args...)
		}
		from, w := d.ownedSource(owner, f)
		return listPageCounted(ctx, d, "hosts", hostCols, from, w, order, p, scan, count, tw.args...)
	}
	from, w := d.ownedSource(owner, f)
	if !f.Narrowed() {
		// Every undeleted host matches: host_counts has the total.
		return listPageCounted(ctx, d, "hosts", hostCols, "hosts", w, order, p, scan,
			`SELECT coalesce(max(n), 0) FROM host_counts WHERE user_id = $1`, owner)
	}
	return listPage(ctx, d, "hosts", hostCols, from, w, order, p, scan)
}

// taggedPage is the condition on hosts of one page (and the row after
// it, which tells whether another follows) of the hosts of tw, a filter
// of host_tags, in creation order.
func (d *DB) taggedPage(tw where, desc bool, p paging.Page) (where, error) {
	inner := keyOrder{Col: "created_at", ColKind: kindTime, Tie: "host_id", Desc: desc}
	sub := where{conds: slices.Clone(tw.conds), args: slices.Clone(tw.args)}
	limit, offset := clampPage(p)
	if after := p.After(); after != nil {
		if err := inner.check(after); err != nil {
			return where{}, err
		}
		d.after(&sub, inner, after) // created_at is never NULL: one range
		offset = 0
	}
	n := len(sub.args)
	w := where{args: append(sub.args, int64(limit+1), int64(offset))}
	w.addSQL(`id IN (SELECT host_id FROM host_tags` + sub.sql() + ` ORDER BY ` + inner.sql() +
		fmt.Sprintf(` LIMIT $%d OFFSET $%d`, n+1, n+2) + `)`)
	return w, nil
}

// ownedWhere is the filter of PageOwnedHosts over hosts.
func (d *DB) ownedWhere(owner string, f hosts.OwnedFilter) where {
	var w where
	ownerCond := `user_id = $%d`
	if f.Query != "" && d.useFTS(f.QueryPrefix) || len(f.TagExprs) > 0 && d.dialect.FTS5 {
		// SQLite, without statistics, would walk every host of the owner
		// and probe the matches; the unary + keeps this condition off the
		// owner's index, so that the matches are read by id instead (12 ms
		// against 1.3 ms for an owner of 10,000 hosts). The same holds for
		// the hosts of a tag, read from host_tags_lookup.
		ownerCond = `+user_id = $%d`
	}
	w.add(ownerCond, owner)
	w.addSQL(`deleted_at IS NULL`)
	if f.Query != "" {
		w.addSQL(d.ownedHostSearch(&w, "$1", f.Query, f.QueryPrefix))
	}
	for _, q := range f.Queries {
		w.addSQL(d.ownedHostSearch(&w, "$1", q, paging.PrefixOnly(q)))
	}
	if f.Status != "" {
		w.add(`status = $%d`, string(f.Status))
	}
	alias := ""
	if len(f.TagExprs) > 0 && d.dialect.FTS5 {
		// As the owner above: the tag's ids first, not the hosts of a
		// status through its index.
		alias = "+"
	}
	hostConds(&w, alias, f.Statuses, f.OS, f.AgentVersion)
	tagConds(&w, "id", "$1", f.TagExprs)
	if f.None {
		w.addSQL(`1 = 0`)
	}
	return w
}

// hostConds adds the conditions of the host lists' status, OS family and
// agent version filters over the hosts of alias ("h." or ""), the same
// for the admin and the owners' lists. An alias of "+" is SQLite's unary
// plus, which keeps a condition off the column's index. The OS is a family: the whole
// reported OS or its first word ("linux" of "linux 6.1.0").
func hostConds(w *where, alias string, statuses []hosts.Status, os, version string) {
	if len(statuses) > 0 {
		in := make([]string, len(statuses))
		for i, st := range statuses {
			in[i] = w.arg(string(st))
		}
		w.addSQL(alias + `status IN (` + strings.Join(in, ", ") + `)`)
	}
	if os != "" {
		w.addSQL(`(` + alias + `os = ` + w.arg(os) + ` OR ` + alias + `os LIKE ` + w.arg(escapeLike(os)+" %") + ` ESCAPE '!')`)
	}
	if version != "" {
		w.add(alias+`installed_version = $%d`, version)
	}
}

// UpdateHost sets name and listen port of the owner's host; ErrNotFound.
func (s Hosts) UpdateHost(ctx context.Context, owner, id, name string, listenPort int) (hosts.Host, error) {
	d := s.d
	row := d.write.QueryRowContext(ctx,
		`UPDATE hosts SET name = $1, listen_port = $2
		 WHERE id = $3 AND user_id = $4 AND deleted_at IS NULL RETURNING `+hostCols,
		name, listenPort, id, owner)
	h, err := scanHost(row)
	return d.hostOrZero("update host", h, err, hosts.ErrNotFound)
}

// DeleteHost implements hosts.Tx. The install token is cleared too, so
// nothing of the host stays usable.
func (t hostsTx) DeleteHost(ctx context.Context, owner, id string, now time.Time) error {
	d := t.d
	var w where
	w.add(`id = $%d`, id)
	if owner != "" {
		w.add(`user_id = $%d`, owner)
	}
	w.addSQL(`deleted_at IS NULL`)
	args := append(w.args, d.timeArg(now))
	query := fmt.Sprintf(`UPDATE hosts SET deleted_at = $%d, install_token_hash = NULL, install_token_expires_at = NULL`,
		len(args)) + w.sql()
	res, err := t.tx.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return d.errorf("delete host", err)
	}
	if err := affected(res, hosts.ErrNotFound); err != nil {
		return err
	}
	// A deleted host's tags go with it (migration 0017).
	if _, err := t.tx.tx.ExecContext(ctx, `DELETE FROM host_tags WHERE host_id = $1`, id); err != nil {
		return d.errorf("delete host tags", err)
	}
	return nil
}

var (
	selectHost          = `SELECT ` + hostCols + ` FROM hosts WHERE id = $1 AND deleted_at IS NULL`
	selectHostForUpdate = selectHost + ` FOR NO KEY UPDATE`
)

// LockHost implements hosts.Tx.
func (t hostsTx) LockHost(ctx context.Context, id string) (hosts.Host, error) {
	h, err := scanHost(t.tx.tx.QueryRowContext(ctx, t.lock(selectHost, selectHostForUpdate), id))
	if err := t.d.hostResult("lock host", err, hosts.ErrNotFound); err != nil {
		return hosts.Host{}, err
	}
	return h, nil
}

// SetStatus implements hosts.Tx.
func (t hostsTx) SetStatus(ctx context.Context, id string, status hosts.Status) (hosts.Host, error) {
	h, err := scanHost(t.tx.tx.QueryRowContext(ctx, `UPDATE hosts SET status = $1 WHERE id = $2 RETURNING `+hostCols,
		string(status), id))
	if err := t.d.hostResult("set host status", err, hosts.ErrNotFound); err != nil {
		return hosts.Host{}, err
	}
	return h, nil
}

// HostByID returns any undeleted host with its secrets; ErrNotFound.
func (s Hosts) HostByID(ctx context.Context, id string) (hosts.Host, hosts.Secrets, error) {
	d := s.d
	row := d.read.QueryRowContext(ctx,
		`SELECT `+hostCols+`, `+secretCols+` FROM hosts WHERE id = $1 AND deleted_at IS NULL`, id)
	h, sec, err := scanHostSecrets(row)
	if err := d.hostResult("read host", err, hosts.ErrNotFound); err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	return h, sec, nil
}

// Issue applies iss to the owner's undeleted host in one statement: new
// agent key and install token, new sealed secret when iss carries one, next
// credential generation; ErrNotFound.
func (s Hosts) Issue(ctx context.Context, owner, id string, iss hosts.Issuance) (hosts.Host, hosts.Secrets, error) {
	d := s.d
	return d.issue(ctx, d.write, owner, id, iss)
}

// issue is Issue on q: on its own, or inside a transaction.
func (d *DB) issue(ctx context.Context, q queryer, owner, id string, iss hosts.Issuance) (hosts.Host, hosts.Secrets, error) {
	return d.applyIssuance(ctx, q, "issue credentials", `id = $4 AND user_id = $5`, [2]any{id, owner}, iss, hosts.ErrNotFound)
}

// applyIssuance applies iss, in one UPDATE, to the undeleted host that
// where (on $4 and $5, from whereArgs) selects; missing is the error when
// no host matches.
func (d *DB) applyIssuance(ctx context.Context, q queryer, op, where string, whereArgs [2]any, iss hosts.Issuance, missing error) (hosts.Host, hosts.Secrets, error) {
	set := `agent_pubkey = $1, install_token_hash = $2, install_token_expires_at = $3, cred_gen = cred_gen + 1`
	args := []any{nullBytes(iss.AgentPubKey), nullBytes(iss.InstallTokenHash), d.timeArg(iss.InstallExpiresAt), whereArgs[0], whereArgs[1]}
	if len(iss.SecretSealed) > 0 {
		set += `, secret_sealed = $6`
		args = append(args, iss.SecretSealed)
	}
	row := q.QueryRowContext(ctx,
		`UPDATE hosts SET `+set+` WHERE `+where+` AND deleted_at IS NULL
		 RETURNING `+hostCols+`, `+secretCols, args...)
	h, sec, err := scanHostSecrets(row)
	if err := d.hostResult(op, err, missing); err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	return h, sec, nil
}

// ExchangeInstallToken applies iss to the undeleted host whose install
// token is tokenHash and unexpired at now, in one conditional UPDATE, so
// the old token is spent and the new issuance stored at once; of
// concurrent callers at most one gets the row (as ConsumeInstallToken).
// ErrTokenInvalid when no host matches.
func (s Hosts) ExchangeInstallToken(ctx context.Context, tokenHash []byte, now time.Time, iss hosts.Issuance) (hosts.Host, hosts.Secrets, error) {
	d := s.d
	if len(tokenHash) == 0 {
		return hosts.Host{}, hosts.Secrets{}, hosts.ErrTokenInvalid
	}
	return d.applyIssuance(ctx, d.write, "exchange install token", `install_token_hash = $4 AND install_token_expires_at > $5`,
		[2]any{tokenHash, d.timeArg(now)}, iss, hosts.ErrTokenInvalid)
}

// ConsumeInstallToken clears the host's install token if it is tokenHash
// and unexpired at now, and returns the host; ErrTokenInvalid otherwise.
// The check and the clearing are one conditional UPDATE: on PostgreSQL a
// concurrent caller blocks on the row and then re-checks the condition
// against the committed row, where the token is gone; SQLite runs one
// writer at a time. Either way exactly one caller gets the row.
func (s Hosts) ConsumeInstallToken(ctx context.Context, id string, tokenHash []byte, now time.Time) (hosts.Host, hosts.Secrets, error) {
	d := s.d
	if len(tokenHash) == 0 {
		return hosts.Host{}, hosts.Secrets{}, hosts.ErrTokenInvalid
	}
	row := d.write.QueryRowContext(ctx,
		`UPDATE hosts SET install_token_hash = NULL, install_token_expires_at = NULL
		 WHERE id = $1 AND install_token_hash = $2 AND install_token_expires_at > $3 AND deleted_at IS NULL
		 RETURNING `+hostCols+`, `+secretCols,
		id, tokenHash, d.timeArg(now))
	h, sec, err := scanHostSecrets(row)
	if err := d.hostResult("consume install token", err, hosts.ErrTokenInvalid); err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	return h, sec, nil
}

// laterOf is the SQL for the later of column and the time argument $n:
// the column unless it is NULL or earlier. Portable, unlike GREATEST
// (PostgreSQL only) or max(a, b) (SQLite only, and NULL for a NULL).
func laterOf(column, arg string) string {
	return `CASE WHEN ` + column + ` IS NULL OR ` + column + ` < ` + arg + ` THEN ` + arg + ` ELSE ` + column + ` END`
}

// RecordHandshake stores what the agent reported, moves last_seen_at
// and last_online_at up to now (never back) and, unless the host is
// banned, sets status online. ErrNotFound for an unknown or deleted host.
func (s Hosts) RecordHandshake(ctx context.Context, id, publicIP, os, version string, now time.Time) error {
	d := s.d
	res, err := d.write.ExecContext(ctx,
		`UPDATE hosts SET public_ip = $1, os = $2, installed_version = $3,
		 last_seen_at = `+laterOf("last_seen_at", "$4")+`,
		 last_online_at = CASE WHEN status = 'banned' THEN last_online_at ELSE `+laterOf("last_online_at", "$4")+` END,
		 status = CASE WHEN status = 'banned' THEN status ELSE 'online' END
		 WHERE id = $5 AND deleted_at IS NULL`,
		publicIP, os, version, d.timeArg(now), id)
	if err != nil {
		return d.errorf("record handshake", err)
	}
	return affected(res, hosts.ErrNotFound)
}

// MarkSeen writes the batch in one transaction. For each undeleted host it
// moves last_seen_at up to the fact's time (never back); unless the host is
// banned it also moves last_online_at up and sets status online. Unknown
// and deleted hosts are skipped, and of a host's facts the latest counts.
// Rows are locked in id order, so that hub instances flushing overlapping
// batches, and sweeping, lock in the same order and cannot deadlock each
// other.
func (s Hosts) MarkSeen(ctx context.Context, seen []hosts.Seen) error {
	d := s.d
	if len(seen) == 0 {
		return nil
	}
	latest := slices.SortedFunc(slices.Values(seen), func(a, b hosts.Seen) int {
		return cmp.Or(strings.Compare(a.HostID, b.HostID), b.At.Compare(a.At))
	})
	latest = slices.CompactFunc(latest, func(a, b hosts.Seen) bool { return a.HostID == b.HostID })
	rows := make([][]any, len(latest))
	for i, s := range latest {
		rows[i] = []any{s.HostID, d.timeArg(s.At)}
	}
	return d.withTx(ctx, func(tx *sql.Tx) error {
		if d.dialect.RowLocks {
			// Lock the rows in id order first; the UPDATE's join takes
			// them in whatever order its plan reads them.
			if err := d.execBatch(ctx, tx, "mark seen", seenColumns, rows,
				`SELECT id FROM hosts WHERE id IN (SELECT host_id FROM v) ORDER BY id FOR NO KEY UPDATE`); err != nil {
				return err
			}
		}
		return d.execBatch(ctx, tx, "mark seen", seenColumns, rows,
			`UPDATE hosts SET last_seen_at = `+laterOf("last_seen_at", "v.at")+`,
			 last_online_at = CASE WHEN status = 'banned' THEN last_online_at ELSE `+laterOf("last_online_at", "v.at")+` END,
			 status = CASE WHEN status = 'banned' THEN status ELSE 'online' END
			 FROM v WHERE hosts.id = v.host_id AND hosts.deleted_at IS NULL`)
	})
}

var seenColumns = []column{{"host_id", "text"}, {"at", "timestamptz"}}

// SweepStatus moves silent hosts on, in one transaction: online or stale
// hosts last seen before offlineBefore to offline, then online hosts last
// seen before staleBefore to stale. Pending and banned hosts stay.
//
// With row locks the rows are locked in id order first, as MarkSeen takes
// them: a sweep that locked in scan order deadlocked other instances'
// liveness flushes under a large fleet (docs/performance.md), and the
// flush that lost had to wait for the next interval.
func (s Hosts) SweepStatus(ctx context.Context, staleBefore, offlineBefore time.Time) error {
	d := s.d
	return d.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE hosts SET status = 'offline' WHERE `+
			d.lockedInIDOrder(`status IN ('online', 'stale') AND last_seen_at < $1 AND deleted_at IS NULL`),
			d.timeArg(offlineBefore)); err != nil {
			return d.errorf("sweep offline hosts", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE hosts SET status = 'stale' WHERE `+
			d.lockedInIDOrder(`status = 'online' AND last_seen_at < $1 AND deleted_at IS NULL`),
			d.timeArg(staleBefore)); err != nil {
			return d.errorf("sweep stale hosts", err)
		}
		return nil
	})
}

// lockedInIDOrder is the condition cond of an UPDATE of hosts, taking the
// row locks in id order where the engine has them. NO KEY UPDATE is the
// lock the UPDATE itself takes: it waits for other updates of the hosts,
// but not for the key-share locks that batches of metrics and events take
// on their hosts (in no particular order) through their foreign keys.
func (d *DB) lockedInIDOrder(cond string) string {
	if !d.dialect.RowLocks {
		return cond
	}
	return cond + ` AND id IN (SELECT id FROM hosts WHERE ` + cond + ` ORDER BY id FOR NO KEY UPDATE)`
}

// ListHosts returns a page of matching undeleted hosts with their owners'
// emails, in f's order, and the count of all matches, from one snapshot.
func (s Hosts) ListHosts(ctx context.Context, f hosts.Filter, p paging.Page) ([]hosts.AdminHost, int, error) {
	d := s.d
	field, desc, ok := f.Sort.Field()
	column, known := adminHostColumns[field]
	if !ok || !known {
		return nil, 0, fmt.Errorf("%s: list hosts: unknown sort %q", d.dialect.Name, f.Sort)
	}
	_, bare, _ := strings.Cut(column, ".")
	order := keyOrder{Col: column, ColKind: hostSortKinds[bare], Nullable: field == "last_seen_at", Tie: "h.id", Desc: desc}
	from, w := d.hostWhere(f)
	return listPage(ctx, d, "hosts", hostColsOf+", u.email", from, w,
		order, p, func(r rowScanner) (hosts.AdminHost, error) {
			var a hosts.AdminHost
			var err error
			a.Host, err = scanHost(r, &a.UserEmail)
			return a, err
		})
}

// adminHostColumns is the column of each field of hosts.AdminSortFields,
// in the join of hosts h and users u.
var adminHostColumns = map[string]string{
	"name": "h.name", "created_at": "h.created_at", "last_seen_at": "h.last_seen_at",
	"status": "h.status", "agent_version": "h.installed_version", "user_email": "u.email",
}

// hostWhere is the table of undeleted hosts h joined with their owners u,
// and the filter over it. With a query the table is the hosts that match
// it: a literal part (or start) of a column, through the search indexes
// (search.go); hostConds has the rest, and tagConds the tags.
func (d *DB) hostWhere(f hosts.Filter) (string, where) {
	var w where
	from := "hosts h JOIN users u ON u.id = h.user_id"
	if f.Query != "" {
		from = d.hostMatches(&w, f.Query, f.QueryPrefix)
	} else {
		w.addSQL(`h.deleted_at IS NULL`)
	}
	hostConds(&w, "h.", f.Statuses, f.OS, f.AgentVersion)
	ownerArg := ""
	if f.UserID != "" {
		ownerArg = w.arg(f.UserID)
		w.addSQL(`h.user_id = ` + ownerArg)
	}
	tagConds(&w, "h.id", ownerArg, f.Tags)
	return from, w
}

// allStatuses are the statuses CountHosts always reports.
var allStatuses = []hosts.Status{
	hosts.StatusPending, hosts.StatusOnline, hosts.StatusStale, hosts.StatusOffline, hosts.StatusBanned,
}

// CountHosts counts undeleted hosts by status; every status is present,
// zero when no host has it.
func (s Hosts) CountHosts(ctx context.Context) (map[hosts.Status]int, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx, `SELECT status, count(*) FROM hosts WHERE deleted_at IS NULL GROUP BY status`)
	if err != nil {
		return nil, d.errorf("count hosts", err)
	}
	type count struct {
		status hosts.Status
		n      int
	}
	counts, err := collect(rows, func(r rowScanner) (count, error) {
		var c count
		return c, r.Scan((*string)(&c.status), &c.n)
	})
	if err != nil {
		return nil, d.errorf("count hosts", err)
	}
	out := make(map[hosts.Status]int, len(allStatuses))
	for _, s := range allStatuses {
		out[s] = 0
	}
	for _, c := range counts {
		out[c.status] = c.n
	}
	return out, nil
}

// trimHistory deletes the host's rows of table beyond the newest keep, by
// (at, seq): it finds the newest row to go and deletes it and every older
// one, one index range. keep < 1 trims nothing.
func (d *DB) trimHistory(ctx context.Context, tx *sql.Tx, table, hostID string, keep int) error {
	if keep < 1 {
		return nil
	}
	_, err := tx.ExecContext(ctx,
		`DELETE FROM `+table+` WHERE host_id = $1 AND (at, seq) <= (
			SELECT at, seq FROM `+table+` WHERE host_id = $1 ORDER BY at DESC, seq DESC LIMIT 1 OFFSET $2)`,
		hostID, int64(keep))
	if err != nil {
		return d.errorf("trim "+table, err)
	}
	return nil
}

// AppendMetrics stores the batch's samples of undeleted hosts in one
// transaction (others are skipped), and cuts the history of each host
// whose sample asks for it to the newest keep samples (keep < 1: all).
func (s Hosts) AppendMetrics(ctx context.Context, batch []hosts.Sample, keep int) error {
	d := s.d
	if len(batch) == 0 {
		return nil
	}
	rows := make([][]any, len(batch))
	for i, s := range batch {
		rows[i] = []any{int64(i), s.HostID, d.timeArg(s.At), s.CPUPct, s.MemPct, s.DiskPct, s.NetRxBps, s.NetTxBps, s.TCPConns, s.UptimeS}
	}
	return d.withTx(ctx, func(tx *sql.Tx) error {
		err := d.execBatch(ctx, tx, "append metrics", sampleColumns, rows,
			`INSERT INTO host_metrics (host_id, at, cpu_pct, mem_pct, disk_pct, net_rx_bps, net_tx_bps, tcp_conns, uptime_s)
			 SELECT v.host_id, v.at, v.cpu_pct, v.mem_pct, v.disk_pct, v.net_rx_bps, v.net_tx_bps, v.tcp_conns, v.uptime_s
			 FROM v WHERE EXISTS (SELECT 1 FROM hosts h WHERE h.id = v.host_id AND h.deleted_at IS NULL) ORDER BY v.n`)
		if err != nil {
			return err
		}
		for _, s := range batch {
			if s.Trim {
				if err := d.trimHistory(ctx, tx, "host_metrics", s.HostID, keep); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// sampleColumns are a metrics sample's, after n, its place in the batch:
// samples are stored in batch order.
var sampleColumns = []column{
	{"n", "bigint"}, {"host_id", "text"}, {"at", "timestamptz"},
	{"cpu_pct", "double precision"}, {"mem_pct", "double precision"}, {"disk_pct", "double precision"},
	{"net_rx_bps", "double precision"}, {"net_tx_bps", "double precision"},
	{"tcp_conns", "bigint"}, {"uptime_s", "bigint"},
}

// ListMetrics returns up to limit newest samples of the undeleted host,
// newest first; none for an unknown or deleted host, or limit < 1.
func (s Hosts) ListMetrics(ctx context.Context, hostID string, limit int) ([]hosts.Metrics, error) {
	d := s.d
	if limit < 1 {
		return nil, nil
	}
	rows, err := d.read.QueryContext(ctx,
		`SELECT m.at, m.cpu_pct, m.mem_pct, m.disk_pct, m.net_rx_bps, m.net_tx_bps, m.tcp_conns, m.uptime_s
		 FROM host_metrics m JOIN hosts h ON h.id = m.host_id
		 WHERE m.host_id = $1 AND h.deleted_at IS NULL
		 ORDER BY m.at DESC, m.seq DESC LIMIT $2`, hostID, int64(limit))
	if err != nil {
		return nil, d.errorf("list metrics", err)
	}
	ms, err := collect(rows, func(r rowScanner) (hosts.Metrics, error) {
		var m hosts.Metrics
		return m, r.Scan(timeDest{&m.At}, &m.CPUPct, &m.MemPct, &m.DiskPct, &m.NetRxBps, &m.NetTxBps, &m.TCPConns, &m.UptimeS)
	})
	if err != nil {
		return nil, d.errorf("list metrics", err)
	}
	return ms, nil
}

// AppendEvent stores e for the undeleted host, with a new random (v4) UUID
// as its ID unless it has one, and keeps only the host's newest keep events
// (keep < 1: all); ErrNotFound for an unknown or deleted host.
func (s Hosts) AppendEvent(ctx context.Context, hostID string, e hosts.Event, keep int) error {
	d := s.d
	return d.withTx(ctx, func(tx *sql.Tx) error { return d.insertHostEvent(ctx, tx, hostID, e, keep) })
}

// insertHostEvent is AppendEvent inside tx, for changes that record an event
// in their own transaction.
// insertHostEventQuery inserts an event of an undeleted host, nothing
// for any other.
const insertHostEventQuery = `INSERT INTO host_events (id, host_id, at, kind, message)
	SELECT $2, id, $3, $4, $5 FROM hosts WHERE id = $1 AND deleted_at IS NULL`

func (d *DB) insertHostEvent(ctx context.Context, tx *sql.Tx, hostID string, e hosts.Event, keep int) error {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	res, err := tx.ExecContext(ctx, insertHostEventQuery, hostID, e.ID, d.timeArg(e.At), e.Kind, e.Message)
	if err != nil {
		return d.errorf("append event", err)
	}
	if err := affected(res, hosts.ErrNotFound); err != nil {
		return err
	}
	return d.trimHistory(ctx, tx, "host_events", hostID, keep)
}

// AppendEvents stores the batch's events of undeleted hosts in one
// transaction, in order (others are skipped), then cuts the history of
// each host one of whose events asks for it to its newest keep events
// (keep < 1: all).
func (s Hosts) AppendEvents(ctx context.Context, batch []hosts.HostEvent, keep int) error {
	d := s.d
	if len(batch) == 0 {
		return nil
	}
	rows := make([][]any, len(batch))
	trim := map[string]bool{}
	for i, e := range batch {
		id := e.ID
		if id == "" {
			id = uuid.NewString()
		}
		rows[i] = []any{int64(i), id, e.HostID, d.timeArg(e.At), e.Kind, e.Message}
		if e.Trim {
			trim[e.HostID] = true
		}
	}
	return d.withTx(ctx, func(tx *sql.Tx) error {
		err := d.execBatch(ctx, tx, "append events", eventColumns, rows,
			`INSERT INTO host_events (id, host_id, at, kind, message)
			 SELECT v.id, v.host_id, v.at, v.kind, v.message
			 FROM v WHERE EXISTS (SELECT 1 FROM hosts h WHERE h.id = v.host_id AND h.deleted_at IS NULL) ORDER BY v.n`)
		if err != nil {
			return err
		}
		// In host order, so that instances trimming overlapping batches
		// take their locks in the same order.
		for _, hostID := range slices.Sorted(maps.Keys(trim)) {
			if err := d.trimHistory(ctx, tx, "host_events", hostID, keep); err != nil {
				return err
			}
		}
		return nil
	})
}

// eventColumns are a host event's, after n, its place in the batch.
var eventColumns = []column{{"n", "bigint"}, {"id", "text"}, {"host_id", "text"}, {"at", "timestamptz"}, {"kind", "text"}, {"message", "text"}}

// ListEvents returns up to limit newest events of the undeleted host,
// newest first; none for an unknown or deleted host, or limit < 1.
func (s Hosts) ListEvents(ctx context.Context, hostID string, limit int) ([]hosts.Event, error) {
	d := s.d
	if limit < 1 {
		return nil, nil
	}
	rows, err := d.read.QueryContext(ctx,
		`SELECT e.id, e.at, e.kind, e.message
		 FROM host_events e JOIN hosts h ON h.id = e.host_id
		 WHERE e.host_id = $1 AND h.deleted_at IS NULL
		 ORDER BY e.at DESC, e.seq DESC LIMIT $2`, hostID, int64(limit))
	if err != nil {
		return nil, d.errorf("list events", err)
	}
	es, err := collect(rows, func(r rowScanner) (hosts.Event, error) {
		var e hosts.Event
		return e, r.Scan(&e.ID, timeDest{&e.At}, &e.Kind, &e.Message)
	})
	if err != nil {
		return nil, d.errorf("list events", err)
	}
	return es, nil
}

// CountOwnedHosts implements hosts.Store: the owner's row of host_counts
// (0013), which triggers keep.
func (s Hosts) CountOwnedHosts(ctx context.Context, owner string) (int, error) {
	d := s.d
	var n int
	err := d.read.QueryRowContext(ctx, `SELECT COALESCE(max(n), 0) FROM host_counts WHERE user_id = $1`, owner).Scan(&n)
	if err != nil {
		return 0, d.errorf("count owned hosts", err)
	}
	return n, nil
}

// CountByVersion implements hosts.Store: one grouped query over
// hosts_agent_version_status (0016).
func (s Hosts) CountByVersion(ctx context.Context, only []string, limit int) ([]hosts.VersionCount, error) {
	d := s.d
	var w where
	w.addSQL(`deleted_at IS NULL`)
	if len(only) > 0 {
		marks := make([]string, len(only))
		for i, v := range only {
			w.args = append(w.args, v)
			marks[i] = fmt.Sprintf("$%d", len(w.args))
		}
		w.addSQL(`installed_version IN (` + strings.Join(marks, ", ") + `)`)
	}
	args := append(w.args, int64(max(limit, 1)))
	rows, err := d.read.QueryContext(ctx, `SELECT installed_version, count(*),
			COALESCE(SUM(CASE WHEN status = 'online' THEN 1 ELSE 0 END), 0)
		FROM hosts`+w.sql()+` GROUP BY installed_version
		ORDER BY count(*) DESC, installed_version LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, d.errorf("count hosts by version", err)
	}
	out, err := collect(rows, func(r rowScanner) (hosts.VersionCount, error) {
		var v hosts.VersionCount
		return v, r.Scan(&v.Version, &v.Hosts, &v.Online)
	})
	if err != nil {
		return nil, d.errorf("count hosts by version", err)
	}
	return out, nil
}

// CountEvents implements hosts.Store over host_events_host_newest.
func (s Hosts) CountEvents(ctx context.Context, hostID string, kinds []string, since time.Time) (map[string]int, error) {
	d := s.d
	out := make(map[string]int, len(kinds))
	args := []any{hostID, d.timeArg(since)}
	marks := make([]string, len(kinds))
	for i, k := range kinds {
		out[k] = 0
		args = append(args, k)
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	if len(kinds) == 0 {
		return out, nil
	}
	rows, err := d.read.QueryContext(ctx, `SELECT kind, count(*) FROM host_events
		WHERE host_id = $1 AND at >= $2 AND kind IN (`+strings.Join(marks, ", ")+`) GROUP BY kind`, args...)
	if err != nil {
		return nil, d.errorf("count host events", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, d.errorf("count host events", err)
		}
		out[k] = n
	}
	if err := rows.Err(); err != nil {
		return nil, d.errorf("count host events", err)
	}
	return out, nil
}
