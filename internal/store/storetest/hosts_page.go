package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

// pageFleet is one owner's hosts for the PageOwnedHosts tests, by name,
// created a minute apart in this order; bravo and delta have been seen.
var pageFleet = []string{"alpha", "bravo", "charlie", "delta", "echo-bravo"}

// seedPageFleet stores pageFleet for a new owner, plus a deleted host of
// that owner and a host of another owner whose names both match "bravo".
func seedPageFleet(t *testing.T, s store.Store) (ann string, byName map[string]hosts.Host, bobs hosts.Host) {
	ctx := t.Context()
	ann = owner(t, s, "ann@example.com")
	bob := owner(t, s, "bob@example.com")
	byName = map[string]hosts.Host{}
	for i, name := range pageFleet {
		byName[name] = createHost(t, s, newHost(ann, name, t0.Add(time.Duration(i)*time.Minute)))
	}
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, byName["bravo"].ID, "203.0.113.1", "linux", "1.0.0", t0.Add(10*time.Minute)))
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, byName["delta"].ID, "203.0.113.2", "linux", "1.0.0", t0.Add(5*time.Minute)))
	gone := createHost(t, s, newHost(ann, "bravo-gone", t0.Add(time.Hour)))
	must(t, "DeleteHost", hosts.DeleteHost(ctx, s.Hosts, ann, gone.ID, t0.Add(time.Hour), nil))
	bobs = createHost(t, s, newHost(bob, "bravo-bob", t0.Add(time.Hour)))
	return ann, byName, bobs
}

// ownedQ is the owner's filter of the query q, with its prefix rule.
func ownedQ(q string) hosts.OwnedFilter {
	return hosts.OwnedFilter{Query: q, QueryPrefix: paging.PrefixOnly(q)}
}

// idsByName sorts the hosts named by id in dir (1 or -1).
func idsByName(byName map[string]hosts.Host, dir int, names ...string) []string {
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = byName[n].ID
	}
	slices.SortFunc(ids, func(a, b string) int { return dir * strings.Compare(a, b) })
	return ids
}

func namesOf(byName map[string]hosts.Host, names ...string) []string {
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = byName[n].ID
	}
	return ids
}

func testPageOwnedHosts(t *testing.T, s store.Store) {
	ann, byName, bobs := seedPageFleet(t, s)
	full := paging.Page{Limit: 50}
	neverAsc := idsByName(byName, 1, "alpha", "charlie", "echo-bravo")
	neverDesc := idsByName(byName, -1, "alpha", "charlie", "echo-bravo")
	cases := []struct {
		name  string
		f     hosts.OwnedFilter
		p     paging.Page
		want  []string
		total int
	}{
		{"default newest first", hosts.OwnedFilter{}, full,
			namesOf(byName, "echo-bravo", "delta", "charlie", "bravo", "alpha"), 5},
		{"-created_at", hosts.OwnedFilter{Sort: hosts.SortNewest}, full,
			namesOf(byName, "echo-bravo", "delta", "charlie", "bravo", "alpha"), 5},
		{"created_at", hosts.OwnedFilter{Sort: hosts.SortCreated}, full,
			namesOf(byName, "alpha", "bravo", "charlie", "delta", "echo-bravo"), 5},
		{"name", hosts.OwnedFilter{Sort: hosts.SortName}, full,
			namesOf(byName, "alpha", "bravo", "charlie", "delta", "echo-bravo"), 5},
		{"-name", hosts.OwnedFilter{Sort: hosts.SortNameDesc}, full,
			namesOf(byName, "echo-bravo", "delta", "charlie", "bravo", "alpha"), 5},
		{"last_seen_at: never seen first", hosts.OwnedFilter{Sort: hosts.SortLastSeen}, full,
			append(neverAsc, namesOf(byName, "delta", "bravo")...), 5},
		{"-last_seen_at: never seen last", hosts.OwnedFilter{Sort: hosts.SortLastSeenDesc}, full,
			append(namesOf(byName, "bravo", "delta"), neverDesc...), 5},
		{"q substring, any case", hosts.OwnedFilter{Query: "BRAV"}, full,
			namesOf(byName, "echo-bravo", "bravo"), 2},
		{"q exact id", hosts.OwnedFilter{Query: byName["charlie"].ID}, full,
			namesOf(byName, "charlie"), 1},
		{"q id prefix is not an id", hosts.OwnedFilter{Query: byName["charlie"].ID[:8] + "-"}, full, nil, 0},
		{"q LIKE wildcard is literal", hosts.OwnedFilter{Query: "%"}, full, nil, 0},
		{"q percent is no wildcard", ownedQ("b%o"), full, nil, 0},
		{"q underscore is no wildcard", ownedQ("br_vo"), full, nil, 0},
		{"q short: start of the name", ownedQ("Ec"), full, namesOf(byName, "echo-bravo"), 1},
		{"q short: not a part", ownedQ("ra"), full, nil, 0},
		{"q short: percent is literal", ownedQ("%"), full, nil, 0},
		{"q short and status", hosts.OwnedFilter{Query: "b", QueryPrefix: true, Status: hosts.StatusOnline}, full,
			namesOf(byName, "bravo"), 1},
		{"q another owner's name", ownedQ("bravo-bob"), full, nil, 0},
		{"q another owner's name, short", ownedQ("br"), full, namesOf(byName, "bravo"), 1},
		{"q page of matches", ownedQ("bravo"), paging.Page{Limit: 1, Offset: 1}, namesOf(byName, "bravo"), 2},
		{"q another owner's id", hosts.OwnedFilter{Query: bobs.ID}, full, nil, 0},
		{"status", hosts.OwnedFilter{Status: hosts.StatusOnline}, full,
			namesOf(byName, "delta", "bravo"), 2},
		{"status and q", hosts.OwnedFilter{Status: hosts.StatusOnline, Query: "brav"}, full,
			namesOf(byName, "bravo"), 1},
		{"status and sort", hosts.OwnedFilter{Status: hosts.StatusPending, Sort: hosts.SortName}, full,
			namesOf(byName, "alpha", "charlie", "echo-bravo"), 3},
		{"page inside", hosts.OwnedFilter{Sort: hosts.SortName}, paging.Page{Limit: 2, Offset: 1},
			namesOf(byName, "bravo", "charlie"), 5},
		{"last partial page", hosts.OwnedFilter{Sort: hosts.SortName}, paging.Page{Limit: 2, Offset: 4},
			namesOf(byName, "echo-bravo"), 5},
		{"offset at the end", hosts.OwnedFilter{}, paging.Page{Limit: 2, Offset: 5}, nil, 5},
		{"offset past the end", hosts.OwnedFilter{}, paging.Page{Limit: 200, Offset: 100_000}, nil, 5},
	}
	tested := map[hosts.Sort]bool{}
	for _, c := range cases {
		got, total, err := s.Hosts.PageOwnedHosts(t.Context(), ann, c.f, c.p)
		must(t, "PageOwnedHosts "+c.name, err)
		if g := hostIDs(got); !slices.Equal(g, c.want) || total != c.total {
			t.Errorf("PageOwnedHosts %s: got %v total %d, want %v total %d", c.name, g, total, c.want, c.total)
		}
		tested[c.f.Sort] = true
	}
	// Every order of the one table (hosts.SortOrders) has its case above.
	for _, o := range hosts.SortOrders {
		if !tested[o.Sort] {
			t.Errorf("PageOwnedHosts: no case sorts by %q", o.Sort)
		}
	}
	if _, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Sort: "bid"}, full); err == nil {
		t.Error("PageOwnedHosts sort bid: no error, want an unknown sort refused")
	}
	got, _, err := s.Hosts.PageOwnedHosts(t.Context(), ann, hosts.OwnedFilter{Query: "charlie"}, full)
	must(t, "PageOwnedHosts one host", err)
	if len(got) == 1 {
		checkHost(t, "paged host", got[0], byName["charlie"])
	}
	none, total, err := s.Hosts.PageOwnedHosts(t.Context(), newID(), hosts.OwnedFilter{}, full)
	must(t, "PageOwnedHosts of an unknown owner", err)
	if len(none) != 0 || total != 0 {
		t.Errorf("PageOwnedHosts of an unknown owner: got %d hosts total %d, want none", len(none), total)
	}
}

// testPageOwnedHostsTotal follows the unfiltered total (kept apart from the
// hosts by the store) through creates, a bid clash, deletes by the owner
// and by an admin, and a deletion refused.
func testPageOwnedHostsTotal(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	wantTotal := func(who string, want int) {
		t.Helper()
		_, total, err := s.Hosts.PageOwnedHosts(ctx, who, hosts.OwnedFilter{}, paging.Page{Limit: 1})
		must(t, "PageOwnedHosts", err)
		if total != want {
			t.Fatalf("PageOwnedHosts total: got %d, want %d", total, want)
		}
	}
	wantTotal(ann, 0)
	a := createHost(t, s, newHost(ann, "a", t0))
	b := createHost(t, s, newHost(ann, "b", t0))
	createHost(t, s, newHost(bob, "c", t0))
	clash := newHost(ann, "clash", t0)
	clash.BID = a.BID
	checkErr(t, "CreateHost with a taken bid", s.Hosts.CreateHost(ctx, clash, hosts.Secrets{SecretSealed: sealed(clash, 1)}, nil), hosts.ErrBIDTaken)
	wantTotal(ann, 2)
	must(t, "DeleteHost", hosts.DeleteHost(ctx, s.Hosts, ann, a.ID, t0, nil))
	checkErr(t, "DeleteHost again", hosts.DeleteHost(ctx, s.Hosts, ann, a.ID, t0, nil), hosts.ErrNotFound)
	checkErr(t, "DeleteHost of another owner", hosts.DeleteHost(ctx, s.Hosts, bob, b.ID, t0, nil), hosts.ErrNotFound)
	wantTotal(ann, 1)
	must(t, "DeleteHost by an admin", hosts.DeleteHost(ctx, s.Hosts, "", b.ID, t0, nil))
	wantTotal(ann, 0)
	wantTotal(bob, 1)
}
