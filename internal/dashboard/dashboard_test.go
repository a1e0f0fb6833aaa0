package dashboard_test

import (
	"context"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/buckets"
	"hostgate/internal/dashboard"
	"hostgate/internal/deliveries"
)

// fakes: a store of samples by minute, a ledger and the live figures.
type fake struct {
	samples  map[time.Time]dashboard.Sample
	pruned   time.Time
	act      []billing.Activity
	fleet    []dashboard.FleetBucket
	asked    [2]time.Time
	online   int64
	queue    deliveries.Queue
	askedFor buckets.Unit
}

func (f *fake) UpsertFleetSample(_ context.Context, s dashboard.Sample) error {
	f.samples[s.Minute] = s
	return nil
}

func (f *fake) FleetBuckets(_ context.Context, u buckets.Unit, from, to time.Time) ([]dashboard.FleetBucket, error) {
	return f.fleet, nil
}

func (f *fake) PruneFleetSamples(_ context.Context, before time.Time) (int64, error) {
	f.pruned = before
	return 0, nil
}

func (f *fake) Activity(_ context.Context, u buckets.Unit, from, to time.Time) ([]billing.Activity, error) {
	f.asked, f.askedFor = [2]time.Time{from, to}, u
	return f.act, nil
}

func (f *fake) CountOnline(context.Context) (int64, error)           { return f.online, nil }
func (f *fake) CountQueue(context.Context) (deliveries.Queue, error) { return f.queue, nil }
func newService(f *fake, now time.Time) *dashboard.Service {
	s := dashboard.NewService(f, f, f, f)
	s.SetClock(func() time.Time { return now })
	return s
}

var h10 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// TestSeriesLaysBucketsOut: the window ends with the bucket of now; each
// bucket's figures land at its place, the others are zero.
func TestSeriesLaysBucketsOut(t *testing.T) {
	f := &fake{
		act: []billing.Activity{
			{Start: h10, Charges: 3, Charged: 1500, PaidFen: 1000},
			{Start: h10.Add(3 * time.Hour), Charges: 1, Charged: 100, PaidFen: 50, RefundedFen: 300},
		},
		fleet: []dashboard.FleetBucket{{Start: h10.Add(time.Hour), OnlineHosts: 9, WebhooksPending: 2, WebhooksDead: 1}},
	}
	s := newService(f, h10.Add(3*time.Hour+20*time.Minute))
	got, err := s.Series(t.Context(), "hour", 4)
	if err != nil {
		t.Fatal(err)
	}
	if f.askedFor != buckets.Hour || !f.asked[0].Equal(h10) || !f.asked[1].Equal(h10.Add(4*time.Hour)) {
		t.Errorf("asked the ledger for %s %v, want hours 10:00..14:00", f.askedFor, f.asked)
	}
	want := []dashboard.Point{
		{T: h10, Calls: 3, TokensCharged: 1.5, RevenueCNY: 10},
		{T: h10.Add(time.Hour), OnlineHosts: 9, WebhooksPending: 2, WebhooksDead: 1},
		{T: h10.Add(2 * time.Hour)},
		{T: h10.Add(3 * time.Hour), Calls: 1, TokensCharged: 0.1, RevenueCNY: -2.5},
	}
	if got.Bucket != "hour" || len(got.Items) != len(want) {
		t.Fatalf("series = %+v", got)
	}
	for i, p := range got.Items {
		if p != want[i] {
			t.Errorf("item %d = %+v, want %+v", i, p, want[i])
		}
	}
}

func TestSeriesBounds(t *testing.T) {
	s := newService(&fake{}, h10)
	for _, c := range []struct {
		bucket string
		points int
		want   int // items; 0: invalid_query
	}{
		{"", 0, 24}, {"hour", 0, 24}, {"hour", 1, 1}, {"hour", 168, 168}, {"hour", 169, 0}, {"hour", -1, 0},
		{"day", 0, 30}, {"day", 90, 90}, {"day", 91, 0}, {"week", 1, 0},
	} {
		got, err := s.Series(t.Context(), c.bucket, c.points)
		switch {
		case c.want == 0 && !apperr.Is(err, apperr.CodeInvalidQuery):
			t.Errorf("%s %d: err %v, want invalid_query", c.bucket, c.points, err)
		case c.want > 0 && (err != nil || len(got.Items) != c.want):
			t.Errorf("%s %d: %d items, %v; want %d", c.bucket, c.points, len(got.Items), err, c.want)
		}
	}
}

// TestSampleIsPerMinute: instances sampling within one minute write one
// sample (the store's key is the minute), and old samples are pruned.
func TestSampleIsPerMinute(t *testing.T) {
	f := &fake{samples: map[time.Time]dashboard.Sample{}, online: 4, queue: deliveries.Queue{Unfinished: 2, Dead: 1}}
	at := h10.Add(30 * time.Second)
	for _, now := range []time.Time{at, at.Add(20 * time.Second)} {
		if err := newService(f, now).Sample(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.samples) != 1 {
		t.Fatalf("samples = %v, want one for 10:00", f.samples)
	}
	got := f.samples[h10]
	if got.OnlineHosts != 4 || got.WebhooksPending != 2 || got.WebhooksDead != 1 || !got.SampledAt.Equal(at.Add(20*time.Second)) {
		t.Errorf("sample = %+v", got)
	}
	if want := h10.Add(-dashboard.Retention); !f.pruned.Equal(want) {
		t.Errorf("pruned before %v, want %v", f.pruned, want)
	}
}
