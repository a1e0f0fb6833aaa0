// Package dashboard is the back office's view of the service over time:
// a sample of the fleet's live figures each minute (the Sampler, which
// every hub instance runs), and the series the admin dashboard draws from
// those samples and from the billing ledger (Service.Series).
//
// Buckets are whole UTC hours or days (package buckets); a series ends
// with the bucket that holds now. Calls, tokens and revenue are added up
// per bucket from the ledger; online hosts are the most seen in a bucket's
// samples, the webhook figures those of its last sample. A bucket with
// nothing in it reads zero.
package dashboard

import (
	"context"
	"fmt"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/buckets"
	"hostgate/internal/deliveries"
	"hostgate/internal/periodic"
)

// Sample is the fleet's live figures in one minute.
type Sample struct {
	// Minute is the minute sampled: its start, UTC.
	Minute time.Time
	// OnlineHosts is the agents connected to any instance (coordination's
	// presence), the figure the dashboard summary shows.
	OnlineHosts int64
	// WebhooksPending is the deliveries still to be sent (pending or
	// retrying), WebhooksDead the dead letters.
	WebhooksPending int64
	WebhooksDead    int64
	// SampledAt is when the figures were read.
	SampledAt time.Time
}

// FleetBucket is the samples of one bucket: the most hosts online in it,
// and the webhook figures of its last sample.
type FleetBucket struct {
	Start           time.Time
	OnlineHosts     int64
	WebhooksPending int64
	WebhooksDead    int64
}

// Store keeps the fleet samples.
type Store interface {
	// UpsertFleetSample writes the sample of s.Minute, replacing the one
	// written for that minute before (by this instance or another).
	UpsertFleetSample(ctx context.Context, s Sample) error
	// FleetBuckets groups the samples of minutes from from (inclusive) to
	// to (exclusive) by bucket of unit, in the store: only buckets with a
	// sample, oldest first.
	FleetBuckets(ctx context.Context, unit buckets.Unit, from, to time.Time) ([]FleetBucket, error)
	// PruneFleetSamples deletes the samples of minutes before before.
	PruneFleetSamples(ctx context.Context, before time.Time) (int64, error)
}

// Ledger is the billing the series adds up (billing.Service).
type Ledger interface {
	Activity(ctx context.Context, unit buckets.Unit, from, to time.Time) ([]billing.Activity, error)
}

// Presence counts the agents connected now, cluster-wide
// (dispatch.Dispatcher).
type Presence interface {
	CountOnline(ctx context.Context) (int64, error)
}

// Queue counts the webhook queue (deliveries.Store).
type Queue interface {
	CountQueue(ctx context.Context) (deliveries.Queue, error)
}

// Series bounds: points per bucket unit, and the defaults.
const (
	MaxHourPoints     = 168 // a week
	MaxDayPoints      = 90  // a quarter
	DefaultHourPoints = 24
	DefaultDayPoints  = 30
)

// Retention is how long samples are kept: the longest series reaches
// back MaxDayPoints days; one day more covers the first bucket whole.
const Retention = (MaxDayPoints + 1) * 24 * time.Hour

// Point is one bucket of a series.
type Point struct {
	T               time.Time `json:"t" doc:"The bucket's start (UTC)"`
	Calls           int64     `json:"calls" doc:"Charged client API calls"`
	TokensCharged   float64   `json:"tokens_charged" doc:"Tokens those calls took"`
	RevenueCNY      float64   `json:"revenue_cny" doc:"Recharges paid minus refunded in the bucket, CNY"`
	OnlineHosts     int64     `json:"online_hosts" doc:"Most agents connected at once in the bucket's minute samples"`
	WebhooksPending int64     `json:"webhooks_pending" doc:"Webhook deliveries waiting to be sent, at the bucket's last sample"`
	WebhooksDead    int64     `json:"webhooks_dead" doc:"Dead-lettered webhook deliveries, at the bucket's last sample"`
}

// Series is the dashboard's figures per bucket, oldest first, one point
// per bucket.
type Series struct {
	Bucket string  `json:"bucket" enum:"hour,day"`
	Items  []Point `json:"items"`
}

// Service reads the dashboard's figures.
type Service struct {
	store    Store
	ledger   Ledger
	presence Presence
	queue    Queue
	now      func() time.Time
}

// NewService returns the dashboard service.
func NewService(st Store, l Ledger, p Presence, q Queue) *Service {
	return &Service{store: st, ledger: l, presence: p, queue: q, now: time.Now}
}

// SetClock makes s read the time from now: for tests that sample or
// read series at a chosen moment. Call it before s is shared.
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Points checks a series' length for unit: 0 is the unit's default, and
// at most MaxHourPoints hours or MaxDayPoints days (else invalid_query).
func Points(unit buckets.Unit, n int) (int, error) {
	def, most := DefaultHourPoints, MaxHourPoints
	if unit == buckets.Day {
		def, most = DefaultDayPoints, MaxDayPoints
	}
	switch {
	case n == 0:
		return def, nil
	case n < 1 || n > most:
		return 0, apperr.New(apperr.CodeInvalidQuery, fmt.Sprintf("points must be 1..%d for bucket=%s", most, unit))
	}
	return n, nil
}

// Series returns the last points buckets of unit ("hour" or "day", ""
// for hour) up to now: bad values are invalid_query.
func (s *Service) Series(ctx context.Context, unit string, points int) (Series, error) {
	u, err := buckets.Parse(unit)
	if err != nil {
		return Series{}, apperr.New(apperr.CodeInvalidQuery, err.Error())
	}
	n, err := Points(u, points)
	if err != nil {
		return Series{}, err
	}
	from, to := u.Window(s.now(), n)
	act, err := s.ledger.Activity(ctx, u, from, to)
	if err != nil {
		return Series{}, err
	}
	fleet, err := s.store.FleetBuckets(ctx, u, from, to)
	if err != nil {
		return Series{}, err
	}
	return Fill(u, from, n, act, fleet), nil
}

// Fill lays the buckets that had something out over the n buckets of
// unit starting at from, zeros where nothing was.
func Fill(u buckets.Unit, from time.Time, n int, act []billing.Activity, fleet []FleetBucket) Series {
	out := Series{Bucket: string(u), Items: make([]Point, n)}
	for i := range out.Items {
		out.Items[i].T = from.Add(time.Duration(i) * u.Step())
	}
	at := func(start time.Time) *Point {
		if i := u.Index(from, start); i >= 0 && i < n {
			return &out.Items[i]
		}
		return nil
	}
	for _, a := range act {
		if p := at(a.Start); p != nil {
			p.Calls, p.TokensCharged, p.RevenueCNY = a.Charges, a.Charged.Tokens(), billing.CNY(a.RevenueFen())
		}
	}
	for _, f := range fleet {
		if p := at(f.Start); p != nil {
			p.OnlineHosts, p.WebhooksPending, p.WebhooksDead = f.OnlineHosts, f.WebhooksPending, f.WebhooksDead
		}
	}
	return out
}

// Live reads the fleet's figures now: what a sample records.
func (s *Service) Live(ctx context.Context) (Sample, error) {
	now := s.now().UTC()
	online, err := s.presence.CountOnline(ctx)
	if err != nil {
		return Sample{}, err
	}
	q, err := s.queue.CountQueue(ctx)
	if err != nil {
		return Sample{}, err
	}
	return Sample{Minute: now.Truncate(time.Minute), OnlineHosts: online, WebhooksPending: q.Unfinished,
		WebhooksDead: q.Dead, SampledAt: now}, nil
}

// SampleInterval is how often each instance samples the fleet.
const SampleInterval = time.Minute

// Sample records the fleet's figures of the current minute, replacing
// what any instance recorded for it, and deletes samples older than
// Retention. Every instance runs it each SampleInterval (Run): there is
// one sample a minute however many do.
func (s *Service) Sample(ctx context.Context) error {
	x, err := s.Live(ctx)
	if err != nil {
		return err
	}
	if err := s.store.UpsertFleetSample(ctx, x); err != nil {
		return err
	}
	_, err = s.store.PruneFleetSamples(ctx, x.Minute.Add(-Retention))
	return err
}

// Run samples the fleet at once and then each SampleInterval until ctx
// ends (and once more then); errors go to onErr and the loop goes on.
func (s *Service) Run(ctx context.Context, onErr func(error)) {
	if err := s.Sample(ctx); err != nil {
		onErr(err)
	}
	periodic.Run(ctx, SampleInterval, s.Sample, onErr)
}
