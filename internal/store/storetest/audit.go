package storetest

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var auditTests = []test{
	{"AppendFillsIDAndTime", testAppendFills},
	{"AppendKeepsIDAndTime", testAppendKeeps},
	{"DetailRoundTrip", testAuditDetail},
	{"ListAudit", testListAudit},
}

func page(limit, offset int) paging.Page { return paging.Page{Limit: limit, Offset: offset} }

// entry is an entry as audit.Actor.Entry builds it: no ID, no time.
func entry(adminID, action, targetType string) audit.Entry {
	actor := audit.Actor{AdminID: adminID, Role: "owner", RequestID: "req-" + newID(), ClientIP: "192.0.2.7"}
	return actor.Entry(action, targetType, "target-"+newID())
}

func auditFilter(adminID, action, targetType string) audit.Filter {
	return audit.Filter{AdminID: adminID, Action: action, TargetType: targetType}
}

// checkEntry compares everything but ID and CreatedAt, and Detail as JSON
// values: PostgreSQL's jsonb keeps the value, not the spelling.
func checkEntry(t *testing.T, got, want audit.Entry) {
	t.Helper()
	g, w := got, want
	g.ID, g.CreatedAt, g.Detail, w.ID, w.CreatedAt, w.Detail = "", time.Time{}, nil, "", time.Time{}, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("entry: got %+v, want %+v", g, w)
	}
	if !sameJSON(t, got.Detail, want.Detail) {
		t.Errorf("entry detail: got %s, want %s", got.Detail, want.Detail)
	}
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("detail %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("detail %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// checkOneAudit checks that the store holds exactly rec, created at.
func checkOneAudit(t *testing.T, s store.Store, rec audit.Entry, at time.Time) {
	t.Helper()
	entries, total, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, page(50, 0))
	must(t, "ListAudit", err)
	if total != 1 || len(entries) != 1 {
		t.Fatalf("audit rows: got %d (total %d), want 1", len(entries), total)
	}
	checkEntry(t, entries[0], rec)
	checkTime(t, "audit CreatedAt", entries[0].CreatedAt, at)
	if _, err := uuid.Parse(entries[0].ID); err != nil {
		t.Errorf("audit ID %q: %v, want a UUID", entries[0].ID, err)
	}
}

func testAppendFills(t *testing.T, s store.Store) {
	e := entry("admin-1", audit.ActionHostTerminalOpen, "host")
	before := time.Now()
	must(t, "AppendAudit", s.Audit.AppendAudit(t.Context(), e))
	after := time.Now()
	entries, _, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, page(50, 0))
	must(t, "ListAudit", err)
	if len(entries) != 1 {
		t.Fatalf("entries: got %d, want 1", len(entries))
	}
	got := entries[0]
	checkEntry(t, got, e)
	if _, err := uuid.Parse(got.ID); err != nil {
		t.Errorf("ID %q: %v, want a UUID", got.ID, err)
	}
	if got.CreatedAt.Before(stored(before)) || got.CreatedAt.After(after) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt: got %v, want UTC between %v and %v", got.CreatedAt, before, after)
	}
}

func testAppendKeeps(t *testing.T, s store.Store) {
	e := entry("admin-1", audit.ActionHostDelete, "host")
	e.ID, e.CreatedAt = newID(), t0
	must(t, "AppendAudit", s.Audit.AppendAudit(t.Context(), e))
	entries, _, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, page(50, 0))
	must(t, "ListAudit", err)
	if len(entries) != 1 || entries[0].ID != e.ID {
		t.Fatalf("entries: got %+v, want one with ID %s", entries, e.ID)
	}
	checkTime(t, "CreatedAt", entries[0].CreatedAt, t0)
}

func testAuditDetail(t *testing.T, s store.Store) {
	for _, c := range []struct {
		name   string
		detail json.RawMessage
	}{
		{"none", nil},
		{"object", json.RawMessage(`{"b": [1, 2.5, "x"], "a": {"nested": true}, "unicode": "é\u2028"}`)},
		{"from WithDetail", audit.Entry{}.WithDetail(map[string]any{"from": "active", "to": "suspended"}).Detail},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := entry("admin-"+c.name, audit.ActionUserSuspend, "user")
			e.Detail = c.detail
			must(t, "AppendAudit", s.Audit.AppendAudit(t.Context(), e))
			entries, _, err := s.Audit.ListAudit(t.Context(), auditFilter(e.AdminID, "", ""), page(50, 0))
			must(t, "ListAudit", err)
			if len(entries) != 1 {
				t.Fatalf("entries: got %d, want 1", len(entries))
			}
			checkEntry(t, entries[0], e)
		})
	}
}

func testListAudit(t *testing.T, s store.Store) {
	var seed []audit.Entry
	add := func(adminID, action, targetType string, at time.Time) {
		e := entry(adminID, action, targetType)
		e.ID, e.CreatedAt = newID(), at
		must(t, "AppendAudit", s.Audit.AppendAudit(t.Context(), e))
		seed = append(seed, e)
	}
	add("a1", audit.ActionUserSuspend, "user", t0.Add(1*time.Minute))
	add("a2", audit.ActionUserResume, "user", t0.Add(2*time.Minute))
	add("a1", audit.ActionHostDelete, "host", t0.Add(3*time.Minute))
	add("a1", audit.ActionUserSuspend, "user", t0.Add(4*time.Minute))
	add("a2", audit.ActionHostDelete, "host", t0.Add(5*time.Minute))
	ids := func(i ...int) []string { // seed ids by index
		var out []string
		for _, j := range i {
			out = append(out, seed[j].ID)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		filter audit.Filter
		page   paging.Page
		want   []string
		total  int
	}{
		{"all, newest first", auditFilter("", "", ""), page(50, 0), ids(4, 3, 2, 1, 0), 5},
		{"admin", auditFilter("a1", "", ""), page(50, 0), ids(3, 2, 0), 3},
		{"action", auditFilter("", audit.ActionHostDelete, ""), page(50, 0), ids(4, 2), 2},
		{"target type", auditFilter("", "", "user"), page(50, 0), ids(3, 1, 0), 3},
		{"all filters", auditFilter("a1", audit.ActionUserSuspend, "user"), page(50, 0), ids(3, 0), 2},
		{"page", auditFilter("", "", ""), page(2, 2), ids(2, 1), 5},
		{"page past the end", auditFilter("", "", ""), page(2, 5), nil, 5},
		{"no match", auditFilter("nobody", "", ""), page(50, 0), nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, total, err := s.Audit.ListAudit(t.Context(), c.filter, c.page)
			must(t, "ListAudit", err)
			var gotIDs []string
			for _, e := range got {
				gotIDs = append(gotIDs, e.ID)
			}
			if !slices.Equal(gotIDs, c.want) {
				t.Errorf("entries: got %v, want %v", gotIDs, c.want)
			}
			if total != c.total {
				t.Errorf("total: got %d, want %d", total, c.total)
			}
		})
	}
}
