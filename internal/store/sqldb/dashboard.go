package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/buckets"
	"hostgate/internal/dashboard"
)

// Dashboard is the fleet samples' storage, on the shared core.
type Dashboard struct{ d *DB }

var _ dashboard.Store = Dashboard{}

// Dashboard returns the fleet samples' storage.
func (d *DB) Dashboard() dashboard.Store { return Dashboard{d} }

// bucketKey is the SQL of the key (buckets.Unit.Key) of the bucket of
// unit holding the time in column col: on an engine that stores times as
// TimeFormat text, the text's first characters (the layouts are its
// prefixes); otherwise the time written in UTC by to_char.
func (d *DB) bucketKey(col string, unit buckets.Unit) string {
	if d.dialect.TextTimes {
		return fmt.Sprintf("substr(%s, 1, %d)", col, len(unit.KeyLayout()))
	}
	layout := `'YYYY-MM-DD"T"HH24'`
	if unit == buckets.Day {
		layout = `'YYYY-MM-DD'`
	}
	return fmt.Sprintf("to_char(%s AT TIME ZONE 'UTC', %s)", col, layout)
}

// bucketStart scans a bucket key into the bucket's start.
type bucketStart struct {
	unit buckets.Unit
	t    *time.Time
}

// Scan implements sql.Scanner.
func (b bucketStart) Scan(src any) error {
	var k string
	switch v := src.(type) {
	case string:
		k = v
	case []byte:
		k = string(v)
	default:
		return fmt.Errorf("bucket key holds %T", src)
	}
	t, err := b.unit.ParseKey(k)
	*b.t = t
	return err
}

// UpsertFleetSample implements dashboard.Store: the row of the minute is
// inserted or, when any instance wrote it already, replaced.
func (s Dashboard) UpsertFleetSample(ctx context.Context, x dashboard.Sample) error {
	d := s.d
	_, err := d.write.ExecContext(ctx, `INSERT INTO fleet_samples
		(minute, online_hosts, webhooks_pending, webhooks_dead, sampled_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (minute) DO UPDATE SET online_hosts = excluded.online_hosts,
			webhooks_pending = excluded.webhooks_pending, webhooks_dead = excluded.webhooks_dead,
			sampled_at = excluded.sampled_at`,
		d.timeArg(x.Minute.Truncate(time.Minute)), x.OnlineHosts, x.WebhooksPending, x.WebhooksDead, d.timeArg(x.SampledAt))
	if err != nil {
		return d.errorf("write fleet sample", err)
	}
	return nil
}

// FleetBuckets implements dashboard.Store in one statement over the
// primary key's range: each bucket's most hosts online, and the webhook
// figures of its latest minute.
func (s Dashboard) FleetBuckets(ctx context.Context, unit buckets.Unit, from, to time.Time) ([]dashboard.FleetBucket, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx, `WITH s AS (
			SELECT `+d.bucketKey("minute", unit)+` AS k, minute, online_hosts, webhooks_pending, webhooks_dead
			FROM fleet_samples WHERE minute >= $1 AND minute < $2),
		b AS (SELECT k, max(online_hosts) AS online, max(minute) AS last FROM s GROUP BY k)
		SELECT b.k, b.online, s.webhooks_pending, s.webhooks_dead
		FROM b JOIN s ON s.k = b.k AND s.minute = b.last
		ORDER BY b.k`, d.timeArg(from), d.timeArg(to))
	if err != nil {
		return nil, d.errorf("read fleet samples", err)
	}
	out, err := collect(rows, func(r rowScanner) (dashboard.FleetBucket, error) {
		var f dashboard.FleetBucket
		return f, r.Scan(bucketStart{unit, &f.Start}, &f.OnlineHosts, &f.WebhooksPending, &f.WebhooksDead)
	})
	if err != nil {
		return nil, d.errorf("read fleet samples", err)
	}
	return out, nil
}

// PruneFleetSamples implements dashboard.Store.
func (s Dashboard) PruneFleetSamples(ctx context.Context, before time.Time) (int64, error) {
	d := s.d
	res, err := d.write.ExecContext(ctx, `DELETE FROM fleet_samples WHERE minute < $1`, d.timeArg(before))
	if err != nil {
		return 0, d.errorf("prune fleet samples", err)
	}
	return res.RowsAffected()
}

// Activity implements billing.Store: charges grouped by bucket over
// billing_events_kind_time, recharges paid and refunded over their time
// indexes, from one snapshot, merged by bucket.
func (b Billing) Activity(ctx context.Context, unit buckets.Unit, from, to time.Time) ([]billing.Activity, error) {
	d := b.d
	lo, hi := d.timeArg(from), d.timeArg(to)
	var out []billing.Activity
	err := d.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+d.bucketKey("created_at", unit)+`, count(*), COALESCE(-SUM(units), 0)
			FROM billing_events WHERE kind = 'charge' AND created_at >= $1 AND created_at < $2
			GROUP BY 1 ORDER BY 1`, lo, hi)
		if err != nil {
			return d.errorf("billing activity", err)
		}
		charges, err := collect(rows, func(r rowScanner) (billing.Activity, error) {
			var a billing.Activity
			return a, r.Scan(bucketStart{unit, &a.Start}, &a.Charges, &a.Charged)
		})
		if err != nil {
			return d.errorf("billing activity", err)
		}
		rows, err = tx.QueryContext(ctx, `SELECT k, SUM(paid), SUM(refunded) FROM (
				SELECT `+d.bucketKey("paid_at", unit)+` AS k, amount_fen AS paid, 0 AS refunded
				FROM recharges WHERE paid_at >= $1 AND paid_at < $2
				UNION ALL
				SELECT `+d.bucketKey("refunded_at", unit)+`, 0, amount_fen
				FROM recharges WHERE refunded_at >= $1 AND refunded_at < $2) AS x
			GROUP BY k ORDER BY k`, lo, hi)
		if err != nil {
			return d.errorf("recharge activity", err)
		}
		money, err := collect(rows, func(r rowScanner) (billing.Activity, error) {
			var a billing.Activity
			return a, r.Scan(bucketStart{unit, &a.Start}, &a.PaidFen, &a.RefundedFen)
		})
		if err != nil {
			return d.errorf("recharge activity", err)
		}
		out = mergeActivity(charges, money)
		return nil
	})
	return out, err
}

// mergeActivity merges two lists of buckets, each oldest first, into one.
func mergeActivity(charges, money []billing.Activity) []billing.Activity {
	out := make([]billing.Activity, 0, len(charges)+len(money))
	for len(charges) > 0 || len(money) > 0 {
		switch {
		case len(money) == 0 || len(charges) > 0 && charges[0].Start.Before(money[0].Start):
			out, charges = append(out, charges[0]), charges[1:]
		case len(charges) == 0 || money[0].Start.Before(charges[0].Start):
			out, money = append(out, money[0]), money[1:]
		default:
			c := charges[0]
			c.PaidFen, c.RefundedFen = money[0].PaidFen, money[0].RefundedFen
			out, charges, money = append(out, c), charges[1:], money[1:]
		}
	}
	return out
}
