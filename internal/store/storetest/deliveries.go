package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/store"
	"hostgate/internal/webhooks"
)

var deliveryTests = []test{
	{"EnqueueAndList", testEnqueueAndList},
	{"EnqueueUnknownHost", testEnqueueUnknownHost},
	{"ClaimOldestPerHost", testClaimOldestPerHost},
	{"ClaimNotDue", testClaimNotDue},
	{"LeaseExpiry", testLeaseExpiry},
	{"RetryAndDeadLetter", testRetryAndDeadLetter},
	{"ManualRetry", testManualRetry},
	{"RetriedRowWaitsForLeasedRow", testRetriedRowWaitsForLeasedRow},
	{"ClaimRace", testClaimRace},
}

// newDelivery is a pending delivery for h, queued at at; the store does not
// look inside the payload or the sealed secrets.
func newDelivery(h hosts.Host, target string, at time.Time) deliveries.Delivery {
	id := newID()
	return deliveries.Delivery{ID: id, HostID: h.ID, UserID: h.UserID, EventType: webhooks.EventA,
		Format: webhooks.FormatA, Status: deliveries.StatusPending, TargetURL: target,
		Payload: []byte(`{"DeliveryID":"` + id + `"}`), SealedSecrets: []byte("sealed " + id),
		NextAttemptAt: at, CreatedAt: at}
}

// enqueue queues n deliveries for h at at and returns them in order.
func enqueue(t *testing.T, s store.Store, h hosts.Host, n int, at time.Time) []deliveries.Delivery {
	t.Helper()
	var out []deliveries.Delivery
	for range n {
		d := newDelivery(h, "https://hooks.example.com/"+h.Name, at)
		must(t, "EnqueueDelivery", s.Deliveries.EnqueueDelivery(t.Context(), d))
		out = append(out, d)
	}
	return out
}

func claim(t *testing.T, s store.Store, owner string, now time.Time) []string {
	t.Helper()
	got, err := s.Deliveries.ClaimDue(t.Context(), owner, now, time.Minute, 100)
	must(t, "ClaimDue", err)
	var ids []string
	for _, d := range got {
		if d.LeaseOwner != owner || d.LeaseUntil == nil {
			t.Errorf("claimed %s: lease %q until %v, want %q", d.ID, d.LeaseOwner, d.LeaseUntil, owner)
		}
		ids = append(ids, d.ID)
	}
	return ids
}

func checkClaim(t *testing.T, s store.Store, owner string, now time.Time, want ...deliveries.Delivery) {
	t.Helper()
	got := claim(t, s, owner, now)
	var ids []string
	for _, d := range want {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("ClaimDue by %s: got %v, want %v", owner, got, ids)
	}
}

func success(at time.Time) deliveries.Result {
	return deliveries.Result{Status: deliveries.StatusSuccess, At: at, HTTPStatus: 200}
}

func delivery(t *testing.T, s store.Store, hostID, id string) deliveries.Delivery {
	t.Helper()
	list, err := s.Deliveries.ListDeliveries(t.Context(), hostID, deliveries.MaxLimit)
	must(t, "ListDeliveries", err)
	for _, d := range list {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("delivery %s not listed", id)
	return deliveries.Delivery{}
}

func testEnqueueAndList(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	ds := enqueue(t, s, h, 3, t0)
	skipped := newDelivery(h, "", t0)
	must(t, "EnqueueDelivery without URL", s.Deliveries.EnqueueDelivery(t.Context(), skipped))
	if n, err := s.Deliveries.CountUnfinishedDeliveries(t.Context()); err != nil || n != 3 {
		t.Fatalf("CountUnfinishedDeliveries = %d, %v; want the 3 with a target", n, err)
	}

	list, err := s.Deliveries.ListDeliveries(t.Context(), h.ID, 0)
	must(t, "ListDeliveries", err)
	want := []string{skipped.ID, ds[2].ID, ds[1].ID, ds[0].ID}
	var got []string
	for _, d := range list {
		got = append(got, d.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ListDeliveries: got %v, want newest first %v", got, want)
	}
	if list[0].Status != deliveries.StatusSkippedNoURL {
		t.Errorf("delivery without URL: status %q, want skipped_no_url", list[0].Status)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Seq >= list[i-1].Seq {
			t.Errorf("seq not increasing: %d then %d", list[i].Seq, list[i-1].Seq)
		}
	}
	d := list[3]
	checkTime(t, "created_at", d.CreatedAt, t0)
	checkTime(t, "next_attempt_at", d.NextAttemptAt, t0)
	if d.Status != deliveries.StatusPending || d.Attempts != 0 || d.HTTPStatus != nil || d.DeliveredAt != nil ||
		d.LeaseUntil != nil || d.Format != webhooks.FormatA || d.EventType != webhooks.EventA ||
		d.UserID != h.UserID || d.TargetURL != ds[0].TargetURL ||
		string(d.Payload) != string(ds[0].Payload) || string(d.SealedSecrets) != string(ds[0].SealedSecrets) {
		t.Errorf("stored delivery %+v", d)
	}
	if one, _ := s.Deliveries.ListDeliveries(t.Context(), h.ID, 1); len(one) != 1 {
		t.Errorf("ListDeliveries limit 1: got %d rows", len(one))
	}
	if other, _ := s.Deliveries.ListDeliveries(t.Context(), newID(), 0); len(other) != 0 {
		t.Errorf("ListDeliveries of another host: got %d rows", len(other))
	}
	// A skipped row is never claimed.
	checkClaim(t, s, "i1", t0, ds[0])
}

func testEnqueueUnknownHost(t *testing.T, s store.Store) {
	h := newHost(owner(t, s, "ann@example.com"), "web", t0) // not created
	checkErr(t, "EnqueueDelivery for unknown host", s.Deliveries.EnqueueDelivery(t.Context(), newDelivery(h, "https://x.example", t0)), hosts.ErrNotFound)
}

func testClaimOldestPerHost(t *testing.T, s store.Store) {
	u := owner(t, s, "ann@example.com")
	a := createHost(t, s, newHost(u, "a", t0))
	b := createHost(t, s, newHost(u, "b", t0))
	as := enqueue(t, s, a, 2, t0)
	bs := enqueue(t, s, b, 1, t0)
	checkClaim(t, s, "i1", t0, as[0], bs[0])
	checkClaim(t, s, "i2", t0) // leased, and a's second waits behind its first
	must(t, "FinishDelivery", s.Deliveries.FinishDelivery(t.Context(), as[0].ID, "i1", success(t0)))
	checkClaim(t, s, "i2", t0, as[1])
	got := delivery(t, s, a.ID, as[0].ID)
	if got.Status != deliveries.StatusSuccess || got.Attempts != 1 || got.HTTPStatus == nil || *got.HTTPStatus != 200 ||
		got.DeliveredAt == nil || got.LeaseOwner != "" || got.LeaseUntil != nil {
		t.Errorf("after success: %+v", got)
	}
	checkErr(t, "FinishDelivery twice", s.Deliveries.FinishDelivery(t.Context(), as[0].ID, "i1", success(t0)), deliveries.ErrLeaseLost)
	checkErr(t, "FinishDelivery by non-owner", s.Deliveries.FinishDelivery(t.Context(), as[1].ID, "i1", success(t0)), deliveries.ErrLeaseLost)
}

func testClaimNotDue(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	d := enqueue(t, s, h, 1, t0.Add(time.Minute))[0]
	checkClaim(t, s, "i1", t0)
	checkClaim(t, s, "i1", t0.Add(time.Minute), d)
}

func testLeaseExpiry(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	d := enqueue(t, s, h, 1, t0)[0]
	checkClaim(t, s, "crashed", t0, d)
	checkClaim(t, s, "i2", t0.Add(59*time.Second))
	checkClaim(t, s, "i2", t0.Add(61*time.Second), d)
	checkErr(t, "FinishDelivery by the expired owner",
		s.Deliveries.FinishDelivery(t.Context(), d.ID, "crashed", success(t0.Add(62*time.Second))), deliveries.ErrLeaseLost)
	must(t, "FinishDelivery by the new owner", s.Deliveries.FinishDelivery(t.Context(), d.ID, "i2", success(t0.Add(62*time.Second))))
}

func testRetryAndDeadLetter(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	ds := enqueue(t, s, h, 2, t0)
	checkClaim(t, s, "i1", t0, ds[0])
	next := t0.Add(30 * time.Second)
	must(t, "FinishDelivery retrying", s.Deliveries.FinishDelivery(t.Context(), ds[0].ID, "i1", deliveries.Result{
		Status: deliveries.StatusRetrying, At: t0, HTTPStatus: 503, Error: "receiver answered 503", NextAttemptAt: next}))
	got := delivery(t, s, h.ID, ds[0].ID)
	if got.Status != deliveries.StatusRetrying || got.Attempts != 1 || got.HTTPStatus == nil || *got.HTTPStatus != 503 ||
		got.LastError != "receiver answered 503" || got.DeliveredAt != nil {
		t.Errorf("after a failure: %+v", got)
	}
	checkTime(t, "next_attempt_at", got.NextAttemptAt, next)
	checkClaim(t, s, "i1", t0.Add(29*time.Second)) // not due; the second waits
	checkClaim(t, s, "i1", next, ds[0])
	must(t, "FinishDelivery dead", s.Deliveries.FinishDelivery(t.Context(), ds[0].ID, "i1", deliveries.Result{
		Status: deliveries.StatusDeadLetter, At: next, Error: "timeout"}))
	got = delivery(t, s, h.ID, ds[0].ID)
	if got.Status != deliveries.StatusDeadLetter || got.Attempts != 2 || got.HTTPStatus != nil || got.LastError != "timeout" {
		t.Errorf("after dead letter: %+v", got)
	}
	// A dead letter no longer holds back the host's later deliveries.
	checkClaim(t, s, "i1", next, ds[1])
}

func testManualRetry(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	other := createHost(t, s, newHost(h.UserID, "other", t0))
	ds := enqueue(t, s, h, 2, t0)
	_, err := s.Deliveries.RetryDelivery(t.Context(), h.ID, ds[0].ID, t0)
	checkErr(t, "RetryDelivery of a pending row", err, deliveries.ErrNotDead)
	_, err = s.Deliveries.RetryDelivery(t.Context(), h.ID, newID(), t0)
	checkErr(t, "RetryDelivery of an unknown row", err, deliveries.ErrNotFound)
	_, err = s.Deliveries.RetryDelivery(t.Context(), other.ID, ds[0].ID, t0)
	checkErr(t, "RetryDelivery through another host", err, deliveries.ErrNotFound)

	checkClaim(t, s, "i1", t0, ds[0])
	must(t, "FinishDelivery dead", s.Deliveries.FinishDelivery(t.Context(), ds[0].ID, "i1", deliveries.Result{
		Status: deliveries.StatusDeadLetter, At: t0, HTTPStatus: 500, Error: "receiver answered 500"}))
	later := t0.Add(time.Hour)
	got, err := s.Deliveries.RetryDelivery(t.Context(), h.ID, ds[0].ID, later)
	must(t, "RetryDelivery", err)
	if got.Status != deliveries.StatusRetrying || got.Attempts != 1 || got.LeaseUntil != nil {
		t.Errorf("after manual retry: %+v", got)
	}
	checkTime(t, "next_attempt_at", got.NextAttemptAt, later)
	// The revived row goes first again; the later one waits behind it.
	checkClaim(t, s, "i1", later, ds[0])
	must(t, "FinishDelivery", s.Deliveries.FinishDelivery(t.Context(), ds[0].ID, "i1", success(later)))
	checkClaim(t, s, "i1", later, ds[1])
}

func testRetriedRowWaitsForLeasedRow(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	ds := enqueue(t, s, h, 2, t0)
	checkClaim(t, s, "i1", t0, ds[0])
	must(t, "FinishDelivery dead", s.Deliveries.FinishDelivery(t.Context(), ds[0].ID, "i1", deliveries.Result{
		Status: deliveries.StatusDeadLetter, At: t0, Error: "x"}))
	checkClaim(t, s, "i1", t0, ds[1]) // in flight
	_, err := s.Deliveries.RetryDelivery(t.Context(), h.ID, ds[0].ID, t0)
	must(t, "RetryDelivery", err)
	checkClaim(t, s, "i2", t0) // the host has a send in flight
	must(t, "FinishDelivery", s.Deliveries.FinishDelivery(t.Context(), ds[1].ID, "i1", deliveries.Result{
		Status: deliveries.StatusRetrying, At: t0, HTTPStatus: 401, Error: "receiver answered 401", NextAttemptAt: t0}))
	checkClaim(t, s, "i2", t0, ds[0])
}

func testClaimRace(t *testing.T, s store.Store) {
	u := owner(t, s, "ann@example.com")
	const hostsN = 30
	for i := range hostsN {
		enqueue(t, s, createHost(t, s, newHost(u, fmt.Sprint("h", i), t0)), 2, t0)
	}
	claimed := make([][]deliveries.Delivery, 10)
	errs := race(len(claimed), func(i int) error {
		var err error
		claimed[i], err = s.Deliveries.ClaimDue(t.Context(), fmt.Sprint("i", i), t0, time.Minute, 7)
		return err
	})
	countRace(t, errs)
	seen := map[string]string{}
	hostsSeen := map[string]bool{}
	for i, batch := range claimed {
		for _, d := range batch {
			if prev, ok := seen[d.ID]; ok {
				t.Errorf("delivery %s claimed by %s and i%d", d.ID, prev, i)
			}
			if hostsSeen[d.HostID] {
				t.Errorf("host %s has two deliveries claimed at once", d.HostID)
			}
			seen[d.ID], hostsSeen[d.HostID] = fmt.Sprint("i", i), true
		}
	}
	if len(seen) != hostsN {
		t.Errorf("claimed %d deliveries in all, want %d (one per host)", len(seen), hostsN)
	}
}
