package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var billingTests = []test{
	{"ChargeWithoutBalance", testChargeWithoutBalance},
	{"AdjustThenCharge", testAdjustThenCharge},
	{"AdjustBelowZero", testAdjustBelowZero},
	{"AdjustUnknownUser", testAdjustUnknownUser},
	{"FreeModeAndZeroPrice", testFreeModeAndZeroPrice},
	{"ConcurrentChargesAreExact", testConcurrentCharges},
	{"ChargeBatches", testChargeBatches},
	{"ChargesAgreeWithPlan", testChargesAgreeWithPlan},
	{"EventsPage", testEventsPage},
	{"SeededRules", testSeededRules},
	{"RulesTakeEffectAtOnce", testRulesTakeEffect},
	{"InitBillingMode", testInitBillingMode},
	{"InitBillingModeWithUsers", testInitBillingModeWithUsers},
	{"InitBillingModeAfterAdmin", testInitBillingModeAfterAdmin},
}

// initMode calls InitBillingMode and checks what it reports and stores.
func initMode(t *testing.T, s store.Store, mode, want string, wantSet bool) {
	t.Helper()
	got, set, err := ledger(s).InitMode(t.Context(), mode, entry("config", audit.ActionBillingModeChange, "billing"))
	must(t, "InitBillingMode", err)
	stored, err := s.Billing.BillingMode(t.Context())
	must(t, "BillingMode", err)
	if got != want || set != wantSet || stored != want {
		t.Errorf("InitBillingMode(%s) = %s, %v (stored %s), want %s, %v", mode, got, set, stored, want, wantSet)
	}
}

// testInitBillingMode: the first choice of a new store sets the mode,
// once; a later one (a restart with another value) changes nothing.
func testInitBillingMode(t *testing.T, s store.Store) {
	initMode(t, s, billing.ModeFree, billing.ModeFree, true)
	initMode(t, s, billing.ModeCharging, billing.ModeFree, false)
	initMode(t, s, billing.ModeFree, billing.ModeFree, false)
	_, n, err := s.Audit.ListAudit(t.Context(), audit.Filter{Action: audit.ActionBillingModeChange}, paging.Page{Limit: 10})
	must(t, "ListAudit", err)
	if n != 1 {
		t.Errorf("%d audit rows, want 1 (the mode set once)", n)
	}
}

// testInitBillingModeWithUsers: a store that already serves users keeps
// its mode, though nobody chose it.
func testInitBillingModeWithUsers(t *testing.T, s store.Store) {
	owner(t, s, "ann@example.com")
	initMode(t, s, billing.ModeFree, billing.ModeCharging, false)
}

// testInitBillingModeAfterAdmin: an admin's choice wins over configuration.
func testInitBillingModeAfterAdmin(t *testing.T, s store.Store) {
	must(t, "SetBillingMode", ledger(s).SetMode(t.Context(), billing.ModeCharging, entry("a", audit.ActionBillingModeChange, "billing")))
	initMode(t, s, billing.ModeFree, billing.ModeCharging, false)
}

func testRulesTakeEffect(t *testing.T, s store.Store) {
	user := fund(t, s, 100_000)
	adm := audit.Actor{AdminID: "adm", Role: "finance"}
	now := t0.Add(time.Minute) // charge() charges at t0+1m
	// A newer rule of the code wins over the seed.
	r := billing.Rule{ID: newID(), Code: billing.RuleDir, Units: 3000, ValidFrom: t0, CreatedAt: t0}
	must(t, "CreateRule", ledger(s).CreateRule(t.Context(), r, adm.Entry(audit.ActionPricingCreate, "pricing_rule", r.ID)))
	if c, err := charge(s, t, user, billing.RuleDir); err != nil || c.Units != 3000 {
		t.Fatalf("after create: %+v %v", c, err)
	}
	units := billing.Units(250)
	_, err := ledger(s).UpdateRule(t.Context(), r.ID, billing.RuleChange{Units: &units, At: now}, adm.Entry(audit.ActionPricingUpdate, "pricing_rule", r.ID))
	must(t, "UpdateRule", err)
	if c, err := charge(s, t, user, billing.RuleDir); err != nil || c.Units != 250 {
		t.Fatalf("after update: %+v %v", c, err)
	}
	// Ending it brings the seed back; ListRules hides it unless asked.
	end := now
	_, err = ledger(s).UpdateRule(t.Context(), r.ID, billing.RuleChange{ValidUntil: &end, At: now}, adm.Entry(audit.ActionPricingUpdate, "pricing_rule", r.ID))
	must(t, "UpdateRule end", err)
	if c, err := charge(s, t, user, billing.RuleDir); err != nil || c.Units != 1000 {
		t.Fatalf("after end: %+v %v", c, err)
	}
	live, _ := s.Billing.ListRules(t.Context(), false, now)
	all, _ := s.Billing.ListRules(t.Context(), true, now)
	if len(all) != len(live)+1 {
		t.Fatalf("%d rules with expired, %d without; want one more", len(all), len(live))
	}
	before := billing.Units(5)
	bad := t0.Add(-time.Hour)
	if _, err := ledger(s).UpdateRule(t.Context(), r.ID, billing.RuleChange{Units: &before, ValidUntil: &bad, At: now},
		adm.Entry(audit.ActionPricingUpdate, "pricing_rule", r.ID)); !errors.Is(err, billing.ErrRuleWindow) {
		t.Fatalf("end before start: %v", err)
	}
	if _, err := ledger(s).UpdateRule(t.Context(), newID(), billing.RuleChange{Units: &before, At: now},
		adm.Entry(audit.ActionPricingUpdate, "pricing_rule", "x")); !errors.Is(err, billing.ErrRuleNotFound) {
		t.Fatalf("unknown rule: %v", err)
	}
	entries, _, err := s.Audit.ListAudit(t.Context(), audit.Filter{Action: audit.ActionPricingUpdate}, paging.Page{Limit: 10})
	must(t, "ListAudit", err)
	if len(entries) != 2 {
		t.Fatalf("%d update audit rows, want 2 (refused updates write none)", len(entries))
	}
}

// fund gives a new user a balance of units through an adjustment.
func fund(t *testing.T, s store.Store, units billing.Units) string {
	t.Helper()
	u := createUser(t, s, newUser(newID()+"@example.com", "payer", t0)).user
	_, err := ledger(s).AdjustBalance(t.Context(), billing.Adjustment{EventID: newID(), UserID: u.ID, Units: units,
		Reason: "funding", At: t0, Audit: audit.Actor{AdminID: "adm", Role: "owner"}.Entry(audit.ActionUserBalanceAdjust, "user", u.ID)})
	must(t, "fund", err)
	return u.ID
}

func charge(s store.Store, t *testing.T, user, code string) (billing.Charged, error) {
	return chargeOne(t.Context(), s, billing.Charge{EventID: newID(), UserID: user, RuleCode: code,
		HostID: "h1", APIKeyID: "k1", At: t0.Add(time.Minute)})
}

// chargeOne charges a batch of one.
func chargeOne(ctx context.Context, s store.Store, c billing.Charge) (billing.Charged, error) {
	r, err := ledger(s).ChargeCalls(ctx, []billing.Charge{c})
	if err != nil {
		return billing.Charged{}, err
	}
	return r[0].Charged, r[0].Err
}

// checkLedger fails unless the balance is want and equals the sum of events.
func checkLedger(t *testing.T, s store.Store, user string, want billing.Units) {
	t.Helper()
	bal, err := s.Billing.Balance(t.Context(), user)
	must(t, "Balance", err)
	sum, err := s.Billing.SumBillingEvents(t.Context(), user)
	must(t, "SumBillingEvents", err)
	if bal != want || sum != bal {
		t.Fatalf("balance %d, sum of events %d; want both %d", bal, sum, want)
	}
}

func testChargeWithoutBalance(t *testing.T, s store.Store) {
	u := createUser(t, s, newUser("broke@example.com", "broke", t0)).user
	_, err := charge(s, t, u.ID, billing.RuleDir)
	checkErr(t, "charge", err, billing.ErrInsufficient)
	checkLedger(t, s, u.ID, 0)
}

func testAdjustThenCharge(t *testing.T, s store.Store) {
	user := fund(t, s, 1500)
	c, err := charge(s, t, user, billing.RuleFileRead) // 0.5 tokens
	must(t, "charge", err)
	if !c.Charged || c.Units != 500 || c.BalanceAfter != 1000 {
		t.Fatalf("charged %+v, want 500 units leaving 1000", c)
	}
	_, err = charge(s, t, user, billing.RuleDir)
	must(t, "charge", err)
	_, err = charge(s, t, user, billing.RuleDir)
	checkErr(t, "charge past zero", err, billing.ErrInsufficient)
	checkLedger(t, s, user, 0)
	evs, total, err := s.Billing.ListBillingEvents(t.Context(), user, paging.Page{Limit: 10})
	must(t, "ListBillingEvents", err)
	if total != 3 || len(evs) != 3 {
		t.Fatalf("%d events (total %d), want 3", len(evs), total)
	}
	for _, e := range evs {
		if e.Kind == billing.KindCharge && (e.HostID != "h1" || e.APIKeyID != "k1" || e.Units >= 0) {
			t.Errorf("charge event %+v lacks its call or sign", e)
		}
	}
}

func testAdjustBelowZero(t *testing.T, s store.Store) {
	user := fund(t, s, 100)
	_, err := ledger(s).AdjustBalance(t.Context(), billing.Adjustment{EventID: newID(), UserID: user, Units: -101,
		Reason: "too much", At: t0, Audit: audit.Actor{AdminID: "adm"}.Entry(audit.ActionUserBalanceAdjust, "user", user)})
	checkErr(t, "adjust", err, billing.ErrInsufficient)
	checkLedger(t, s, user, 100)
	after, err := ledger(s).AdjustBalance(t.Context(), billing.Adjustment{EventID: newID(), UserID: user, Units: -100,
		Reason: "all", At: t0, Audit: audit.Actor{AdminID: "adm"}.Entry(audit.ActionUserBalanceAdjust, "user", user)})
	must(t, "adjust to zero", err)
	if after != 0 {
		t.Fatalf("after = %d", after)
	}
	entries, _, err := s.Audit.ListAudit(t.Context(), audit.Filter{Action: audit.ActionUserBalanceAdjust}, paging.Page{Limit: 10})
	must(t, "ListAudit", err)
	if len(entries) != 2 {
		t.Fatalf("%d audit entries, want 2 (the refused adjustment writes none)", len(entries))
	}
}

func testAdjustUnknownUser(t *testing.T, s store.Store) {
	_, err := ledger(s).AdjustBalance(t.Context(), billing.Adjustment{EventID: newID(), UserID: newID(), Units: 5,
		Reason: "x", At: t0, Audit: audit.Actor{AdminID: "adm"}.Entry(audit.ActionUserBalanceAdjust, "user", "x")})
	checkErr(t, "adjust", err, billing.ErrUserNotFound)
}

func testFreeModeAndZeroPrice(t *testing.T, s store.Store) {
	user := fund(t, s, 1000)
	c, err := charge(s, t, user, billing.RuleHostQuery)
	must(t, "zero price", err)
	if c.Charged {
		t.Fatalf("a zero-price rule charged: %+v", c)
	}
	mode, err := s.Billing.BillingMode(t.Context())
	must(t, "BillingMode", err)
	if mode != billing.ModeCharging {
		t.Fatalf("fresh mode %q, want charging", mode)
	}
	must(t, "SetBillingMode", ledger(s).SetMode(t.Context(), billing.ModeFree, audit.Actor{AdminID: "adm"}.Entry(audit.ActionBillingModeChange, "billing", "mode")))
	if c, err := charge(s, t, user, billing.RuleExecShell); err != nil || c.Charged {
		t.Fatalf("free mode charged: %+v %v", c, err)
	}
	checkLedger(t, s, user, 1000)
	must(t, "SetBillingMode", ledger(s).SetMode(t.Context(), billing.ModeCharging, audit.Actor{AdminID: "adm"}.Entry(audit.ActionBillingModeChange, "billing", "mode")))
	if _, err := charge(s, t, user, billing.RuleDir); err != nil {
		t.Fatal(err)
	}
	checkLedger(t, s, user, 0)
}

// testConcurrentCharges: 200 concurrent 1-token charges on a balance of
// 37 tokens: exactly 37 succeed.
func testConcurrentCharges(t *testing.T, s store.Store) {
	user := fund(t, s, 37_000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for range 200 {
		wg.Go(func() {
			_, err := charge(s, t, user, billing.RuleDir)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case err == billing.ErrInsufficient:
				refused++
			default:
				t.Errorf("charge: %v", err)
			}
		})
	}
	wg.Wait()
	if ok != 37 || refused != 163 {
		t.Fatalf("%d charged, %d refused; want 37 and 163", ok, refused)
	}
	checkLedger(t, s, user, 0)
	_, total, err := s.Billing.ListBillingEvents(t.Context(), user, paging.Page{Limit: 1})
	must(t, "ListBillingEvents", err)
	if total != 38 { // 37 charges and the funding
		t.Fatalf("%d events, want 38", total)
	}
}

// testChargeBatches: batches mixing users, prices and a user without
// funds, applied in order, several batches at once (two users in
// opposite orders, so a store that locked in arrival order would
// deadlock).
func testChargeBatches(t *testing.T, s store.Store) {
	ann, bob, broke := fund(t, s, 2_500), fund(t, s, 10_000), newID() // RuleDir costs 1,000 units
	at := t0.Add(time.Minute)
	mk := func(user, code string) billing.Charge {
		return billing.Charge{EventID: newID(), UserID: user, RuleCode: code, HostID: "host " + newID(), APIKeyID: "key " + newID(), At: at}
	}
	cs := []billing.Charge{
		mk(ann, billing.RuleDir), mk(bob, billing.RuleDir), mk(ann, billing.RuleDir), mk(broke, billing.RuleDir),
		mk(ann, billing.RuleDir), mk(ann, billing.RuleHostQuery), mk(bob, billing.RuleSystemMetrics),
	}
	rs, err := ledger(s).ChargeCalls(t.Context(), cs)
	must(t, "ChargeCalls", err)
	want := []struct {
		charged bool
		after   billing.Units
		err     error
	}{{true, 1_500, nil}, {true, 9_000, nil}, {true, 500, nil}, {false, 0, billing.ErrInsufficient},
		{false, 0, billing.ErrInsufficient}, {false, 0, nil}, {true, 8_900, nil}}
	for i, w := range want {
		if r := rs[i]; r.Charged.Charged != w.charged || r.BalanceAfter != w.after || !errors.Is(r.Err, w.err) {
			t.Errorf("charge %d: got %+v, want charged %v, balance after %d, error %v", i, r, w.charged, w.after, w.err)
		}
	}
	checkLedger(t, s, ann, 500)
	checkLedger(t, s, bob, 8_900)
	// Each charge's event says what it was for.
	for _, u := range []string{ann, bob} {
		evs, _, err := s.Billing.ListBillingEvents(t.Context(), u, paging.Page{Limit: 10})
		must(t, "ListBillingEvents", err)
		for _, e := range evs {
			if e.Kind != billing.KindCharge {
				continue
			}
			i := slices.IndexFunc(cs, func(c billing.Charge) bool { return c.EventID == e.ID })
			if i < 0 || !rs[i].Charged.Charged {
				t.Errorf("charge event %+v matches no charge made", e)
				continue
			}
			c := cs[i]
			if e.UserID != c.UserID || e.RuleCode != c.RuleCode || e.HostID != c.HostID || e.APIKeyID != c.APIKeyID ||
				e.Units != -rs[i].Units || e.BalanceAfter != rs[i].BalanceAfter { // a charge is a debit
				t.Errorf("charge %d: event %+v, want the charge %+v with its result %+v", i, e, c, rs[i].Charged)
			}
			checkTime(t, "charge event time", e.CreatedAt, at)
		}
	}

	cara, dan := fund(t, s, 1_000_000), fund(t, s, 1_000_000)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			first, second := cara, dan
			if i%2 == 1 {
				first, second = dan, cara
			}
			var batch []billing.Charge
			for range 5 {
				batch = append(batch, mk(first, billing.RuleDir), mk(second, billing.RuleDir))
			}
			if _, err := ledger(s).ChargeCalls(t.Context(), batch); err != nil {
				t.Errorf("concurrent batch: %v", err)
			}
		})
	}
	wg.Wait()
	checkLedger(t, s, cara, 1_000_000-100*1_000)
	checkLedger(t, s, dan, 1_000_000-100*1_000)
	if rs, err := ledger(s).ChargeCalls(t.Context(), nil); err != nil || len(rs) != 0 {
		t.Errorf("empty batch: %v, %v", rs, err)
	}
}

func testEventsPage(t *testing.T, s store.Store) {
	user := fund(t, s, 10_000)
	for range 5 {
		_, err := charge(s, t, user, billing.RuleDir)
		must(t, "charge", err)
	}
	evs, total, err := s.Billing.ListBillingEvents(t.Context(), user, paging.Page{Limit: 2, Offset: 1})
	must(t, "ListBillingEvents", err)
	if total != 6 || len(evs) != 2 {
		t.Fatalf("page of %d, total %d", len(evs), total)
	}
	other := fund(t, s, 1)
	evs, total, err = s.Billing.ListBillingEvents(t.Context(), other, paging.Page{Limit: 10})
	must(t, "ListBillingEvents", err)
	if total != 1 || evs[0].UserID != other || evs[0].Kind != billing.KindAdjust || evs[0].Reason != "funding" {
		t.Fatalf("other user's events: %+v", evs)
	}
	checkTime(t, "created_at", evs[0].CreatedAt, t0)
}

func testSeededRules(t *testing.T, s store.Store) {
	rules, err := s.Billing.ListRules(t.Context(), false, time.Now())
	must(t, "ListRules", err)
	want := map[string]billing.Units{
		billing.RuleDir: 1000, billing.RuleFileRead: 500, billing.RuleFileWrite: 1000, billing.RuleExecShell: 5000,
		billing.RuleExecProgram: 1000, billing.RuleKillProcess: 2000, billing.RuleSystemInfo: 500,
		billing.RuleSystemMetrics: 100, billing.RuleShellSession: 100, billing.RuleUpdateL1: 1000,
	}
	got := map[string]billing.Units{}
	for _, r := range rules {
		got[r.Code] = r.Units
		if r.ValidUntil != nil || !r.Effective(time.Now()) {
			t.Errorf("seed rule %s is not open-ended: %+v", r.Code, r)
		}
	}
	for code, units := range want {
		if got[code] != units {
			t.Errorf("%s costs %d units, want the spec's %d", code, got[code], units)
		}
	}
}

// ledger is the billing ledger over s's billing storage.
func ledger(s store.Store) billing.Ledger { return billing.NewLedger(s.Billing) }
