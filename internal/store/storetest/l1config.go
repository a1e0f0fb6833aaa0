package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/l1config"
	"hostgate/internal/store"
)

var l1configTests = []test{
	{"UpdateL1", testUpdateL1},
	{"UpdateL1Refusals", testUpdateL1Refusals},
	{"UpdateL1Chain", testUpdateL1Chain},
	{"RotateSecretQueues", testRotateSecretQueues},
}

// l1Build is a BuildFunc that writes change n and queues a delivery whose
// payload records the secret it replaced (as the service signs with it).
func l1Build(n int, url string, seen *hosts.Host) l1config.BuildFunc {
	return func(h hosts.Host, sec hosts.Secrets) (l1config.Change, deliveries.Delivery, error) {
		if seen != nil {
			*seen = h
		}
		d := newDelivery(h, url, t0)
		d.Payload = fmt.Appendf(nil, `{"prev":%q,"new":"secret %d"}`, sec.SecretSealed, n)
		return l1config.Change{BID: h.BID + 1, ReportURL: url, SecretSealed: fmt.Appendf(nil, "secret %d", n), WebhookFormat: "B"}, d, nil
	}
}

func testUpdateL1(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	var seen hosts.Host
	got, err := l1config.UpdateL1(t.Context(), s.L1Config, h.UserID, h.ID, l1Build(1, "https://hooks.example.com/a", &seen))
	must(t, "UpdateL1", err)
	if seen.BID != h.BID || seen.ReportURL != "" {
		t.Errorf("build saw %+v, want the row before the change", seen)
	}
	if got.BID != h.BID+1 || got.ReportURL != "https://hooks.example.com/a" || got.WebhookFormat != "B" {
		t.Errorf("updated host %+v", got)
	}
	_, sec, err := s.Hosts.HostByID(t.Context(), h.ID)
	must(t, "HostByID", err)
	if string(sec.SecretSealed) != "secret 1" {
		t.Errorf("sealed secret %q, want the new one", sec.SecretSealed)
	}
	ds, err := s.Deliveries.ListDeliveries(t.Context(), h.ID, 0)
	must(t, "ListDeliveries", err)
	if len(ds) != 1 || ds[0].Status != deliveries.StatusPending || !strings.Contains(string(ds[0].Payload), string(sealed(h, 1))) {
		t.Fatalf("queued %+v", ds)
	}
	// Any owner for owner "" (the agent entry); no URL: skipped_no_url.
	_, err = l1config.UpdateL1(t.Context(), s.L1Config, "", h.ID, l1Build(2, "", nil))
	must(t, "UpdateL1 any owner", err)
	ds, _ = s.Deliveries.ListDeliveries(t.Context(), h.ID, 0)
	if len(ds) != 2 || ds[0].Status != deliveries.StatusSkippedNoURL {
		t.Errorf("second change queued %+v", ds)
	}
}

func testUpdateL1Refusals(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	h := createHost(t, s, newHost(ann, "web", t0))
	gone := createHost(t, s, newHost(ann, "old", t0))
	must(t, "DeleteHost", hosts.DeleteHost(t.Context(), s.Hosts, ann, gone.ID, t0, nil))
	never := func(hosts.Host, hosts.Secrets) (l1config.Change, deliveries.Delivery, error) {
		t.Fatal("build called for a host the caller may not change")
		return l1config.Change{}, deliveries.Delivery{}, nil
	}
	if _, err := l1config.UpdateL1(t.Context(), s.L1Config, bob, h.ID, never); !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("another owner: %v, want ErrNotFound", err)
	}
	if _, err := l1config.UpdateL1(t.Context(), s.L1Config, ann, gone.ID, never); !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("deleted host: %v, want ErrNotFound", err)
	}
	// The bid of a deleted host of the same owner stays reserved.
	clash := func(hh hosts.Host, sec hosts.Secrets) (l1config.Change, deliveries.Delivery, error) {
		return l1config.Change{BID: gone.BID, SecretSealed: []byte("x"), WebhookFormat: "A"}, newDelivery(hh, "", t0), nil
	}
	if _, err := l1config.UpdateL1(t.Context(), s.L1Config, ann, h.ID, clash); !errors.Is(err, hosts.ErrBIDTaken) {
		t.Errorf("bid clash: %v, want ErrBIDTaken", err)
	}
	boom := errors.New("boom")
	failing := func(hosts.Host, hosts.Secrets) (l1config.Change, deliveries.Delivery, error) {
		return l1config.Change{}, deliveries.Delivery{}, boom
	}
	if _, err := l1config.UpdateL1(t.Context(), s.L1Config, ann, h.ID, failing); !errors.Is(err, boom) {
		t.Errorf("build error: %v, want it as is", err)
	}
	got, sec, _ := s.Hosts.HostByID(t.Context(), h.ID)
	if got.BID != h.BID || string(sec.SecretSealed) != string(sealed(h, 1)) {
		t.Errorf("refused writes changed the host: %+v %q", got, sec.SecretSealed)
	}
	if ds, _ := s.Deliveries.ListDeliveries(t.Context(), h.ID, 0); len(ds) != 0 {
		t.Errorf("refused writes queued %d deliveries", len(ds))
	}
}

// testUpdateL1Chain: concurrent writes to one host each see the secret the
// previous one wrote, so in seq order every delivery's "prev" is the
// "new" of the one before it: the receiver's chain never breaks.
func testUpdateL1Chain(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			build := func(hh hosts.Host, sec hosts.Secrets) (l1config.Change, deliveries.Delivery, error) {
				ch, d, err := l1Build(i, "https://hooks.example.com/a", nil)(hh, sec)
				ch.BID = h.BID // keep the bid: only the secret chains
				return ch, d, err
			}
			if _, err := l1config.UpdateL1(t.Context(), s.L1Config, h.UserID, h.ID, build); err != nil {
				t.Errorf("UpdateL1 %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	ds, err := s.Deliveries.ListDeliveries(t.Context(), h.ID, 0)
	must(t, "ListDeliveries", err)
	if len(ds) != n {
		t.Fatalf("%d deliveries, want %d", len(ds), n)
	}
	prevNew := string(sealed(h, 1))
	for i := len(ds) - 1; i >= 0; i-- { // oldest first
		var p struct{ Prev, New string }
		_ = json.Unmarshal(ds[i].Payload, &p)
		if p.Prev != prevNew {
			t.Fatalf("delivery seq %d signed with %q, want %q (the secret before it)", ds[i].Seq, p.Prev, prevNew)
		}
		prevNew = p.New
	}
}

func testRotateSecretQueues(t *testing.T, s store.Store) {
	h := createHost(t, s, newHost(owner(t, s, "ann@example.com"), "web", t0))
	iss := issuance("tok", t0.Add(900e9))
	iss.SecretSealed = []byte("rotated")
	var queuedFrom []byte
	got, sec, err := l1config.RotateSecret(t.Context(), s.L1Config, h.UserID, h.ID, iss, func(hh hosts.Host, old hosts.Secrets) (deliveries.Delivery, error) {
		queuedFrom = old.SecretSealed
		return newDelivery(hh, "https://hooks.example.com/a", t0), nil
	})
	must(t, "RotateSecret", err)
	if got.ID != h.ID || string(sec.SecretSealed) != "rotated" || sec.CredGen != 1 || string(queuedFrom) != string(sealed(h, 1)) {
		t.Errorf("rotated %+v %+v, queued from %q", got, sec, queuedFrom)
	}
	if ds, _ := s.Deliveries.ListDeliveries(t.Context(), h.ID, 0); len(ds) != 1 {
		t.Errorf("rotation queued %d deliveries, want 1", len(ds))
	}
	_, _, err = l1config.RotateSecret(t.Context(), s.L1Config, owner(t, s, "bob@example.com"), h.ID, iss, func(hosts.Host, hosts.Secrets) (deliveries.Delivery, error) {
		t.Fatal("queue called for another owner's host")
		return deliveries.Delivery{}, nil
	})
	if !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("another owner: %v, want ErrNotFound", err)
	}
}
