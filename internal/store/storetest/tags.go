package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var tagTests = []test{
	{"tags are written, read in a batch and selected by expression", testTagsSelect},
	{"bulk tag changes lock only the owner's hosts", testTagsBulk},
	{"saved filters", testSavedFilters},
}

// tagFleet is ann's four hosts a minute apart, tagged, one more of ann's
// deleted and bob's tagged alike.
func tagFleet(t *testing.T, s store.Store) (ann, bob string, h []hosts.Host) {
	ctx := t.Context()
	ann, bob = owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	for i, name := range []string{"web-1", "web-2", "db-1", "bare"} {
		h = append(h, createHost(t, s, newHost(ann, name, t0.Add(time.Duration(i)*time.Minute))))
	}
	tags := []hosts.Tags{{"env": "prod", "role": "web"}, {"env": "staging", "role": "web"}, {"env": "prod", "role": "", "db": ""}, nil}
	must(t, "tag", s.Hosts.Tx(ctx, func(tx hosts.Tx) error {
		for i, tg := range tags {
			if err := tx.ReplaceTags(ctx, ann, h[i].ID, tg); err != nil {
				return err
			}
		}
		return nil
	}))
	gone := createHost(t, s, newHost(ann, "gone", t0.Add(time.Hour)))
	bobs := createHost(t, s, newHost(bob, "bobs", t0))
	must(t, "tag", s.Hosts.Tx(ctx, func(tx hosts.Tx) error {
		if err := tx.ReplaceTags(ctx, ann, gone.ID, hosts.Tags{"env": "prod"}); err != nil {
			return err
		}
		return tx.ReplaceTags(ctx, bob, bobs.ID, hosts.Tags{"env": "prod"})
	}))
	must(t, "DeleteHost", hosts.DeleteHost(ctx, s.Hosts, ann, gone.ID, t0.Add(time.Hour), nil))
	if got, err := s.Hosts.HostTags(ctx, []string{gone.ID}); err != nil || len(got) != 0 {
		t.Fatalf("a deleted host keeps its tags: %v %v", got, err)
	}
	return ann, bob, h
}

func exprs(t *testing.T, ss ...string) []hosts.TagExpr {
	t.Helper()
	out, err := hosts.ParseTagExprs(ss)
	must(t, "ParseTagExprs", err)
	return out
}

func testTagsSelect(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann, _, h := tagFleet(t, s)
	got, err := s.Hosts.HostTags(ctx, []string{h[0].ID, h[2].ID, h[3].ID})
	must(t, "HostTags", err)
	if len(got) != 2 || got[h[0].ID]["role"] != "web" || got[h[2].ID]["db"] != "" || len(got[h[2].ID]) != 3 {
		t.Errorf("HostTags = %v", got)
	}
	ids := func(hs ...int) []string {
		out := []string{}
		for _, i := range hs {
			out = append(out, h[i].ID)
		}
		return out
	}
	for _, c := range []struct {
		tags []string
		want []string
	}{
		{[]string{"env=prod"}, ids(0, 2)},
		{[]string{"role"}, ids(0, 1, 2)},
		{[]string{"role="}, ids(2)},
		{[]string{"env=prod", "role=web"}, ids(0)},
		{[]string{"db", "env=staging"}, ids()},
		{[]string{"nope"}, ids()},
	} {
		sel, err := s.Hosts.SelectOwnedHosts(ctx, ann, hosts.OwnedFilter{TagExprs: exprs(t, c.tags...)}, 10)
		must(t, "SelectOwnedHosts", err)
		if !slices.Equal(append([]string{}, sel...), c.want) {
			t.Errorf("select %v = %v, want %v (created_at order)", c.tags, sel, c.want)
		}
		page, total, err := s.Hosts.PageOwnedHosts(ctx, ann, hosts.OwnedFilter{TagExprs: exprs(t, c.tags...), Sort: hosts.SortCreated}, paging.Page{Limit: 50})
		must(t, "PageOwnedHosts", err)
		if total != len(c.want) || len(page) != len(c.want) {
			t.Errorf("page %v: %d items of %d, want %d", c.tags, len(page), total, len(c.want))
		}
	}
	for _, c := range []struct {
		sort hosts.Sort
		want string
	}{{hosts.SortNewest, h[1].ID}, {hosts.SortCreated, h[1].ID}, {hosts.SortName, h[0].ID}} {
		page, total, err := s.Hosts.PageOwnedHosts(ctx, ann, hosts.OwnedFilter{TagExprs: exprs(t, "role"), Sort: c.sort}, paging.Page{Limit: 1, Offset: 1})
		must(t, "PageOwnedHosts", err)
		if total != 3 || len(page) != 1 || page[0].ID != c.want {
			t.Errorf("role, %s, the second of 3: %v of %d, want %s", c.sort, page, total, c.want)
		}
	}
	if sel, _ := s.Hosts.SelectOwnedHosts(ctx, ann, hosts.OwnedFilter{TagExprs: exprs(t, "role")}, 2); !slices.Equal(sel, ids(0, 1)) {
		t.Errorf("limit 2: %v", sel)
	}
	// The status and OS criteria combine with tags.
	must(t, "RecordHandshake", s.Hosts.RecordHandshake(ctx, h[2].ID, "203.0.113.9", "linux 6.1", "1.2.3", t0))
	f := hosts.OwnedFilter{TagExprs: exprs(t, "env=prod"), Statuses: []hosts.Status{hosts.StatusOnline}, OS: "linux", AgentVersion: "1.2.3"}
	if sel, _ := s.Hosts.SelectOwnedHosts(ctx, ann, f, 10); !slices.Equal(sel, ids(2)) {
		t.Errorf("online linux prod: %v", sel)
	}
	if sel, _ := s.Hosts.SelectOwnedHosts(ctx, ann, hosts.OwnedFilter{None: true}, 10); len(sel) != 0 {
		t.Errorf("None selects %v", sel)
	}
	// The admin list: every owner's, or one's.
	all, total, err := s.Hosts.ListHosts(ctx, hosts.Filter{Tags: exprs(t, "env=prod")}, paging.Page{Limit: 50})
	must(t, "ListHosts", err)
	if total != 3 || len(all) != 3 {
		t.Errorf("admin env=prod: %d of %d, want ann's two and bob's", len(all), total)
	}
	if _, total, _ := s.Hosts.ListHosts(ctx, hosts.Filter{Tags: exprs(t, "env=prod"), UserID: ann}, paging.Page{Limit: 50}); total != 2 {
		t.Errorf("admin env=prod of ann: %d", total)
	}
	counts, total, err := s.Hosts.CountTags(ctx, ann, paging.Page{Limit: 3})
	must(t, "CountTags", err)
	want := []hosts.TagCount{{Key: "db", HostCount: 1}, {Key: "env", Value: "prod", HostCount: 2}, {Key: "env", Value: "staging", HostCount: 1}}
	if total != 5 || !slices.Equal(counts, want) {
		t.Errorf("CountTags = %v of %d, want %v of 5", counts, total, want)
	}
	found, err := s.Hosts.FindOwnedHosts(ctx, ann, []string{h[3].ID, h[0].ID, h[0].ID, newID()})
	must(t, "FindOwnedHosts", err)
	if !slices.Equal(found, ids(0, 3)) {
		t.Errorf("FindOwnedHosts = %v", found)
	}
}

func testTagsBulk(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann, bob, h := tagFleet(t, s)
	bobs, err := s.Hosts.SelectOwnedHosts(ctx, bob, hosts.OwnedFilter{}, 10)
	must(t, "SelectOwnedHosts", err)
	all := []string{h[0].ID, h[1].ID, h[3].ID}
	errStop := errors.New("stop")
	err = s.Hosts.Tx(ctx, func(tx hosts.Tx) error {
		n, err := tx.LockOwnedHosts(ctx, ann, append(slices.Clone(all), bobs...))
		if err != nil || n != 3 {
			t.Errorf("LockOwnedHosts = %d, %v; want ann's 3", n, err)
		}
		if err := tx.RemoveTags(ctx, all, []string{"role", "absent"}); err != nil {
			return err
		}
		if err := tx.PutTags(ctx, ann, all, hosts.Tags{"env": "dev", "team": "x"}); err != nil {
			return err
		}
		got, err := tx.TxHostTags(ctx, all)
		if err != nil {
			return err
		}
		if len(got[h[0].ID]) != 2 || got[h[0].ID]["env"] != "dev" || got[h[3].ID]["team"] != "x" {
			t.Errorf("in the unit of work: %v", got)
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	got, err := s.Hosts.HostTags(ctx, all)
	must(t, "HostTags", err)
	if got[h[0].ID]["env"] != "prod" || got[h[0].ID]["role"] != "web" || got[h[3].ID] != nil {
		t.Errorf("a unit of work that failed left changes: %v", got)
	}
}

func testSavedFilters(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	on := true
	f := hosts.SavedFilter{ID: newID(), UserID: ann, Name: "prod web", CreatedAt: t0, UpdatedAt: t0,
		Query: hosts.FilterQuery{Q: "web", Status: hosts.StatusOnline, Online: &on, OS: "linux", AgentVersion: "1.0", Tags: []string{"env=prod", "role"}}}
	must(t, "CreateFilter", s.Hosts.CreateFilter(ctx, f, 2))
	got, err := s.Hosts.SavedFilter(ctx, ann, f.ID)
	must(t, "SavedFilter", err)
	if got.Name != f.Name || got.Query.Q != "web" || got.Query.Online == nil || !*got.Query.Online || !slices.Equal(got.Query.Tags, f.Query.Tags) {
		t.Errorf("read back %+v", got)
	}
	checkTime(t, "created_at", got.CreatedAt, t0)
	if _, err := s.Hosts.SavedFilter(ctx, bob, f.ID); !errors.Is(err, hosts.ErrFilterNotFound) {
		t.Errorf("another owner's filter: %v", err)
	}
	dup := f
	dup.ID = newID()
	checkErr(t, "same name", s.Hosts.CreateFilter(ctx, dup, 2), hosts.ErrFilterNameTaken)
	second := hosts.SavedFilter{ID: newID(), UserID: ann, Name: "b", CreatedAt: t0, UpdatedAt: t0}
	must(t, "CreateFilter", s.Hosts.CreateFilter(ctx, second, 2))
	third := hosts.SavedFilter{ID: newID(), UserID: ann, Name: "c", CreatedAt: t0, UpdatedAt: t0}
	checkErr(t, "over the limit", s.Hosts.CreateFilter(ctx, third, 2), hosts.ErrFilterLimit)
	bobs := hosts.SavedFilter{ID: newID(), UserID: bob, Name: "prod web", CreatedAt: t0, UpdatedAt: t0}
	must(t, "bob's filter of the same name", s.Hosts.CreateFilter(ctx, bobs, 2))
	list, total, err := s.Hosts.ListFilters(ctx, ann, paging.Page{Limit: 10})
	must(t, "ListFilters", err)
	if total != 2 || len(list) != 2 || list[0].Name != "b" {
		t.Errorf("ListFilters = %v of %d", list, total)
	}
	second.Name = "prod web"
	checkErr(t, "rename to a taken name", s.Hosts.UpdateFilter(ctx, second), hosts.ErrFilterNameTaken)
	second.Name, second.UpdatedAt = "renamed", t0.Add(time.Hour)
	must(t, "UpdateFilter", s.Hosts.UpdateFilter(ctx, second))
	bobsTry := second
	bobsTry.UserID = bob
	checkErr(t, "update another owner's", s.Hosts.UpdateFilter(ctx, bobsTry), hosts.ErrFilterNotFound)
	checkErr(t, "delete another owner's", s.Hosts.DeleteFilter(ctx, bob, second.ID), hosts.ErrFilterNotFound)
	must(t, "DeleteFilter", s.Hosts.DeleteFilter(ctx, ann, second.ID))
	checkErr(t, "delete again", s.Hosts.DeleteFilter(ctx, ann, second.ID), hosts.ErrFilterNotFound)
}
