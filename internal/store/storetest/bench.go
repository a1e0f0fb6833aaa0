package storetest

import (
	"testing"

	"hostgate/internal/accounts"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/store"
)

// BenchmarkCharge measures one client API call's charge (mode, price and
// conditional debit with its event, one transaction), sequentially and
// from parallel callers on one balance. s must be a fresh migrated store.
func BenchmarkCharge(b *testing.B, s store.Store) {
	ctx := b.Context()
	u := accounts.User{ID: newID(), Email: newID() + "@example.com", DisplayName: "bench", Status: accounts.StatusActive, CreatedAt: t0}
	sess := accounts.Session{ID: newID(), UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(24 * 3600e9)}
	if err := s.CreateUser(ctx, u, "hash", sess, hashOf(u.ID)); err != nil {
		b.Fatal(err)
	}
	_, err := s.AdjustBalance(ctx, billing.Adjustment{EventID: newID(), UserID: u.ID, Units: 1 << 50, Reason: "bench",
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
