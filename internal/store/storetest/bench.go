package storetest

import (
	"fmt"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/hosts"
	"hostgate/internal/store"
)

// BenchmarkCharge measures one client API call's charge (mode, price and
// conditional debit with its event, one transaction), sequentially and
// from parallel callers on one balance. s must be a fresh migrated store.
func BenchmarkCharge(b *testing.B, s store.Store) {
	ctx := b.Context()
	u := accounts.User{ID: newID(), Email: newID() + "@example.com", DisplayName: "bench", Status: accounts.StatusActive, CreatedAt: t0}
	sess := accounts.Session{ID: newID(), UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(24 * 3600e9)}
	if err := s.Accounts.CreateUser(ctx, u, "hash", sess, hashOf(u.ID)); err != nil {
		b.Fatal(err)
	}
	_, err := ledger(s).AdjustBalance(ctx, billing.Adjustment{EventID: newID(), UserID: u.ID, Units: 1 << 50, Reason: "bench",
		At: t0, Audit: audit.Actor{AdminID: "bench"}.Entry(audit.ActionUserBalanceAdjust, "user", u.ID)})
	if err != nil {
		b.Fatal(err)
	}
	c := billing.Charge{UserID: u.ID, RuleCode: billing.RuleSystemMetrics, HostID: "h", APIKeyID: "k", At: t0}
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			c.EventID = newID()
			if _, err := chargeOne(ctx, s, c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c := c
				c.EventID = newID()
				if _, err := chargeOne(ctx, s, c); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkIdleFlush measures what a fleet costs the store: one liveness
// flush (MarkSeen) and one metrics flush (AppendMetrics) of flushHosts
// hosts, as idle agents cause, and one batch of an event per host, as a
// reconnect storm does (AppendEvents), reported per row. s must be a
// fresh migrated store.
func BenchmarkIdleFlush(b *testing.B, s store.Store) {
	const flushHosts = 2000
	ctx := b.Context()
	u := accounts.User{ID: newID(), Email: newID() + "@example.com", DisplayName: "bench", Status: accounts.StatusActive, CreatedAt: t0}
	sess := accounts.Session{ID: newID(), UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
	if err := s.Accounts.CreateUser(ctx, u, "hash", sess, hashOf(u.ID)); err != nil {
		b.Fatal(err)
	}
	ids := make([]string, flushHosts)
	for i := range ids {
		h := newHost(u.ID, fmt.Sprint("h", i), t0)
		if err := s.Hosts.CreateHost(ctx, h, hosts.Secrets{SecretSealed: sealed(h, 1)}, nil); err != nil {
			b.Fatal(err)
		}
		ids[i] = h.ID
	}
	// flush runs write, the batch of the hosts' rows at a time one second
	// later each round, and reports its cost per row.
	flush := func(name string, write func(at time.Time) error) {
		b.Run(name, func(b *testing.B) {
			at := t0
			for b.Loop() {
				at = at.Add(time.Second)
				if err := write(at); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*flushHosts), "ns/row")
		})
	}
	flush("liveness", func(at time.Time) error {
		seen := make([]hosts.Seen, len(ids))
		for i, id := range ids {
			seen[i] = hosts.Seen{HostID: id, At: at}
		}
		return s.Hosts.MarkSeen(ctx, seen)
	})
	flush("metrics", func(at time.Time) error {
		batch := make([]hosts.Sample, len(ids))
		for i, id := range ids {
			batch[i] = hosts.Sample{HostID: id, Metrics: hosts.Metrics{At: at, CPUPct: 12.5, MemPct: 40, DiskPct: 71.25,
				NetRxBps: 1200, NetTxBps: 800, TCPConns: 14, UptimeS: 86400}}
		}
		return s.Hosts.AppendMetrics(ctx, batch, hosts.KeepMetrics)
	})
	flush("events", func(at time.Time) error {
		batch := make([]hosts.HostEvent, len(ids))
		for i, id := range ids {
			batch[i] = hosts.HostEvent{HostID: id, Event: hosts.Event{At: at, Kind: "connected", Message: "agent 1.0.0 from 203.0.113.7"}}
		}
		return s.Hosts.AppendEvents(ctx, batch, hosts.KeepEvents)
	})
}
