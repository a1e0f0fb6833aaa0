package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

// Keyset paging (paging.Keyset): walking a list page by page through the
// key each page reports gives every item once, in the list's order, for
// every order, with ties; a key that does not fit the order is
// invalid_cursor.
var keysetTests = []test{
	{"owner's hosts: every order walked by key", testKeysetOwnedHosts},
	{"owner's hosts: inserts during a walk are no duplicates", testKeysetConcurrentInserts},
	{"owner's hosts by tag: walked by key", testKeysetTaggedHosts},
	{"admin hosts: every order walked by key", testKeysetAdminHosts},
	{"users and audit: walked by key", testKeysetUsersAudit},
	{"deliveries (by seq) and billing events: walked by key", testKeysetDeliveriesEvents},
	{"a key that does not fit the order is invalid_cursor", testKeysetBadKey},
}

// walk reads a whole list page by page, each page after the key the one
// before reported, carried through a cursor's encoding as a client
// carries it; between runs after each page. Only the last page may be
// short, and only the last has no next key.
func walk[T any](t *testing.T, what string, limit int, list func(paging.Page) ([]T, int, error), between func()) []T {
	t.Helper()
	var out []T
	var after paging.Key
	for range 1000 {
		ks := &paging.Keyset{Bind: 7, After: after}
		items, _, err := list(paging.Page{Limit: limit, Keyset: ks})
		must(t, what, err)
		out = append(out, items...)
		if ks.Next == nil {
			return out
		}
		if len(items) != limit {
			t.Fatalf("%s: a page of %d items, of %d, has a next key", what, len(items), limit)
		}
		after, err = paging.DecodeCursor(paging.EncodeCursor(ks.Bind, ks.Next), ks.Bind)
		must(t, what+": the next key's cursor", err)
		if between != nil {
			between()
		}
	}
	t.Fatalf("%s: the walk does not end", what)
	return nil
}

// keysetFleet is 13 hosts of a new owner with ties in every order: names
// in pairs, creation times in threes, seen times in pairs and five never
// seen; and a host of another owner.
func keysetFleet(t *testing.T, s store.Store) (ann string, all []hosts.Host) {
	ann = owner(t, s, "ann@example.com")
	bob := owner(t, s, "bob@example.com")
	for i := range 13 {
		h := createHost(t, s, newHost(ann, fmt.Sprintf("node-%d", i/2), t0.Add(time.Duration(i/3)*time.Minute)))
		if i%3 != 0 && i < 10 {
			must(t, "RecordHandshake", s.Hosts.RecordHandshake(t.Context(), h.ID, "203.0.113.1", "linux",
				fmt.Sprintf("1.0.%d", i%2), t0.Add(time.Duration(i/2)*time.Second)))
		}
		all = append(all, h)
	}
	createHost(t, s, newHost(bob, "node-0", t0))
	return ann, all
}

// checkWalk fails unless got is want, item for item.
func checkWalk(t *testing.T, what string, got, want []string, total int) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: walked %v, want %v", what, got, want)
	}
	if len(want) != total {
		t.Errorf("%s: %d items, total %d", what, len(want), total)
	}
}

func testKeysetOwnedHosts(t *testing.T, s store.Store) {
	ann, all := keysetFleet(t, s)
	for _, o := range hosts.SortOrders {
		f := hosts.OwnedFilter{Sort: o.Sort}
		want, total, err := s.Hosts.PageOwnedHosts(t.Context(), ann, f, paging.Page{Limit: 200})
		must(t, "PageOwnedHosts", err)
		if len(want) != len(all) {
			t.Fatalf("%s: %d hosts by offset, want %d", o.Sort, len(want), len(all))
		}
		for _, limit := range []int{1, 2, 5, 13, 50} {
			got := walk(t, string(o.Sort), limit, func(p paging.Page) ([]hosts.Host, int, error) {
				return s.Hosts.PageOwnedHosts(t.Context(), ann, f, p)
			}, nil)
			checkWalk(t, fmt.Sprintf("%s by %d", o.Sort, limit), hostIDs(got), hostIDs(want), total)
		}
		// A filtered list (its total counted apart) walks the same way.
		f.Status = hosts.StatusOnline
		want, total, err = s.Hosts.PageOwnedHosts(t.Context(), ann, f, paging.Page{Limit: 200})
		must(t, "PageOwnedHosts online", err)
		got := walk(t, string(o.Sort)+" online", 2, func(p paging.Page) ([]hosts.Host, int, error) {
			return s.Hosts.PageOwnedHosts(t.Context(), ann, f, p)
		}, nil)
		checkWalk(t, string(o.Sort)+" online", hostIDs(got), hostIDs(want), total)
	}
	// An offset page reports the key after it too: a client may start at
	// any offset and walk on.
	ks := &paging.Keyset{}
	first, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: hosts.SortName}, paging.Page{Limit: 3, Offset: 4, Keyset: ks})
	must(t, "PageOwnedHosts offset", err)
	rest, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: hosts.SortName}, paging.Page{Limit: 3, Keyset: &paging.Keyset{After: ks.Next}})
	must(t, "PageOwnedHosts after an offset page", err)
	byOffset, _, _ := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: hosts.SortName}, paging.Page{Limit: 6, Offset: 4})
	if got, want := hostIDs(append(first, rest...)), hostIDs(byOffset); !slices.Equal(got, want) {
		t.Errorf("offset 4 then by key: %v, want %v", got, want)
	}
	// The last page has no next key, even when it is full.
	ks = &paging.Keyset{}
	if _, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{}, paging.Page{Limit: 13, Keyset: ks}); err != nil || ks.Next != nil {
		t.Errorf("a full last page: next key %v (error %v), want none", ks.Next, err)
	}
}

// testKeysetConcurrentInserts: hosts created during a walk, before and
// after its position, never repeat a host already seen, and every host
// there at the start is seen once.
func testKeysetConcurrentInserts(t *testing.T, s store.Store) {
	ann, all := keysetFleet(t, s)
	for _, sort := range []hosts.Sort{hosts.SortNewest, hosts.SortCreated, hosts.SortName, hosts.SortLastSeenDesc} {
		n := 0
		got := walk(t, string(sort), 3, func(p paging.Page) ([]hosts.Host, int, error) {
			return s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: sort}, p)
		}, func() {
			n++
			// One sorting first and one last in every order.
			createHost(t, s, newHost(ann, "a-new", t0.Add(-time.Hour)))
			createHost(t, s, newHost(ann, fmt.Sprintf("z-new-%s-%d", sort, n), t0.Add(time.Hour)))
		})
		seen := map[string]int{}
		for _, h := range got {
			seen[h.ID]++
		}
		for id, c := range seen {
			if c > 1 {
				t.Errorf("%s: host %s seen %d times in one walk", sort, id, c)
			}
		}
		for _, h := range all {
			if seen[h.ID] != 1 {
				t.Errorf("%s: host %s (there before the walk) seen %d times", sort, h.Name, seen[h.ID])
			}
		}
	}
}

func testKeysetTaggedHosts(t *testing.T, s store.Store) {
	ann, all := keysetFleet(t, s)
	must(t, "tag", s.Hosts.Tx(t.Context(), func(tx hosts.Tx) error {
		for i, h := range all {
			if i%4 != 3 {
				if err := tx.ReplaceTags(t.Context(), ann, h.ID, hosts.Tags{"env": "prod"}); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	for _, o := range hosts.SortOrders {
		f := hosts.OwnedFilter{Sort: o.Sort, TagExprs: exprs(t, "env=prod")}
		want, total, err := s.Hosts.PageOwnedHosts(t.Context(), ann, f, paging.Page{Limit: 200})
		must(t, "PageOwnedHosts by tag", err)
		if len(want) != 10 {
			t.Fatalf("%s by tag: %d hosts, want 10", o.Sort, len(want))
		}
		for _, limit := range []int{1, 3} {
			got := walk(t, string(o.Sort)+" by tag", limit, func(p paging.Page) ([]hosts.Host, int, error) {
				return s.Hosts.PageOwnedHosts(t.Context(), ann, f, p)
			}, nil)
			checkWalk(t, fmt.Sprintf("%s by tag, by %d", o.Sort, limit), hostIDs(got), hostIDs(want), total)
		}
	}
}

func testKeysetAdminHosts(t *testing.T, s store.Store) {
	keysetFleet(t, s)
	for _, sort := range hosts.AdminSorts {
		for _, f := range []hosts.Filter{{Sort: hosts.AdminSort(sort)}, {Sort: hosts.AdminSort(sort), Query: "node"}} {
			want, total, err := s.Hosts.ListHosts(t.Context(), f, paging.Page{Limit: 200})
			must(t, "ListHosts", err)
			if len(want) != 14 {
				t.Fatalf("%s: %d hosts, want 14", sort, len(want))
			}
			got := walk(t, sort, 3, func(p paging.Page) ([]hosts.AdminHost, int, error) {
				return s.Hosts.ListHosts(t.Context(), f, p)
			}, nil)
			checkWalk(t, fmt.Sprintf("admin %s q=%q", sort, f.Query), adminIDs(got), adminIDs(want), total)
		}
	}
}

func adminIDs(hs []hosts.AdminHost) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func testKeysetUsersAudit(t *testing.T, s store.Store) {
	for i := range 9 {
		createUser(t, s, newUser(fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("User %d", i/3), t0.Add(time.Duration(i/2)*time.Minute)))
	}
	for _, sort := range accounts.UserSorts {
		f := accounts.UserFilter{Sort: accounts.UserSort(sort)}
		want, total, err := s.Accounts.ListUsers(t.Context(), f, paging.Page{Limit: 200})
		must(t, "ListUsers", err)
		got := walk(t, sort, 2, func(p paging.Page) ([]accounts.User, int, error) {
			return s.Accounts.ListUsers(t.Context(), f, p)
		}, nil)
		checkWalk(t, "users "+sort, userIDs(got), userIDs(want), total)
	}
	for i := range 7 {
		e := entry("a1", audit.ActionUserSuspend, "user")
		e.CreatedAt = t0.Add(time.Duration(i/2) * time.Second)
		must(t, "AppendAudit", s.Audit.AppendAudit(t.Context(), e))
	}
	want, total, err := s.Audit.ListAudit(t.Context(), audit.Filter{}, paging.Page{Limit: 200})
	must(t, "ListAudit", err)
	got := walk(t, "audit", 3, func(p paging.Page) ([]audit.Entry, int, error) {
		return s.Audit.ListAudit(t.Context(), audit.Filter{}, p)
	}, nil)
	ids := func(es []audit.Entry) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.ID
		}
		return out
	}
	checkWalk(t, "audit", ids(got), ids(want), total)
}

func testKeysetDeliveriesEvents(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	for range 7 {
		must(t, "EnqueueDelivery", s.Deliveries.EnqueueDelivery(t.Context(), userDelivery(ann, t0)))
	}
	want, total, err := s.Deliveries.ListUserDeliveries(t.Context(), ann, paging.Page{Limit: 200})
	must(t, "ListUserDeliveries", err)
	got := walk(t, "deliveries", 3, func(p paging.Page) ([]deliveries.Delivery, int, error) {
		return s.Deliveries.ListUserDeliveries(t.Context(), ann, p)
	}, nil)
	ids := func(ds []deliveries.Delivery) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.ID
		}
		return out
	}
	checkWalk(t, "deliveries", ids(got), ids(want), total)
	if len(want) != 7 {
		t.Errorf("deliveries: %d, want 7", len(want))
	}

	user := fund(t, s, 100_000)
	for range 5 {
		_, err := charge(s, t, user, billing.RuleDir) // the same time: ties broken by id
		must(t, "charge", err)
	}
	wantEv, total, err := s.Billing.ListBillingEvents(t.Context(), user, paging.Page{Limit: 200})
	must(t, "ListBillingEvents", err)
	gotEv := walk(t, "billing events", 2, func(p paging.Page) ([]billing.Event, int, error) {
		return s.Billing.ListBillingEvents(t.Context(), user, p)
	}, nil)
	evIDs := func(es []billing.Event) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.ID
		}
		return out
	}
	checkWalk(t, "billing events", evIDs(gotEv), evIDs(wantEv), total)
}

func userIDs(us []accounts.User) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.ID
	}
	return out
}

func testKeysetBadKey(t *testing.T, s store.Store) {
	ann, _ := keysetFleet(t, s)
	bad := []struct {
		sort hosts.Sort
		key  paging.Key
	}{
		{hosts.SortName, paging.Key{"node-1"}},                       // too short
		{hosts.SortName, paging.Key{t0, "x"}},                        // a time for a name
		{hosts.SortNewest, paging.Key{"2025-01-01", "x"}},            // text for a time
		{hosts.SortNewest, paging.Key{nil, "x"}},                     // NULL for a column never NULL
		{hosts.SortName, paging.Key{"node-1", int64(4)}},             // a number for an id
		{hosts.SortName, paging.Key{"node-1", "x", "y"}},             // too long
		{hosts.SortLastSeen, paging.Key{t0, nil}},                    // NULL for the id
		{hosts.SortLastSeenDesc, paging.Key{int64(1), "00000000-0"}}, // a number for a time
	}
	for _, c := range bad {
		_, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: c.sort}, paging.Page{Limit: 5, Keyset: &paging.Keyset{After: c.key}})
		if !apperr.Is(err, paging.CodeInvalidCursor) {
			t.Errorf("%s after %v: error %v, want invalid_cursor", c.sort, c.key, err)
		}
	}
	// A key past every host is an empty last page; a NULL where NULLs sort
	// is a position like any other.
	ks := &paging.Keyset{After: paging.Key{"zzz", "zzz"}}
	got, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: hosts.SortName}, paging.Page{Limit: 5, Keyset: ks})
	if err != nil || len(got) != 0 || ks.Next != nil {
		t.Errorf("after the last name: %d hosts, next %v, error %v; want none", len(got), ks.Next, err)
	}
	if _, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: hosts.SortLastSeen}, paging.Page{Limit: 5, Keyset: &paging.Keyset{After: paging.Key{nil, ""}}}); err != nil {
		t.Errorf("after a never-seen host: %v", err)
	}
}
