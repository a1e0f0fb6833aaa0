package storetest

import (
	"errors"
	"testing"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/store"
	"hostgate/internal/versions"
)

var versionTests = []test{
	{"PublishListYank", testPublishListYank},
}

func testPublishListYank(t *testing.T, s store.Store) {
	adm := audit.Actor{AdminID: "adm", Role: "owner"}
	publish := func(ver, channel string, at time.Time) error {
		v := versions.Version{ID: newID(), Version: ver, Channel: channel, ExeURL: "https://dl.example.com/a.exe",
			ExeSHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ExeSizeBytes: 42,
			MinSupportedProtocol: 1, ReleasedAt: at}
		return versions.PublishVersion(t.Context(), s.Versions, v, adm.Entry(audit.ActionVersionPublish, "gw_version", ver))
	}
	must(t, "publish", publish("0.4.0", "stable", t0))
	must(t, "publish", publish("0.5.0-rc.1", "beta", t0.Add(time.Hour)))
	if err := publish("0.4.0", "beta", t0); !errors.Is(err, versions.ErrExists) {
		t.Fatalf("republish: %v", err)
	}
	all, total, err := s.Versions.ListVersions(t.Context(), versions.Filter{}, paging.Page{Limit: 10})
	must(t, "list", err)
	if total != 2 || all[0].Version != "0.5.0-rc.1" {
		t.Fatalf("list %+v", all)
	}
	checkTime(t, "released_at", all[1].ReleasedAt, t0)
	beta, _, _ := s.Versions.ListVersions(t.Context(), versions.Filter{Channel: "beta"}, paging.Page{Limit: 10})
	if len(beta) != 1 || beta[0].Channel != "beta" {
		t.Fatalf("beta %+v", beta)
	}
	v, err := versions.YankVersion(t.Context(), s.Versions, "0.4.0", t0.Add(2*time.Hour), adm.Entry(audit.ActionVersionYank, "gw_version", "0.4.0"))
	must(t, "yank", err)
	if v.YankedAt == nil {
		t.Fatal("yanked_at not set")
	}
	if _, err := versions.YankVersion(t.Context(), s.Versions, "0.4.0", t0, adm.Entry(audit.ActionVersionYank, "gw_version", "0.4.0")); !errors.Is(err, versions.ErrYanked) {
		t.Fatalf("yank twice: %v", err)
	}
	if _, err := versions.YankVersion(t.Context(), s.Versions, "9.9.9", t0, adm.Entry(audit.ActionVersionYank, "gw_version", "9.9.9")); !errors.Is(err, versions.ErrNotFound) {
		t.Fatalf("yank unknown: %v", err)
	}
	live, total, _ := s.Versions.ListVersions(t.Context(), versions.Filter{}, paging.Page{Limit: 10})
	if total != 1 || live[0].Version != "0.5.0-rc.1" {
		t.Fatalf("without yanked: %+v", live)
	}
	if _, total, _ := s.Versions.ListVersions(t.Context(), versions.Filter{IncludeYanked: true}, paging.Page{Limit: 10}); total != 2 {
		t.Fatalf("with yanked: %d", total)
	}
	got, err := s.Versions.GetVersion(t.Context(), "0.4.0")
	if err != nil || got.YankedAt == nil {
		t.Fatalf("get: %+v %v", got, err)
	}
	entries, _, _ := s.Audit.ListAudit(t.Context(), audit.Filter{Action: audit.ActionVersionYank}, paging.Page{Limit: 10})
	if len(entries) != 1 {
		t.Fatalf("%d yank audit rows, want 1", len(entries))
	}
}
