package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/hosts"
	"hostgate/internal/l1gate"
	"hostgate/internal/store"
)

var l1gateTests = []test{
	{"HostsByBID", testHostsByBID},
	{"NonceOnce", testNonceOnce},
	{"NonceConcurrentAddOnce", testNonceConcurrentAddOnce},
	{"NonceExpiry", testNonceExpiry},
	{"NoncePrune", testNoncePrune},
}

// addNonce adds one nonce and fails on an error.
func addNonce(t *testing.T, s store.Store, scope, nonce string, now, until time.Time) bool {
	t.Helper()
	added, err := s.L1Gate.AddNonce(t.Context(), scope, nonce, now, until)
	must(t, "AddNonce", err)
	return added
}

// testNonceOnce: a nonce is added once per scope; scopes are independent.
func testNonceOnce(t *testing.T, s store.Store) {
	until := t0.Add(10 * time.Minute)
	if !addNonce(t, s, "host-a", "n0nce-0123456789ab", t0, until) {
		t.Fatal("first add: not added")
	}
	if addNonce(t, s, "host-a", "n0nce-0123456789ab", t0.Add(time.Minute), until) {
		t.Error("second add in the same scope: added again")
	}
	if !addNonce(t, s, "host-b", "n0nce-0123456789ab", t0, until) {
		t.Error("same nonce in another scope: not added")
	}
	if !addNonce(t, s, "host-a", "n0nce-0123456789ac", t0, until) {
		t.Error("another nonce in the same scope: not added")
	}
}

// testNonceConcurrentAddOnce: of concurrent adds of one key, exactly one
// reports added; none fails.
func testNonceConcurrentAddOnce(t *testing.T, s store.Store) {
	const n = 16
	added := make([]bool, n)
	errs := race(n, func(i int) error {
		var err error
		added[i], err = s.L1Gate.AddNonce(t.Context(), "host-a", "same-nonce-0123456", t0, t0.Add(time.Minute))
		return err
	})
	countRace(t, errs)
	if got := countTrue(added); got != 1 {
		t.Fatalf("%d of %d concurrent adds of one nonce reported added, want 1", got, n)
	}
	// And once expired, exactly one racing add takes it over.
	later := t0.Add(time.Minute)
	errs = race(n, func(i int) error {
		var err error
		added[i], err = s.L1Gate.AddNonce(t.Context(), "host-a", "same-nonce-0123456", later, later.Add(time.Minute))
		return err
	})
	countRace(t, errs)
	if got := countTrue(added); got != 1 {
		t.Fatalf("%d of %d concurrent adds of one expired nonce reported added, want 1", got, n)
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// testNonceExpiry: a nonce is remembered until the instant until, and may
// be added again from then on, for a new validity.
func testNonceExpiry(t *testing.T, s store.Store) {
	until := t0.Add(10 * time.Minute)
	addNonce(t, s, "host-a", "n0nce-0123456789ab", t0, until)
	if addNonce(t, s, "host-a", "n0nce-0123456789ab", until.Add(-time.Microsecond), until) {
		t.Error("added again a microsecond before it expired")
	}
	later := until.Add(10 * time.Minute)
	if !addNonce(t, s, "host-a", "n0nce-0123456789ab", until, later) {
		t.Fatal("not added again once expired")
	}
	if addNonce(t, s, "host-a", "n0nce-0123456789ab", until.Add(time.Minute), later) {
		t.Error("taken over nonce forgotten early: the takeover did not extend it")
	}
}

// testNoncePrune: pruning deletes only expired nonces, at most limit at a
// time, and a pruned nonce may be added again.
func testNoncePrune(t *testing.T, s store.Store) {
	ctx := t.Context()
	for i := range 5 {
		addNonce(t, s, "host-a", fmt.Sprintf("expired-nonce-%04d", i), t0, t0.Add(time.Duration(i)*time.Second))
	}
	addNonce(t, s, "host-a", "live-nonce-0000000", t0, t0.Add(time.Hour))
	now := t0.Add(time.Minute)
	n, err := s.L1Gate.PruneNonces(ctx, now, 3)
	must(t, "PruneNonces", err)
	if n != 3 {
		t.Errorf("first prune: %d deleted, want 3 (the limit)", n)
	}
	n, err = s.L1Gate.PruneNonces(ctx, now, 3)
	must(t, "PruneNonces", err)
	if n != 2 {
		t.Errorf("second prune: %d deleted, want the other 2", n)
	}
	n, err = s.L1Gate.PruneNonces(ctx, now, 3)
	must(t, "PruneNonces", err)
	if n != 0 {
		t.Errorf("third prune: %d deleted, want 0", n)
	}
	if addNonce(t, s, "host-a", "live-nonce-0000000", now, t0.Add(time.Hour)) {
		t.Error("a live nonce was pruned")
	}
	if !addNonce(t, s, "host-a", "expired-nonce-0000", now, now.Add(time.Minute)) {
		t.Error("a pruned nonce was not added again")
	}
}

// testHostsByBID: a bid is unique per user only, so the lookup returns
// every undeleted host with it, of every user, oldest first, with its
// status, its owner's state and its sealed secret; deleted hosts and other
// bids never appear.
func testHostsByBID(t *testing.T, s store.Store) {
	ctx := t.Context()
	ann := owner(t, s, "ann@example.com")
	bob := createUser(t, s, func() accounts.User {
		u := newUser("bob@example.com", "bob", t0)
		u.Status = accounts.StatusSuspended
		return u
	}()).user.ID
	cat := owner(t, s, "cat@example.com")

	a := newHost(ann, "a", t0)
	b := newHost(bob, "b", t0.Add(time.Second))
	b.BID, b.Status = a.BID, hosts.StatusBanned
	c := newHost(cat, "c", t0.Add(2*time.Second))
	c.BID = a.BID
	other := newHost(ann, "other", t0)
	for _, h := range []hosts.Host{a, b, c, other} {
		createHost(t, s, h)
	}
	must(t, "DeleteHost", hosts.DeleteHost(ctx, s.Hosts, cat, c.ID, t0, nil))

	got, err := s.L1Gate.HostsByBID(ctx, a.BID)
	must(t, "HostsByBID", err)
	want := []l1gate.Candidate{
		{HostID: a.ID, UserID: ann, Status: hosts.StatusPending, OwnerActive: true, SecretSealed: sealed(a, 1)},
		{HostID: b.ID, UserID: bob, Status: hosts.StatusBanned, OwnerActive: false, SecretSealed: sealed(b, 1)},
	}
	if !slices.EqualFunc(got, want, equalCandidate) {
		t.Errorf("HostsByBID: got %+v, want %+v", got, want)
	}
	none, err := s.L1Gate.HostsByBID(ctx, a.BID+1)
	must(t, "HostsByBID of an unused bid", err)
	if len(none) != 0 {
		t.Errorf("HostsByBID of an unused bid: got %+v", none)
	}
}

func equalCandidate(x, y l1gate.Candidate) bool {
	return x.HostID == y.HostID && x.UserID == y.UserID && x.Status == y.Status &&
		x.OwnerActive == y.OwnerActive && string(x.SecretSealed) == string(y.SecretSealed)
}
