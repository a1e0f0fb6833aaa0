package deliveries_test

import (
	"context"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/deliveries"
)

type fakeHistory struct {
	rows map[string]deliveries.Delivery // by id
}

func (f *fakeHistory) ListDeliveries(_ context.Context, hostID string, limit int) ([]deliveries.Delivery, error) {
	var out []deliveries.Delivery
	for _, d := range f.rows {
		if d.HostID == hostID && len(out) < limit {
			out = append(out, d)
		}
	}
	return out, nil
}

func (f *fakeHistory) RetryDelivery(_ context.Context, hostID, id string, now time.Time) (deliveries.Delivery, error) {
	d, ok := f.rows[id]
	if !ok || d.HostID != hostID {
		return deliveries.Delivery{}, deliveries.ErrNotFound
	}
	if d.Status != deliveries.StatusDeadLetter {
		return deliveries.Delivery{}, deliveries.ErrNotDead
	}
	d.Status, d.NextAttemptAt = deliveries.StatusRetrying, now
	f.rows[id] = d
	return d, nil
}

type wakes int

func (w *wakes) Wake() { *w++ }

// owned: alice owns host-a, bob owns host-b.
func owned(_ context.Context, userID, hostID string) (string, error) {
	if (userID == "alice" && hostID == "host-a") || (userID == "bob" && hostID == "host-b") {
		return hostID, nil
	}
	return "", apperr.NotFound("host")
}

func newService() (*deliveries.Service, *wakes) {
	h := &fakeHistory{rows: map[string]deliveries.Delivery{
		"d-dead": {ID: "d-dead", HostID: "host-a", Status: deliveries.StatusDeadLetter},
		"d-ok":   {ID: "d-ok", HostID: "host-a", Status: deliveries.StatusSuccess},
		"d-bob":  {ID: "d-bob", HostID: "host-b", Status: deliveries.StatusDeadLetter},
	}}
	w := new(wakes)
	return deliveries.NewService(h, owned, w), w
}

func TestServiceListIsTheOwnersOnly(t *testing.T) {
	s, _ := newService()
	ds, err := s.List(t.Context(), "alice", "host-a", deliveries.DefaultLimit)
	if err != nil || len(ds) != 2 {
		t.Fatalf("List = %d rows, %v; want 2", len(ds), err)
	}
	if _, err := s.List(t.Context(), "alice", "host-b", deliveries.DefaultLimit); apperr.Code(err) != apperr.CodeNotFound {
		t.Fatalf("another user's host: %v, want not_found", err)
	}
}

func TestServiceRetry(t *testing.T) {
	s, w := newService()
	d, err := s.Retry(t.Context(), "alice", "host-a", "d-dead")
	if err != nil || d.Status != deliveries.StatusRetrying || *w != 1 {
		t.Fatalf("Retry = %+v, %v (wakes %d); want retrying, one wake", d, err, *w)
	}
	for _, c := range []struct{ user, host, id, code string }{
		{"alice", "host-a", "d-ok", deliveries.CodeDeliveryNotDead},
		{"alice", "host-a", "d-missing", apperr.CodeNotFound},
		{"alice", "host-a", "d-bob", apperr.CodeNotFound}, // another host's delivery
		{"alice", "host-b", "d-bob", apperr.CodeNotFound}, // another user's host
	} {
		if _, err := s.Retry(t.Context(), c.user, c.host, c.id); apperr.Code(err) != c.code {
			t.Errorf("Retry(%s, %s, %s) = %v, want %s", c.user, c.host, c.id, err, c.code)
		}
	}
	if *w != 1 {
		t.Errorf("refused retries woke the worker: %d wakes", *w)
	}
}
