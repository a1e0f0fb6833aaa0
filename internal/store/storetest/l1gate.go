package storetest

import (
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
	must(t, "DeleteHost", s.DeleteHost(ctx, cat, c.ID, t0, nil))

	got, err := s.HostsByBID(ctx, a.BID)
	must(t, "HostsByBID", err)
	want := []l1gate.Candidate{
		{HostID: a.ID, UserID: ann, Status: hosts.StatusPending, OwnerActive: true, SecretSealed: sealed(a, 1)},
		{HostID: b.ID, UserID: bob, Status: hosts.StatusBanned, OwnerActive: false, SecretSealed: sealed(b, 1)},
	}
	if !slices.EqualFunc(got, want, equalCandidate) {
		t.Errorf("HostsByBID: got %+v, want %+v", got, want)
	}
	none, err := s.HostsByBID(ctx, a.BID+1)
	must(t, "HostsByBID of an unused bid", err)
	if len(none) != 0 {
		t.Errorf("HostsByBID of an unused bid: got %+v", none)
	}
}

func equalCandidate(x, y l1gate.Candidate) bool {
	return x.HostID == y.HostID && x.UserID == y.UserID && x.Status == y.Status &&
		x.OwnerActive == y.OwnerActive && string(x.SecretSealed) == string(y.SecretSealed)
}
