package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/audit"
	"hostgate/internal/hosts"
	"hostgate/internal/store"
	"hostgate/internal/upgrades"
)

var upgradeTests = []test{
	{"StartAndAdvance", testStartAndAdvance},
	{"StartRefusals", testStartRefusals},
	{"StartRace", testStartRace},
	{"StaleUpgrades", testStaleUpgrades},
}

func newUpgrade(hostID, version string, at time.Time) upgrades.Upgrade {
	return upgrades.Upgrade{HostID: hostID, Version: version, FromVersion: "1.0.0", State: agentproto.UpgradeRequested,
		RequestedBy: "adm", RequestedAt: at, UpdatedAt: at}
}

func pushEntry(hostID string) audit.Entry {
	return audit.Actor{AdminID: "adm", Role: "operator"}.Entry(audit.ActionHostPushUpgrade, "host", hostID)
}

func upgradeEvent(at time.Time, kind string) hosts.Event {
	return hosts.Event{At: at, Kind: kind, Message: "version 2.0.0"}
}

func startUpgrade(t *testing.T, s store.Store, u upgrades.Upgrade) {
	t.Helper()
	must(t, "StartUpgrade", upgrades.StartUpgrade(t.Context(), s.Upgrades, u, u.RequestedAt.Add(-time.Hour),
		upgradeEvent(u.RequestedAt, "upgrade.requested"), pushEntry(u.HostID)))
}

func eventKinds(t *testing.T, s store.Store, hostID string) []string {
	t.Helper()
	evs, err := s.Hosts.ListEvents(t.Context(), hostID, 50)
	must(t, "ListEvents", err)
	var kinds []string
	for i := len(evs) - 1; i >= 0; i-- {
		kinds = append(kinds, evs[i].Kind)
	}
	return kinds
}

func testStartAndAdvance(t *testing.T, s store.Store) {
	ctx := t.Context()
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	if _, err := s.Upgrades.GetUpgrade(ctx, h.ID); !errors.Is(err, upgrades.ErrNotFound) {
		t.Fatalf("GetUpgrade before any: %v", err)
	}
	u := newUpgrade(h.ID, "2.0.0", t0)
	startUpgrade(t, s, u)
	checkOneAudit(t, s, pushEntry(h.ID), t0)
	got, err := s.Upgrades.GetUpgrade(ctx, h.ID)
	must(t, "GetUpgrade", err)
	checkTime(t, "requested_at", got.RequestedAt, t0)
	if got.Version != "2.0.0" || got.FromVersion != "1.0.0" || got.State != agentproto.UpgradeRequested || got.RequestedBy != "adm" {
		t.Fatalf("stored upgrade %+v", got)
	}

	steps := []struct {
		version string
		to      agentproto.UpgradeState
		moved   bool
		want    agentproto.UpgradeState
	}{
		{"2.0.0", agentproto.UpgradeDownloading, true, agentproto.UpgradeDownloading},
		{"2.0.0", agentproto.UpgradeDownloading, false, agentproto.UpgradeDownloading}, // repeated
		{"2.0.0", agentproto.UpgradeRestarting, true, agentproto.UpgradeRestarting},    // verifying lost
		{"2.0.0", agentproto.UpgradeVerifying, false, agentproto.UpgradeRestarting},    // late
		{"2.0.0", agentproto.UpgradeRolledBack, true, agentproto.UpgradeRolledBack},
		{"2.0.0", agentproto.UpgradeDone, false, agentproto.UpgradeRolledBack}, // finished stays finished
	}
	for i, st := range steps {
		at := t0.Add(time.Duration(i+1) * time.Minute)
		got, moved, err := upgrades.AdvanceUpgrade(ctx, s.Upgrades, h.ID, st.version, st.to, "why "+string(st.to), at, upgradeEvent(at, "upgrade."+string(st.to)))
		must(t, "AdvanceUpgrade", err)
		if moved != st.moved || got.State != st.want {
			t.Fatalf("step %d to %s: moved %v state %s, want %v %s", i, st.to, moved, got.State, st.moved, st.want)
		}
		if moved {
			checkTime(t, "updated_at", got.UpdatedAt, at)
			if got.Reason != "why "+string(st.to) {
				t.Fatalf("reason %q", got.Reason)
			}
		}
	}
	if _, _, err := upgrades.AdvanceUpgrade(ctx, s.Upgrades, h.ID, "3.0.0", agentproto.UpgradeDone, "", t0, upgradeEvent(t0, "x")); !errors.Is(err, upgrades.ErrNotFound) {
		t.Fatalf("advance another version: %v", err)
	}
	want := []string{"upgrade.requested", "upgrade.downloading", "upgrade.restarting", "upgrade.rolled_back"}
	if got := eventKinds(t, s, h.ID); !equalStrings(got, want) {
		t.Fatalf("events %v, want %v (one per move, none for refused moves)", got, want)
	}

	// A finished upgrade is replaced by the next push.
	next := newUpgrade(h.ID, "2.0.1", t0.Add(time.Hour))
	startUpgrade(t, s, next)
	got, err = s.Upgrades.GetUpgrade(ctx, h.ID)
	must(t, "GetUpgrade", err)
	if got.Version != "2.0.1" || got.State != agentproto.UpgradeRequested || got.Reason != "" {
		t.Fatalf("replaced upgrade %+v", got)
	}
}

func testStartRefusals(t *testing.T, s store.Store) {
	ctx := t.Context()
	u := newUpgrade(newID(), "2.0.0", t0)
	if err := upgrades.StartUpgrade(ctx, s.Upgrades, u, t0, upgradeEvent(t0, "upgrade.requested"), pushEntry(u.HostID)); !errors.Is(err, hosts.ErrNotFound) {
		t.Fatalf("start on an unknown host: %v", err)
	}
	checkNoAudit(t, s)

	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	startUpgrade(t, s, newUpgrade(h.ID, "2.0.0", t0))
	again := newUpgrade(h.ID, "2.0.1", t0.Add(time.Minute))
	err := upgrades.StartUpgrade(ctx, s.Upgrades, again, t0.Add(-time.Minute), upgradeEvent(t0, "upgrade.requested"), pushEntry(h.ID))
	if !errors.Is(err, upgrades.ErrInProgress) {
		t.Fatalf("start while one runs: %v", err)
	}
	got, _ := s.Upgrades.GetUpgrade(ctx, h.ID)
	if got.Version != "2.0.0" {
		t.Fatalf("the running upgrade was replaced: %+v", got)
	}
	checkOneAudit(t, s, pushEntry(h.ID), t0)

	// An upgrade that stopped moving before busySince may be replaced.
	must(t, "StartUpgrade over an abandoned one", upgrades.StartUpgrade(ctx, s.Upgrades, again, t0.Add(time.Second),
		upgradeEvent(t0, "upgrade.requested"), pushEntry(h.ID)))

	must(t, "DeleteHost", hosts.DeleteHost(ctx, s.Hosts, "", h.ID, t0, nil))
	late := newUpgrade(h.ID, "2.0.2", t0.Add(time.Hour))
	if err := upgrades.StartUpgrade(ctx, s.Upgrades, late, late.RequestedAt, upgradeEvent(t0, "upgrade.requested"), pushEntry(h.ID)); !errors.Is(err, hosts.ErrNotFound) {
		t.Fatalf("start on a deleted host: %v", err)
	}
}

func testStartRace(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			u := newUpgrade(h.ID, "2.0.0", t0)
			errs[i] = upgrades.StartUpgrade(t.Context(), s.Upgrades, u, t0.Add(-time.Hour), upgradeEvent(t0, "upgrade.requested"), pushEntry(h.ID))
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, upgrades.ErrInProgress):
			t.Fatalf("concurrent start: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d concurrent pushes won, want 1", won)
	}
	checkOneAudit(t, s, pushEntry(h.ID), t0)
}

func testStaleUpgrades(t *testing.T, s store.Store) {
	ctx := t.Context()
	own := owner(t, s, "ann@example.com")
	old := createHost(t, s, newHost(own, "old", t0))
	fresh := createHost(t, s, newHost(own, "fresh", t0))
	finished := createHost(t, s, newHost(own, "finished", t0))
	startUpgrade(t, s, newUpgrade(old.ID, "2.0.0", t0))
	startUpgrade(t, s, newUpgrade(fresh.ID, "2.0.0", t0.Add(time.Hour)))
	startUpgrade(t, s, newUpgrade(finished.ID, "2.0.0", t0))
	_, _, err := upgrades.AdvanceUpgrade(ctx, s.Upgrades, finished.ID, "2.0.0", agentproto.UpgradeDone, "", t0, upgradeEvent(t0, "upgrade.done"))
	must(t, "AdvanceUpgrade", err)

	stale, err := s.Upgrades.StaleUpgrades(ctx, t0.Add(30*time.Minute), 10)
	must(t, "StaleUpgrades", err)
	if len(stale) != 1 || stale[0].HostID != old.ID {
		t.Fatalf("stale %+v, want only the old unfinished one", stale)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
