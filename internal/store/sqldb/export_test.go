package sqldb

import (
	"strings"

	"hostgate/internal/accounts"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
)

// The queries of the searched lists, as the stores run them (the page;
// the total counts the same rows), for the plan tests.

func AdminHostsQuery(d *DB, f hosts.Filter) (string, []any) {
	from, w := d.hostWhere(f)
	return `SELECT ` + hostColsOf + `, u.email FROM ` + from + w.sql() +
		` ORDER BY h.created_at DESC, h.id DESC LIMIT 50`, w.args
}

func OwnedHostsQuery(d *DB, owner string, f hosts.OwnedFilter) (string, []any) {
	from, w := d.ownedSource(owner, f)
	return `SELECT ` + hostCols + ` FROM ` + from + w.sql() + ` ORDER BY created_at DESC, id DESC LIMIT 50`, w.args
}

func UsersQuery(d *DB, f accounts.UserFilter) (string, []any) {
	from, w := d.userWhere(f)
	return `SELECT ` + userCols + ` FROM ` + from + w.sql() + ` ORDER BY created_at DESC, id DESC LIMIT 50`, w.args
}

func SelectHostsQuery(d *DB, owner string, f hosts.OwnedFilter) (string, []any) {
	return d.selectOwnedQuery(owner, f, 100_001)
}

// CandidatesQuery is the query of a job's next queued runs (Jobs.Candidates).
func CandidatesQuery(jobID string, maxWave, limit int) (string, []any) {
	return `SELECT ` + runCols + ` FROM job_runs WHERE ` + candidatesCond, []any{jobID, int64(maxWave), int64(limit)}
}

// OwnedPageQuery is the query of an owner's unfiltered host page in
// sort's order after the key k, as PageOwnedHosts runs it.
func OwnedPageQuery(d *DB, owner string, sort hosts.Sort, k paging.Key) (string, []any, error) {
	o, _ := sort.Order()
	_, w := d.ownedSource(owner, hosts.OwnedFilter{Sort: sort})
	q, args, _, err := d.pageQuery(hostCols, "hosts", w, ownedOrder(o), paging.Page{Limit: 50, Keyset: &paging.Keyset{After: k}})
	return q, args, err
}

// AdminPageQuery is the query of the admin host page in f's order after
// the key k, as ListHosts runs it.
func AdminPageQuery(d *DB, f hosts.Filter, k paging.Key) (string, []any, error) {
	field, desc, _ := f.Sort.Field()
	column := adminHostColumns[field]
	_, bare, _ := strings.Cut(column, ".")
	o := keyOrder{Col: column, ColKind: hostSortKinds[bare], Nullable: field == "last_seen_at", Tie: "h.id", Desc: desc}
	from, w := d.hostWhere(f)
	q, args, _, err := d.pageQuery(hostColsOf+", u.email", from, w, o, paging.Page{Limit: 50, Keyset: &paging.Keyset{After: k}})
	return q, args, err
}
