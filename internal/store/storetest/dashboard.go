package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/buckets"
	"hostgate/internal/dashboard"
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

// dashboardTests cover the admin console's reads: the fleet samples, the
// billing activity by bucket and the counts of the dashboard and of the
// user and host pages.
var dashboardTests = []test{
	{"FleetSampleUpsertsByMinute", testFleetSampleUpsert},
	{"FleetSampleRace", testFleetSampleRace},
	{"FleetBuckets", testFleetBuckets},
	{"PruneFleetSamples", testPruneFleetSamples},
	{"BillingActivityByHour", testActivityByHour},
	{"BillingActivityByDay", testActivityByDay},
	{"CountQueue", testCountQueue},
	{"CountUsers", testCountUsers},
	{"CountOwnedHosts", testCountOwnedHosts},
	{"CountByVersion", testCountByVersion},
	{"CountEvents", testCountEvents},
	{"ListAllKeys", testListAllKeys},
	{"AuditTimeFilters", testAuditTimeFilters},
}

// h10 is 10:00 UTC on the suite's day: the hour buckets below start there.
var h10 = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

func sample(minute time.Time, online, pending, dead int64) dashboard.Sample {
	return dashboard.Sample{Minute: minute, OnlineHosts: online, WebhooksPending: pending, WebhooksDead: dead, SampledAt: minute.Add(time.Second)}
}

func upsert(t *testing.T, s store.Store, x dashboard.Sample) {
	t.Helper()
	must(t, "UpsertFleetSample", s.Dashboard.UpsertFleetSample(t.Context(), x))
}

func fleetBuckets(t *testing.T, s store.Store, u buckets.Unit, from, to time.Time) []dashboard.FleetBucket {
	t.Helper()
	got, err := s.Dashboard.FleetBuckets(t.Context(), u, from, to)
	must(t, "FleetBuckets", err)
	return got
}

func checkBuckets[T any](t *testing.T, what string, got, want []T, eq func(a, b T) bool) {
	t.Helper()
	if !slices.EqualFunc(got, want, eq) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func sameFleet(a, b dashboard.FleetBucket) bool {
	return a.Start.Equal(b.Start) && a.OnlineHosts == b.OnlineHosts && a.WebhooksPending == b.WebhooksPending &&
		a.WebhooksDead == b.WebhooksDead
}

// testFleetSampleUpsert: a second sample of a minute (another instance's,
// or seconds later) replaces the first; the minute is the key, whatever
// the seconds of the time given.
func testFleetSampleUpsert(t *testing.T, s store.Store) {
	upsert(t, s, sample(h10, 5, 1, 0))
	upsert(t, s, sample(h10.Add(30*time.Second), 7, 2, 3))
	got := fleetBuckets(t, s, buckets.Hour, h10, h10.Add(time.Hour))
	checkBuckets(t, "after two samples of one minute", got, []dashboard.FleetBucket{
		{Start: h10, OnlineHosts: 7, WebhooksPending: 2, WebhooksDead: 3}}, sameFleet)
}

// testFleetSampleRace: instances sampling the same minute at once all
// succeed and leave one sample, one of theirs.
func testFleetSampleRace(t *testing.T, s store.Store) {
	errs := race(8, func(i int) error {
		return s.Dashboard.UpsertFleetSample(t.Context(), sample(h10, int64(i), int64(i), int64(i)))
	})
	if ok := countRace(t, errs); ok != 8 {
		t.Fatalf("%d of 8 concurrent upserts succeeded", ok)
	}
	got := fleetBuckets(t, s, buckets.Hour, h10, h10.Add(time.Hour))
	if len(got) != 1 || got[0].OnlineHosts < 0 || got[0].OnlineHosts > 7 || got[0].WebhooksPending != got[0].OnlineHosts {
		t.Errorf("after the race: %+v, want one sample, one instance's", got)
	}
}

// testFleetBuckets: per bucket, the most hosts online and the webhook
// figures of the last minute; a sample at a bucket's start is in it, one
// at the window's end is not; empty buckets are left out.
func testFleetBuckets(t *testing.T, s store.Store) {
	upsert(t, s, sample(h10.Add(-time.Minute), 50, 50, 50)) // 09:59, before the window
	upsert(t, s, sample(h10, 5, 1, 0))
	upsert(t, s, sample(h10.Add(30*time.Minute), 9, 2, 1))
	upsert(t, s, sample(h10.Add(59*time.Minute), 7, 3, 1))
	upsert(t, s, sample(h10.Add(time.Hour), 2, 0, 4))     // 11:00
	upsert(t, s, sample(h10.Add(3*time.Hour), 1, 1, 1))   // 13:00
	upsert(t, s, sample(h10.Add(4*time.Hour), 60, 60, 6)) // 14:00, the window's end
	got := fleetBuckets(t, s, buckets.Hour, h10, h10.Add(4*time.Hour))
	checkBuckets(t, "hour buckets 10:00-14:00", got, []dashboard.FleetBucket{
		{Start: h10, OnlineHosts: 9, WebhooksPending: 3, WebhooksDead: 1},
		{Start: h10.Add(time.Hour), OnlineHosts: 2, WebhooksPending: 0, WebhooksDead: 4},
		{Start: h10.Add(3 * time.Hour), OnlineHosts: 1, WebhooksPending: 1, WebhooksDead: 1},
	}, sameFleet)

	day := buckets.Day.Start(h10)
	upsert(t, s, sample(day.Add(24*time.Hour), 3, 0, 0)) // the next day's first minute
	got = fleetBuckets(t, s, buckets.Day, day, day.Add(48*time.Hour))
	checkBuckets(t, "day buckets", got, []dashboard.FleetBucket{
		{Start: day, OnlineHosts: 60, WebhooksPending: 60, WebhooksDead: 6},
		{Start: day.Add(24 * time.Hour), OnlineHosts: 3},
	}, sameFleet)
}

func testPruneFleetSamples(t *testing.T, s store.Store) {
	for i := range 4 {
		upsert(t, s, sample(h10.Add(time.Duration(i)*time.Minute), 1, 0, 0))
	}
	n, err := s.Dashboard.PruneFleetSamples(t.Context(), h10.Add(2*time.Minute))
	must(t, "PruneFleetSamples", err)
	if n != 2 {
		t.Errorf("pruned %d samples, want the 2 before 10:02", n)
	}
	got := fleetBuckets(t, s, buckets.Hour, h10.Add(-time.Hour), h10.Add(time.Hour))
	checkBuckets(t, "after the prune", got, []dashboard.FleetBucket{{Start: h10, OnlineHosts: 1}}, sameFleet)
}

// chargeAt writes a charge event of units at at, as the ledger records one.
func chargeAt(t *testing.T, s store.Store, user string, units billing.Units, at time.Time) {
	t.Helper()
	must(t, "InsertEvents", s.Billing.Tx(t.Context(), func(tx billing.Tx) error {
		return tx.InsertEvents(t.Context(), []billing.Event{{ID: newID(), UserID: user, Kind: billing.KindCharge,
			Units: -units, RuleCode: billing.RuleExecShell, CreatedAt: at}})
	}))
}

// activityFixture seeds charges and recharges around the hours of h10:
// charges at 09:59:59.999999, 10:00 (a bucket's start), 10:59:59.999999,
// 11:00, 13:30, 14:00 and the next day's 00:00; an order of 1.00 CNY paid
// at 10:30, one of 2.50 CNY paid at 11:10 and refunded at 13:05, and a
// pending one.
func activityFixture(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("activity@example.com", "act", t0)).user.ID
	tick := time.Microsecond
	for _, c := range []struct {
		at    time.Time
		units billing.Units
	}{
		{h10.Add(-tick), 7000}, {h10, 1000}, {h10.Add(time.Hour - tick), 500}, {h10.Add(time.Hour), 2000},
		{h10.Add(3*time.Hour + 30*time.Minute), 100}, {h10.Add(4 * time.Hour), 3000}, {h10.Add(14 * time.Hour), 400},
	} {
		chargeAt(t, s, u, c.units, c.at)
	}
	paidAt := func(fen int64, at time.Time) billing.Recharge {
		r := newRecharge(t, s, u, fen, at.Add(-time.Minute))
		_, _, err := ledger(s).PayRecharge(t.Context(), billing.Payment{OrderNo: r.OrderNo, AmountFen: fen, Provider: "dummy",
			EventID: newID(), At: at})
		must(t, "PayRecharge", err)
		return r
	}
	paidAt(100, h10.Add(30*time.Minute))
	r := paidAt(250, h10.Add(70*time.Minute))
	_, _, err := ledger(s).RefundRecharge(t.Context(), billing.Refund{RechargeID: r.ID, EventID: newID(), Reason: "asked",
		At: h10.Add(3*time.Hour + 5*time.Minute), Audit: audit.Actor{AdminID: "adm", Role: "finance"}.Entry(audit.ActionRechargeRefund, "recharge", r.ID)})
	must(t, "RefundRecharge", err)
	newRecharge(t, s, u, 999, h10) // pending: no revenue
}

func sameActivity(a, b billing.Activity) bool {
	return a.Start.Equal(b.Start) && a.Charges == b.Charges && a.Charged == b.Charged && a.PaidFen == b.PaidFen &&
		a.RefundedFen == b.RefundedFen
}

// testActivityByHour: each charge, payment and refund is in the hour its
// time falls in, the start of an hour in that hour and the window's end
// outside it; recharge and refund events are no calls; an hour with
// nothing is left out.
func testActivityByHour(t *testing.T, s store.Store) {
	activityFixture(t, s)
	got, err := s.Billing.Activity(t.Context(), buckets.Hour, h10, h10.Add(4*time.Hour))
	must(t, "Activity", err)
	checkBuckets(t, "hours 10:00-14:00", got, []billing.Activity{
		{Start: h10, Charges: 2, Charged: 1500, PaidFen: 100},
		{Start: h10.Add(time.Hour), Charges: 1, Charged: 2000, PaidFen: 250},
		{Start: h10.Add(3 * time.Hour), Charges: 1, Charged: 100, RefundedFen: 250},
	}, sameActivity)
	if got[2].RevenueFen() != -250 {
		t.Errorf("revenue of 13:00 = %d fen, want -250 (the refund)", got[2].RevenueFen())
	}
}

func testActivityByDay(t *testing.T, s store.Store) {
	activityFixture(t, s)
	day := buckets.Day.Start(h10)
	got, err := s.Billing.Activity(t.Context(), buckets.Day, day, day.Add(48*time.Hour))
	must(t, "Activity", err)
	checkBuckets(t, "days", got, []billing.Activity{
		{Start: day, Charges: 6, Charged: 13600, PaidFen: 350, RefundedFen: 250},
		{Start: day.Add(24 * time.Hour), Charges: 1, Charged: 400},
	}, sameActivity)
}

// testCountQueue: unfinished deliveries (pending, retrying) and dead
// letters, in one read; rows without a target and successes are neither.
func testCountQueue(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "queue@example.com"), "q", t0))
	h2 := createHost(t, s, newHost(h.UserID, "q2", t0))
	ds := enqueue(t, s, h, 2, t0)
	enqueue(t, s, h2, 1, t0)
	skipped := newDelivery(h, "", t0)
	must(t, "EnqueueDelivery without URL", s.Deliveries.EnqueueDelivery(t.Context(), skipped))
	claimed := claim(t, s, "i1", t0)
	if len(claimed) != 2 {
		t.Fatalf("claimed %v, want one row of each host", claimed)
	}
	must(t, "FinishDelivery dead", s.Deliveries.FinishDelivery(t.Context(), ds[0].ID, "i1", deliveries.Result{
		Status: deliveries.StatusDeadLetter, At: t0, Error: "timeout"}))
	q, err := s.Deliveries.CountQueue(t.Context())
	must(t, "CountQueue", err)
	if q != (deliveries.Queue{Unfinished: 2, Dead: 1}) {
		t.Errorf("CountQueue = %+v, want 2 unfinished and 1 dead", q)
	}
}

func testCountUsers(t *testing.T, s store.Store) {
	counts, err := s.Accounts.CountUsers(t.Context())
	must(t, "CountUsers", err)
	if counts[accounts.StatusActive] != 0 || counts[accounts.StatusSuspended] != 0 || len(counts) != 2 {
		t.Errorf("CountUsers of none = %v, want both statuses at 0", counts)
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, createUser(t, s, newUser(fmt.Sprintf("count%d@example.com", i), "c", t0)).user.ID)
	}
	_, err = accounts.SetUserStatus(t.Context(), s.Accounts, ids[1], accounts.StatusSuspended, t0,
		audit.Actor{AdminID: "adm", Role: "operator"}.Entry(audit.ActionUserSuspend, "user", ids[1]))
	must(t, "SetUserStatus", err)
	counts, err = s.Accounts.CountUsers(t.Context())
	must(t, "CountUsers", err)
	if counts[accounts.StatusActive] != 2 || counts[accounts.StatusSuspended] != 1 {
		t.Errorf("CountUsers = %v, want 2 active and 1 suspended", counts)
	}
}

func testCountOwnedHosts(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	a1 := createHost(t, s, newHost(ann, "a1", t0))
	createHost(t, s, newHost(ann, "a2", t0))
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, a1.ID, t0, nil))
	for who, want := range map[string]int{ann: 1, bob: 0, newID(): 0} {
		n, err := s.Hosts.CountOwnedHosts(t.Context(), who)
		must(t, "CountOwnedHosts", err)
		if n != want {
			t.Errorf("CountOwnedHosts(%s) = %d, want %d", who, n, want)
		}
	}
}

// testCountByVersion: undeleted hosts grouped by reported version, most
// first then by version, online by stored status; only and limit narrow.
func testCountByVersion(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	hs := make([]hosts.Host, 5)
	for i := range hs {
		hs[i] = createHost(t, s, newHost(ann, fmt.Sprintf("h%d", i), t0))
	}
	shake := func(h hosts.Host, v string) {
		must(t, "RecordHandshake", s.Hosts.RecordHandshake(t.Context(), h.ID, "192.0.2.1", "linux", v, t0))
	}
	shake(hs[0], "1.0.0")
	shake(hs[1], "1.0.0")
	shake(hs[2], "2.0.0")
	shake(hs[4], "1.0.0")
	_, err := hosts.SetBanned(t.Context(), s.Hosts, hs[1].ID, true, audit.Actor{AdminID: "adm", Role: "operator"}.Entry(audit.ActionHostBan, "host", hs[1].ID))
	must(t, "SetBanned", err)
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, hs[4].ID, t0, nil))
	same := func(a, b hosts.VersionCount) bool { return a == b }

	got, err := s.Hosts.CountByVersion(t.Context(), nil, 50)
	must(t, "CountByVersion", err)
	checkBuckets(t, "every version", got, []hosts.VersionCount{
		{Version: "1.0.0", Hosts: 2, Online: 1}, {Version: "", Hosts: 1}, {Version: "2.0.0", Hosts: 1, Online: 1},
	}, same)
	got, err = s.Hosts.CountByVersion(t.Context(), nil, 1)
	must(t, "CountByVersion limit 1", err)
	checkBuckets(t, "limit 1", got, []hosts.VersionCount{{Version: "1.0.0", Hosts: 2, Online: 1}}, same)
	got, err = s.Hosts.CountByVersion(t.Context(), []string{"2.0.0", "9.9.9"}, 2)
	must(t, "CountByVersion only", err)
	checkBuckets(t, "only 2.0.0 and 9.9.9", got, []hosts.VersionCount{{Version: "2.0.0", Hosts: 1, Online: 1}}, same)
}

func testCountEvents(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "h", t0))
	other := createHost(t, s, newHost(h.UserID, "other", t0))
	for _, e := range []struct {
		host hosts.Host
		kind string
		ago  time.Duration
	}{
		{h, hosts.EventConnected, 2 * time.Hour}, {h, hosts.EventConnected, time.Hour}, {h, hosts.EventConnected, 10 * time.Minute},
		{h, hosts.EventDisconnected, 5 * time.Minute}, {h, "banned", time.Minute}, {other, hosts.EventConnected, time.Minute},
	} {
		must(t, "AppendEvent", s.Hosts.AppendEvent(t.Context(), e.host.ID,
			hosts.Event{At: t0.Add(-e.ago), Kind: e.kind, Message: "m"}, hosts.KeepEvents))
	}
	got, err := s.Hosts.CountEvents(t.Context(), h.ID, []string{hosts.EventConnected, hosts.EventDisconnected}, t0.Add(-time.Hour))
	must(t, "CountEvents", err)
	if len(got) != 2 || got[hosts.EventConnected] != 2 || got[hosts.EventDisconnected] != 1 {
		t.Errorf("CountEvents = %v, want connected 2 (the one an hour ago included), disconnected 1", got)
	}
	got, err = s.Hosts.CountEvents(t.Context(), newID(), []string{hosts.EventConnected}, t0.Add(-time.Hour))
	must(t, "CountEvents of an unknown host", err)
	if got[hosts.EventConnected] != 0 {
		t.Errorf("CountEvents of an unknown host = %v", got)
	}
}

// testListAllKeys: an admin's list has revoked keys too, newest first,
// bounded; the count has only the live ones.
func testListAllKeys(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	old := createKey(t, s, newKey(ann, "old", t0))
	createKey(t, s, newKey(ann, "mid", t0.Add(time.Minute)))
	createKey(t, s, newKey(ann, "new", t0.Add(2*time.Minute)))
	createKey(t, s, newKey(bob, "bob's", t0))
	must(t, "DeleteKey", s.APIKeys.DeleteKey(t.Context(), ann, old.ID, t0.Add(time.Hour)))

	keys, err := s.APIKeys.ListAllKeys(t.Context(), ann, 10)
	must(t, "ListAllKeys", err)
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"new", "mid", "old"}) {
		t.Fatalf("ListAllKeys = %v, want new, mid, old", names)
	}
	if keys[2].RevokedAt == nil || !keys[2].RevokedAt.Equal(stored(t0.Add(time.Hour))) || keys[0].RevokedAt != nil {
		t.Errorf("revoked_at: old %v, new %v; want the deletion time on old only", keys[2].RevokedAt, keys[0].RevokedAt)
	}
	checkTime(t, "created_at", keys[2].CreatedAt, t0)
	if keys, _ := s.APIKeys.ListAllKeys(t.Context(), ann, 2); len(keys) != 2 {
		t.Errorf("ListAllKeys limit 2 gave %d keys", len(keys))
	}
	n, err := s.APIKeys.CountKeys(t.Context(), ann)
	must(t, "CountKeys", err)
	if n != 2 {
		t.Errorf("CountKeys = %d, want the 2 not revoked", n)
	}
}

func testAuditTimeFilters(t *testing.T, s store.Store) {
	for i := range 3 {
		e := entry("adm", "user.suspend", "user")
		e.CreatedAt = t0.Add(time.Duration(i) * time.Hour)
		must(t, "AppendAudit", s.Audit.AppendAudit(t.Context(), e))
	}
	for _, c := range []struct {
		what         string
		since, until time.Time
		want         int
	}{
		{"no bounds", time.Time{}, time.Time{}, 3},
		{"since the second (inclusive)", t0.Add(time.Hour), time.Time{}, 2},
		{"until the second (exclusive)", time.Time{}, t0.Add(time.Hour), 1},
		{"between", t0.Add(time.Hour), t0.Add(2 * time.Hour), 1},
		{"empty range", t0.Add(3 * time.Hour), time.Time{}, 0},
	} {
		_, total, err := s.Audit.ListAudit(t.Context(), audit.Filter{Since: c.since, Until: c.until}, paging.Page{Limit: 10})
		must(t, "ListAudit "+c.what, err)
		if total != c.want {
			t.Errorf("ListAudit %s: total %d, want %d", c.what, total, c.want)
		}
	}
}
