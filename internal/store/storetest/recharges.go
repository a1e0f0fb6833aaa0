package storetest

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var rechargeTests = []test{
	{"PayOnceUnderConcurrency", testPayOnce},
	{"PayRefusals", testPayRefusals},
	{"ListRecharges", testListRecharges},
	{"RechargeByOrderNo", testRechargeByOrderNo},
	{"ExpireThenPay", testExpireThenPay},
	{"RefundOnce", testRefundOnce},
	{"RandomMixKeepsLedgers", testRandomMix},
}

// testRandomMix runs charges, recharges, payments, refunds and
// adjustments for a few users at once, in random order; afterwards every
// balance equals the sum of its events and none is negative, and the
// summary counts what happened.
func testRandomMix(t *testing.T, s store.Store) {
	users := make([]string, 4)
	for i := range users {
		users[i] = createUser(t, s, newUser(newID()+"@example.com", "mix", t0)).user.ID
	}
	adm := audit.Actor{AdminID: "adm", Role: "finance"}
	var wg sync.WaitGroup
	var charges atomic.Int64
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for range 40 {
				u := users[rng.IntN(len(users))]
				var err error
				switch rng.IntN(4) {
				case 0:
					if _, err = charge(s, t, u, billing.RuleExecShell); err == nil {
						charges.Add(1)
					}
				case 1:
					r := newRecharge(t, s, u, int64(1+rng.IntN(20)), t0)
					_, _, err = pay(s, t, r.OrderNo, r.AmountFen)
					if err == nil && rng.IntN(2) == 0 {
						_, _, err = refund(s, t, r.ID)
					}
				case 2:
					_, err = ledger(s).AdjustBalance(t.Context(), billing.Adjustment{EventID: newID(), UserID: u,
						Units: billing.Units(rng.IntN(20_000) - 10_000), Reason: "mix", At: t0,
						Audit: adm.Entry(audit.ActionUserBalanceAdjust, "user", u)})
				case 3:
					_, err = s.Billing.Balance(t.Context(), u)
				}
				if err != nil && !errors.Is(err, billing.ErrInsufficient) {
					t.Errorf("mix: %v", err)
				}
			}
		})
	}
	wg.Wait()
	for _, u := range users {
		bal, err := s.Billing.Balance(t.Context(), u)
		must(t, "Balance", err)
		sum, err := s.Billing.SumBillingEvents(t.Context(), u)
		must(t, "SumBillingEvents", err)
		if bal != sum || bal < 0 {
			t.Errorf("user %s: balance %d, events sum %d", u, bal, sum)
		}
	}
	sum, err := s.Billing.Summary(t.Context(), t0)
	must(t, "Summary", err)
	if sum.Charges != charges.Load() || sum.Charged != billing.Units(charges.Load()*5000) {
		t.Errorf("summary %+v, want %d charges of 5 tokens", sum, charges.Load())
	}
}

func refund(s store.Store, t *testing.T, id string) (billing.Recharge, billing.Units, error) {
	return ledger(s).RefundRecharge(t.Context(), billing.Refund{RechargeID: id, EventID: newID(), Reason: "customer asked",
		At: t0.Add(time.Hour), Audit: audit.Actor{AdminID: "adm", Role: "finance"}.Entry(audit.ActionRechargeRefund, "recharge", id)})
}

// testRefundOnce: a paid order is refunded once even when asked twice at
// once; a refund the balance no longer covers, or of an unpaid order,
// changes nothing and writes no audit row.
func testRefundOnce(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("refund@example.com", "r", t0)).user
	r := newRecharge(t, s, u.ID, 200, t0)
	if _, _, err := refund(s, t, r.ID); !errors.Is(err, billing.ErrNotRefundable) {
		t.Fatalf("refund of a pending order: %v", err)
	}
	if _, _, err := refund(s, t, newID()); !errors.Is(err, billing.ErrOrderNotFound) {
		t.Fatalf("refund of an unknown order: %v", err)
	}
	if _, _, err := pay(s, t, r.OrderNo, 200); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var done, refused atomic.Int64
	for range 2 {
		wg.Go(func() {
			_, after, err := refund(s, t, r.ID)
			switch {
			case err == nil && after == 0:
				done.Add(1)
			case errors.Is(err, billing.ErrNotRefundable):
				refused.Add(1)
			default:
				t.Errorf("refund: %v (after %d)", err, after)
			}
		})
	}
	wg.Wait()
	if done.Load() != 1 || refused.Load() != 1 {
		t.Fatalf("%d refunds, %d refused; want 1 and 1", done.Load(), refused.Load())
	}
	checkLedger(t, s, u.ID, 0)

	// Spent tokens: the refund would go below zero and is refused whole.
	r2 := newRecharge(t, s, u.ID, 100, t0)
	if _, _, err := pay(s, t, r2.OrderNo, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := charge(s, t, u.ID, billing.RuleExecShell); err != nil { // 5 of the 100 tokens
		t.Fatal(err)
	}
	if _, _, err := refund(s, t, r2.ID); !errors.Is(err, billing.ErrInsufficient) {
		t.Fatalf("refund past the balance: %v", err)
	}
	checkLedger(t, s, u.ID, 95_000)
	paid, _, _ := s.Billing.ListRecharges(t.Context(), u.ID, billing.RechargePaid, paging.Page{Limit: 5})
	if len(paid) != 1 || paid[0].ID != r2.ID {
		t.Fatalf("the refused refund changed the order: %+v", paid)
	}
	entries, _, err := s.Audit.ListAudit(t.Context(), audit.Filter{Action: audit.ActionRechargeRefund}, paging.Page{Limit: 10})
	must(t, "ListAudit", err)
	if len(entries) != 1 {
		t.Fatalf("%d refund audit rows, want 1", len(entries))
	}
}

// testExpireThenPay: an unpaid order expires at its time; a payment that
// arrives later still credits it.
func testExpireThenPay(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("late@example.com", "late", t0)).user
	r := newRecharge(t, s, u.ID, 300, t0)
	n, err := s.Billing.ExpireRecharges(t.Context(), t0.Add(59*time.Minute))
	must(t, "ExpireRecharges", err)
	if n != 0 {
		t.Fatalf("expired %d orders before their time", n)
	}
	if n, err = s.Billing.ExpireRecharges(t.Context(), t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("expired %d, %v; want 1", n, err)
	}
	items, _, _ := s.Billing.ListRecharges(t.Context(), u.ID, billing.RechargeExpired, paging.Page{Limit: 5})
	if len(items) != 1 {
		t.Fatalf("expired orders: %+v", items)
	}
	if _, c, err := pay(s, t, r.OrderNo, 300); err != nil || !c {
		t.Fatalf("late payment: %v %v", c, err)
	}
	checkLedger(t, s, u.ID, 300_000)
}

func newRecharge(t *testing.T, s store.Store, user string, fen int64, created time.Time) billing.Recharge {
	t.Helper()
	r := billing.Recharge{ID: newID(), OrderNo: "HG" + newID()[:12], UserID: user, AmountFen: fen,
		Units: billing.Units(fen * billing.UnitsPerFen), Status: billing.RechargePending,
		CreatedAt: created, ExpiresAt: created.Add(time.Hour)}
	must(t, "CreateRecharge", s.Billing.CreateRecharge(t.Context(), r))
	return r
}

func pay(s store.Store, t *testing.T, orderNo string, fen int64) (billing.Recharge, bool, error) {
	return ledger(s).PayRecharge(t.Context(), billing.Payment{OrderNo: orderNo, AmountFen: fen, Provider: "dummy",
		EventID: newID(), At: t0.Add(time.Minute)})
}

// testPayOnce: 1000 concurrent notifications of one order credit it once.
func testPayOnce(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("payer@example.com", "payer", t0)).user
	r := newRecharge(t, s, u.ID, 1234, t0) // 12.34 CNY = 1234 tokens
	var wg sync.WaitGroup
	var credited, repeats atomic.Int64
	for range 1000 {
		wg.Go(func() {
			_, c, err := pay(s, t, r.OrderNo, 1234)
			switch {
			case err != nil:
				t.Errorf("pay: %v", err)
			case c:
				credited.Add(1)
			default:
				repeats.Add(1)
			}
		})
	}
	wg.Wait()
	if credited.Load() != 1 || repeats.Load() != 999 {
		t.Fatalf("%d credits, %d repeats; want 1 and 999", credited.Load(), repeats.Load())
	}
	checkLedger(t, s, u.ID, 1_234_000)
	items, _, err := s.Billing.ListRecharges(t.Context(), u.ID, billing.RechargePaid, paging.Page{Limit: 5})
	must(t, "ListRecharges", err)
	if len(items) != 1 || items[0].PaidAt == nil || items[0].Provider != "dummy" {
		t.Fatalf("paid order: %+v", items)
	}
}

func testPayRefusals(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("payer2@example.com", "payer", t0)).user
	r := newRecharge(t, s, u.ID, 500, t0)
	if _, _, err := pay(s, t, r.OrderNo, 499); !errors.Is(err, billing.ErrAmountMismatch) {
		t.Errorf("wrong amount: %v", err)
	}
	if _, _, err := pay(s, t, "HGnope", 500); !errors.Is(err, billing.ErrOrderNotFound) {
		t.Errorf("unknown order: %v", err)
	}
	checkLedger(t, s, u.ID, 0)
	items, _, err := s.Billing.ListRecharges(t.Context(), u.ID, billing.RechargePending, paging.Page{Limit: 5})
	must(t, "ListRecharges", err)
	if len(items) != 1 {
		t.Fatalf("the refused payments changed the order: %+v", items)
	}
	// A paid order notified again with a wrong amount is still refused.
	if _, c, err := pay(s, t, r.OrderNo, 500); err != nil || !c {
		t.Fatalf("pay: %v %v", c, err)
	}
	if _, _, err := pay(s, t, r.OrderNo, 1); !errors.Is(err, billing.ErrAmountMismatch) {
		t.Errorf("wrong amount after payment: %v", err)
	}
	checkLedger(t, s, u.ID, 500_000)
}

func testListRecharges(t *testing.T, s store.Store) {
	a := createUser(t, s, newUser("a@example.com", "a", t0)).user
	b := createUser(t, s, newUser("b@example.com", "b", t0)).user
	for i := range 3 {
		newRecharge(t, s, a.ID, 100, t0.Add(time.Duration(i)*time.Second))
	}
	last := newRecharge(t, s, b.ID, 100, t0)
	items, total, err := s.Billing.ListRecharges(t.Context(), a.ID, "", paging.Page{Limit: 2})
	must(t, "ListRecharges", err)
	if total != 3 || len(items) != 2 || !items[0].CreatedAt.After(items[1].CreatedAt) {
		t.Fatalf("page %+v total %d", items, total)
	}
	all, total, err := s.Billing.ListRecharges(t.Context(), "", "", paging.Page{Limit: 10})
	must(t, "ListRecharges all", err)
	if total != 4 || len(all) != 4 {
		t.Fatalf("all users: %d of %d", len(all), total)
	}
	got, _, _ := s.Billing.ListRecharges(t.Context(), b.ID, "", paging.Page{Limit: 10})
	if len(got) != 1 || got[0].OrderNo != last.OrderNo || got[0].AmountFen != 100 || got[0].Units != 100_000 {
		t.Fatalf("b's orders: %+v", got)
	}
	checkTime(t, "expires_at", got[0].ExpiresAt, t0.Add(time.Hour))
}

// testRechargeByOrderNo: an order is found by its number as it stands,
// and an unknown number is ErrOrderNotFound.
func testRechargeByOrderNo(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("byorder@example.com", "o", t0)).user
	r := newRecharge(t, s, u.ID, 250, t0)
	got, err := s.Billing.RechargeByOrderNo(t.Context(), r.OrderNo)
	must(t, "RechargeByOrderNo", err)
	if got.ID != r.ID || got.UserID != u.ID || got.AmountFen != 250 || got.Status != billing.RechargePending || got.PaidAt != nil {
		t.Errorf("pending order: %+v", got)
	}
	if _, _, err := pay(s, t, r.OrderNo, 250); err != nil {
		t.Fatal(err)
	}
	got, err = s.Billing.RechargeByOrderNo(t.Context(), r.OrderNo)
	must(t, "RechargeByOrderNo", err)
	if got.Status != billing.RechargePaid || got.PaidAt == nil || got.Provider != "dummy" {
		t.Errorf("paid order: %+v", got)
	}
	if _, err := s.Billing.RechargeByOrderNo(t.Context(), "HG-none"); !errors.Is(err, billing.ErrOrderNotFound) {
		t.Errorf("unknown order: %v, want ErrOrderNotFound", err)
	}
}
