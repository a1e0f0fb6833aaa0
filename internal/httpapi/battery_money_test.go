package httpapi_test

// The money entries of the reliability battery (docs/reliability.md,
// T17…T25): payments, charges and the ledger, on both storage engines.

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"hostgate/internal/battery"
	"hostgate/internal/hub"
	"hostgate/internal/hubtest"
	"hostgate/internal/payments"
	"hostgate/internal/store"
)

// rawDB opens h's database directly, as an operator's SQL client would,
// bypassing the hub: for schema inspection and hand-made corruption.
func rawDB(t *testing.T, h *hubtest.Hub) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if u := h.Env["HOSTGATE_DATABASE_URL"]; u != "" {
		db, err = sql.Open("pgx", u)
	} else {
		path := filepath.Join(h.Env["HOSTGATE_DATA_DIR"], store.FileName)
		db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	}
	if err != nil {
		t.Fatalf("open database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// queryInt runs a query answering one integer.
func queryInt(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRowContext(t.Context(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// ledgerTotals are a user's billing figures in units straight from the
// database: the stored balance, the sum of the events and the charges.
type ledgerTotals struct {
	Balance, EventsSum, Charges, ChargeSum int64
}

func ledgerOfUser(t *testing.T, db *sql.DB, userID string) ledgerTotals {
	t.Helper()
	w := "user_id = '" + userID + "'" // a UUID the hub made
	return ledgerTotals{
		Balance:   queryInt(t, db, "SELECT COALESCE((SELECT units FROM billing_balances WHERE "+w+"), 0)"),
		EventsSum: queryInt(t, db, "SELECT COALESCE(SUM(units), 0) FROM billing_events WHERE "+w),
		Charges:   queryInt(t, db, "SELECT COUNT(*) FROM billing_events WHERE kind = 'charge' AND "+w),
		ChargeSum: queryInt(t, db, "SELECT COALESCE(SUM(units), 0) FROM billing_events WHERE kind = 'charge' AND "+w),
	}
}

// checkAllLedgers fails unless every user's balance equals the sum of
// their events and Σ balances = Σ credits − Σ debits; it returns the
// number of users checked (T25's invariant, run after each money test).
func checkAllLedgers(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	bad := queryInt(t, db, `SELECT COUNT(*) FROM billing_balances b WHERE b.units <>
		(SELECT COALESCE(SUM(e.units), 0) FROM billing_events e WHERE e.user_id = b.user_id)`)
	if bad != 0 {
		t.Errorf("%d balances differ from the sum of their events", bad)
	}
	balances := queryInt(t, db, "SELECT COALESCE(SUM(units), 0) FROM billing_balances")
	credits := queryInt(t, db, "SELECT COALESCE(SUM(units), 0) FROM billing_events WHERE units > 0")
	debits := queryInt(t, db, "SELECT COALESCE(SUM(-units), 0) FROM billing_events WHERE units < 0")
	if balances != credits-debits {
		t.Errorf("Σ balances %d ≠ Σ credits %d − Σ debits %d", balances, credits, debits)
	}
	return queryInt(t, db, "SELECT COUNT(*) FROM billing_balances")
}

func adjust(t *testing.T, h *hubtest.Hub, fin, userID string, tokens float64) *hubtest.Response {
	t.Helper()
	return h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+userID+"/balance/adjust",
		map[string]any{"tokens": tokens, "reason": "battery"})
}

// TestBatteryShuffledDuplicateNotifies: 100 orders of 10 users, each
// notified 20 times, the 2,000 notifications shuffled across 50
// goroutines: every one answers SUCCESS and each order credits once.
func TestBatteryShuffledDuplicateNotifies(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := paymentHub(t, mode)
		const users, perUser, dups, workers = 5, 20, 20, 50
		type ord struct {
			user, no string
			fen      int64
		}
		var orders []ord
		want := map[string]int64{} // user → fen
		tokens := map[string]string{}
		for range users {
			u := h.Register(t)
			tokens[u.User.ID] = u.AccessToken
			for range perUser {
				fen := 100 + rand.Int64N(100_000)
				var o order
				h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/billing/recharge",
					map[string]any{"amount_cny": float64(fen) / 100}).Want(t, 200, "").JSON(t, &o)
				orders = append(orders, ord{u.User.ID, o.OrderNo, fen})
				want[u.User.ID] += fen
			}
		}
		var jobs []string
		for _, o := range orders {
			body := epayNotice(epay.Key, o.no, fmt.Sprintf("%d.%02d", o.fen/100, o.fen%100))
			for range dups {
				jobs = append(jobs, body)
			}
		}
		rand.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		next := make(chan string)
		var ok atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for body := range next {
					if r := postForm(t, h, body); r.Status == 200 && string(r.Body) == "SUCCESS" {
						ok.Add(1)
					} else {
						t.Errorf("notify answered %d %q", r.Status, r.Body)
					}
				}
			})
		}
		for _, j := range jobs {
			next <- j
		}
		close(next)
		wg.Wait()
		if ok.Load() != int64(len(jobs)) {
			t.Fatalf("%d of %d notifies answered SUCCESS", ok.Load(), len(jobs))
		}
		db := rawDB(t, h)
		var sumBalances, sumOrders int64
		for id, fen := range want {
			got := ledgerOfUser(t, db, id)
			if got.Balance != fen*1000 {
				t.Errorf("user %s: balance %d units, want %d (Σ its orders × 100 tokens/CNY)", id, got.Balance, fen*1000)
			}
			sumBalances += got.Balance
			sumOrders += fen
		}
		credits := queryInt(t, db, "SELECT COUNT(*) FROM billing_events WHERE kind = 'recharge'")
		paid := queryInt(t, db, "SELECT COUNT(*) FROM recharges WHERE status = 'paid'")
		if credits != int64(len(orders)) || paid != int64(len(orders)) {
			t.Fatalf("%d recharge events, %d paid orders; want %d each", credits, paid, len(orders))
		}
		checked := checkAllLedgers(t, db)
		battery.Report(t, "T17", "%d orders × %d duplicates over %d goroutines → %d credits; Σ balances %d tokens = Σ orders %s CNY × 100 (%s)",
			len(orders), dups, workers, credits, sumBalances/1000, strconv.FormatFloat(float64(sumOrders)/100, 'f', 2, 64), mode)
		battery.Report(t, "T25", "after T17: %d balances each = Σ events, Σ balances = Σ credits − Σ debits (%s)", checked, mode)
	})
}

// logBuffer collects a hub's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLogged is hubtest.StartEnv with every line the hub logs, at every
// level (access log included), kept in a buffer the test reads (hubtest's
// goes to the test output or nowhere).
func startLogged(t *testing.T, env map[string]string) (*hubtest.Hub, *logBuffer) {
	t.Helper()
	for k, v := range hubtest.TestRateLimits {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	ln, err := net.Listen("tcp", env["HOSTGATE_ADDR"])
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	base := "http://" + ln.Addr().String()
	env["HOSTGATE_PUBLIC_URL"] = base
	cfg, err := hub.Parse(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	logs := &logBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	hb, err := hub.Open(ctx, cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		cancel()
		ln.Close()
		t.Fatalf("open hub: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- hb.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		hb.Close()
	})
	return &hubtest.Hub{Hub: hb, URL: base, Config: cfg, Env: env}, logs
}

// TestBatteryForgedNotifiesChangeNothing: every kind of notification that
// must not credit is refused with a non-success answer, changes no
// balance and leaves a log line naming the order; the dummy provider is
// 404 unless enabled.
func TestBatteryForgedNotifiesChangeNothing(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		// The fourthparty provider only: dummy stays off (the dev flag).
		h, logs := startLogged(t, hubtest.Env(t, mode, hubtest.WithEnv("HOSTGATE_EPAY_URL", epay.GatewayURL),
			hubtest.WithEnv("HOSTGATE_EPAY_PID", epay.PID), hubtest.WithEnv("HOSTGATE_EPAY_KEY", epay.Key)))
		u := h.Register(t)
		var o order
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 20}).Want(t, 200, "").JSON(t, &o)

		signed := func(change func(url.Values)) string {
			p := url.Values{"pid": {epay.PID}, "trade_no": {"T" + o.OrderNo}, "out_trade_no": {o.OrderNo}, "type": {"alipay"},
				"name": {"hostgate tokens"}, "money": {"20.00"}, "trade_status": {"TRADE_SUCCESS"}}
			change(p)
			p.Set("sign", payments.Sign(p, epay.Key))
			p.Set("sign_type", "MD5")
			return p.Encode()
		}
		unknown := "HG20250101000000000000000000"
		cases := []struct {
			name, body, code, logged string
			status                   int
		}{
			{"bad signature", epayNotice("not-the-key", o.OrderNo, "20.00"), "invalid_signature", "payment notification refused", 400},
			{"1 fen short", epayNotice(epay.Key, o.OrderNo, "19.99"), "amount_mismatch", o.OrderNo, 400},
			{"1 fen over", epayNotice(epay.Key, o.OrderNo, "20.01"), "amount_mismatch", o.OrderNo, 400},
			{"unknown order", epayNotice(epay.Key, unknown, "20.00"), "order_not_found", unknown, 404},
			{"another merchant", signed(func(p url.Values) { p.Set("pid", "2002") }), "invalid_body", "payment notification refused", 400},
			{"trade not paid", signed(func(p url.Values) { p.Set("trade_status", "WAIT_BUYER_PAY") }), "payment_not_successful", "payment notification refused", 400},
		}
		for _, c := range cases {
			before := strings.Count(logs.String(), "payment notification refused")
			r := postForm(t, h, c.body)
			if r.Status != c.status || r.Code() != c.code || string(r.Body) == "SUCCESS" {
				t.Errorf("%s: %d %s, want %d %s", c.name, r.Status, r.Body, c.status, c.code)
			}
			if after := strings.Count(logs.String(), "payment notification refused"); after != before+1 {
				t.Errorf("%s: %d refusal log lines, want one more than %d", c.name, after, before)
			}
			if !strings.Contains(logs.String(), c.logged) {
				t.Errorf("%s: the log does not name %q", c.name, c.logged)
			}
		}
		h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": o.OrderNo, "amount_cny": 20}).Want(t, 404, "not_found")
		db := rawDB(t, h)
		got := ledgerOfUser(t, db, u.User.ID)
		events := queryInt(t, db, "SELECT COUNT(*) FROM billing_events")
		status := ""
		if err := db.QueryRowContext(t.Context(), "SELECT status FROM recharges WHERE order_no = '"+o.OrderNo+"'").Scan(&status); err != nil {
			t.Fatal(err)
		}
		if got.Balance != 0 || events != 0 || status != "pending" {
			t.Fatalf("after refused notifies: balance %d units, %d events, order %s; want 0, 0, pending", got.Balance, events, status)
		}
		// The genuine notice still credits, once.
		postForm(t, h, epayNotice(epay.Key, o.OrderNo, "20.00")).Want(t, 200, "")
		if b := balanceOf(t, h, u.AccessToken); b != 2000 {
			t.Fatalf("balance %v after the genuine notice, want 2000", b)
		}
		battery.Report(t, "T18", "%d forged/mismatched notifies + dummy-off → %d balance change, %d events, %d refusal log lines, dummy 404; genuine one then credits 2000 (%s)",
			len(cases), got.Balance, events, strings.Count(logs.String(), "payment notification refused"), mode)
	})
}

// chargedHost is a user with an API key, a connected host and a balance.
type chargedHost struct {
	h    *hubtest.Hub
	user hubtest.Auth
	key  string
	base string // /v1/api/hosts/{id}
	fin  string // a finance admin's token
}

func newChargedHost(t *testing.T, h *hubtest.Hub, tokens float64) chargedHost {
	t.Helper()
	u := h.Register(t)
	c := chargedHost{h: h, user: u, key: apiKey(t, h, u.AccessToken)}
	c.base = "/v1/api/hosts/" + h.ConnectAgent(t, u.User.ID, nil)
	c.fin, _ = h.Admin(t, "finance")
	if tokens > 0 {
		adjust(t, h, c.fin, u.User.ID, tokens).Want(t, 200, "")
	}
	return c
}

// priceHostQueries makes host queries (GET hosts/{id}: no agent round
// trip, so thousands run in seconds) cost tokens, free by default.
func priceHostQueries(t *testing.T, c chargedHost, tokens float64) {
	t.Helper()
	c.h.Client(t).As(c.fin).Do("POST", "/v1/admin/pricing-rules", map[string]any{
		"code": "host.query.per_call", "token_amount": tokens, "description": "battery"}).Want(t, 200, "")
}

var shellTrue = map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c true"}}

// TestBatteryConcurrentChargesNeverOverdraw: 1,000 concurrent
// process/shell calls at 5 tokens on a balance of 100 while a reader polls
// the balance: exactly 20 run.
func TestBatteryConcurrentChargesNeverOverdraw(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := newChargedHost(t, h, 100)
		stop := make(chan struct{})
		var reads, negative atomic.Int64
		var readerDone sync.WaitGroup
		readerDone.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if b := balanceOf(t, h, c.user.AccessToken); b < 0 {
					negative.Add(1)
				}
				reads.Add(1)
			}
		})
		const n = 1000
		var mu sync.Mutex
		statuses := map[string]int{}
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				r := h.Client(t).As(c.key).Do("POST", c.base+"/process/shell", shellTrue)
				mu.Lock()
				statuses[fmt.Sprintf("%d %s", r.Status, r.Code())]++
				mu.Unlock()
			})
		}
		wg.Wait()
		close(stop)
		readerDone.Wait()
		if statuses["200 "] != 20 || statuses["402 insufficient_balance"] != 980 {
			t.Fatalf("answers %v; want 20 × 200 and 980 × 402 insufficient_balance", statuses)
		}
		got := ledgerOfUser(t, rawDB(t, h), c.user.User.ID)
		if got.Balance != 0 || got.Charges != 20 || got.ChargeSum != -100_000 || negative.Load() != 0 {
			t.Fatalf("balance %d units, %d charge rows (Σ %d), %d negative reads; want 0, 20, −100000, 0",
				got.Balance, got.Charges, got.ChargeSum, negative.Load())
		}
		checkAllLedgers(t, rawDB(t, h))
		battery.Report(t, "T20", "%d concurrent shell calls at 5 on 100 tokens → %d ran, %d × 402; final %d; %d debit rows; %d balance reads, %d < 0 (%s)",
			n, statuses["200 "], statuses["402 insufficient_balance"], got.Balance, got.Charges, reads.Load(), negative.Load(), mode)
	})
}

// TestBatteryPriceChangeMidLoad: an admin raises host queries from 0.1
// to 0.2 while 500 calls run (host queries rather than an agent
// operation: system/metrics measures over a 500 ms window); each call is
// charged once, at a price its
// transaction read, the answer and the ledger row agree, and every call
// sent after the change was answered pays the new price.
func TestBatteryPriceChangeMidLoad(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := newChargedHost(t, h, 1000)
		priceHostQueries(t, c, 0.1)
		const n, workers = 500, 25
		var changed atomic.Bool
		var done atomic.Int64
		trigger := make(chan struct{})
		var mu sync.Mutex
		headers := map[string]int{} // X-Hostgate-Charged → calls
		lateOld := 0                // calls sent after the change but charged the old price
		jobs := make(chan struct{})
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range jobs {
					after := changed.Load()
					r := h.Client(t).As(c.key).Do("GET", c.base, nil)
					if r.Status != 200 {
						t.Errorf("call answered %d %s", r.Status, r.Body)
					}
					got := r.Header.Get("X-Hostgate-Charged")
					mu.Lock()
					headers[got]++
					if after && got != "0.2" {
						lateOld++
					}
					mu.Unlock()
					if done.Add(1) == n/5 {
						close(trigger)
					}
				}
			})
		}
		wg.Go(func() {
			<-trigger
			h.Client(t).As(c.fin).Do("POST", "/v1/admin/pricing-rules", map[string]any{
				"code": "host.query.per_call", "token_amount": 0.2, "description": "battery T21"}).Want(t, 200, "")
			changed.Store(true)
		})
		for range n {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
		db := rawDB(t, h)
		rows := map[string]int{}
		q, err := db.QueryContext(t.Context(), "SELECT units, COUNT(*) FROM billing_events WHERE kind = 'charge' AND user_id = '"+c.user.User.ID+"' GROUP BY units")
		if err != nil {
			t.Fatal(err)
		}
		for q.Next() {
			var units int64
			var count int
			if err := q.Scan(&units, &count); err != nil {
				t.Fatal(err)
			}
			rows[strconv.FormatFloat(float64(-units)/1000, 'f', -1, 64)] = count
		}
		q.Close()
		got := ledgerOfUser(t, db, c.user.User.ID)
		if headers["0.1"]+headers["0.2"] != n || len(headers) > 2 || lateOld != 0 {
			t.Fatalf("charged headers %v (%d sent after the change at the old price); want %d calls at 0.1 or 0.2", headers, lateOld, n)
		}
		if rows["0.1"] != headers["0.1"] || rows["0.2"] != headers["0.2"] || len(rows) > 2 || got.Charges != n {
			t.Fatalf("ledger rows by price %v, answers %v; want the same, %d rows", rows, headers, n)
		}
		if headers["0.1"] < n/5 {
			t.Fatalf("%d calls at the old price, want at least the %d before the change", headers["0.1"], n/5)
		}
		if want := int64(1000_000) - int64(headers["0.1"])*100 - int64(headers["0.2"])*200; got.Balance != want {
			t.Fatalf("balance %d units, want %d", got.Balance, want)
		}
		checkAllLedgers(t, db)
		battery.Report(t, "T21", "%d calls, price 0.1→0.2 mid-run: %d charged 0.1, %d charged 0.2, each once; ledger rows by price %v match the answers; 0 late calls at the old price (%s)",
			n, headers["0.1"], headers["0.2"], rows, mode)
	})
}

// moneyColumns lists every column holding an amount (units, fen, a
// balance, a price) with its declared type.
func moneyColumns(t *testing.T, h *hubtest.Hub, db *sql.DB) map[string]string {
	t.Helper()
	q := `SELECT m.name || '.' || p.name, p.type FROM sqlite_master m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'goose%'`
	if h.Env["HOSTGATE_DATABASE_URL"] != "" {
		q = `SELECT table_name || '.' || column_name, data_type FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name NOT LIKE 'goose%'`
	}
	rows, err := db.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols := map[string]string{}
	money := regexp.MustCompile(`\.(units|[a-z_]*(balance|amount|fen|price|cny)[a-z_]*)$`)
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		if money.MatchString(name) {
			cols[name] = strings.ToLower(typ)
		}
	}
	return cols
}

// TestBatteryFractionalChargesSumExactly: 2,000 calls at 0.1 token take
// exactly 200 tokens (the CI size of the battery's 10,000 → 1,000), and
// every money column is an integer type. The
// calls are host queries priced at 0.1 (system/metrics itself, 0.1 by
// default, measures over a 500 ms window on the agent: too slow for
// 10,000 in CI); the charge path is the same.
func TestBatteryFractionalChargesSumExactly(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := newChargedHost(t, h, 1500)
		priceHostQueries(t, c, 0.1)
		const n, workers = 2000, 50
		jobs := make(chan struct{})
		var wg sync.WaitGroup
		var ok atomic.Int64
		for range workers {
			wg.Go(func() {
				for range jobs {
					if r := h.Client(t).As(c.key).Do("GET", c.base, nil); r.Status == 200 && r.Header.Get("X-Hostgate-Charged") == "0.1" {
						ok.Add(1)
					} else {
						t.Errorf("call answered %d %s, charged %q", r.Status, r.Body, r.Header.Get("X-Hostgate-Charged"))
					}
				}
			})
		}
		for range n {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
		db := rawDB(t, h)
		got := ledgerOfUser(t, db, c.user.User.ID)
		if ok.Load() != n || got.ChargeSum != -n*100 || got.Charges != n || got.Balance != 1500_000-n*100 {
			t.Fatalf("%d calls charged 0.1; ledger %+v; want %d, Σ charges −%d units", ok.Load(), got, n, n*100)
		}
		if b := balanceOf(t, h, c.user.AccessToken); b != 1500-float64(n)/10 {
			t.Fatalf("API balance %v, want %v", b, 1500-float64(n)/10)
		}
		cols := moneyColumns(t, h, db)
		for name, typ := range cols {
			if typ != "integer" && typ != "bigint" {
				t.Errorf("money column %s is %s, want an integer type", name, typ)
			}
		}
		for _, must := range []string{"billing_balances.units", "billing_events.units", "billing_events.balance_after", "pricing_rules.units", "recharges.amount_fen", "recharges.units"} {
			if _, found := cols[must]; !found {
				t.Errorf("schema inspection did not find %s (found %v)", must, cols)
			}
		}
		checkAllLedgers(t, db)
		names := slices.Sorted(maps.Keys(cols))
		battery.Report(t, "T22", "%d calls at 0.1 (host queries; CI size of 10,000) → exactly %s tokens debited; %d money columns all integer: %s (%s)",
			n, strconv.FormatFloat(float64(-got.ChargeSum)/1000, 'f', -1, 64), len(cols), strings.Join(names, ", "), mode)
	})
}

// TestBatteryNoNegativeBalanceAndCorruptionFlagged: a refund or an
// adjustment larger than the balance is refused whole, SQL making a
// balance negative is refused by the CHECK, and a balance corrupted by
// hand is flagged by the ledger check (and only that one).
func TestBatteryNoNegativeBalanceAndCorruptionFlagged(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := paymentHub(t, mode)
		u := h.Register(t)
		other := h.Register(t)
		fin, _ := h.Admin(t, "finance")
		var o order
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 10}).Want(t, 200, "").JSON(t, &o)
		h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": o.OrderNo, "amount_cny": 10}).Want(t, 200, "")
		adjust(t, h, fin, u.User.ID, -600).Want(t, 200, "") // spent: 400 left of the 1000 credited
		adjust(t, h, fin, other.User.ID, 50).Want(t, 200, "")
		var all struct{ Items []struct{ ID string } }
		h.Client(t).As(fin).Do("GET", "/v1/admin/recharges?user_id="+u.User.ID, nil).Want(t, 200, "").JSON(t, &all)
		if len(all.Items) != 1 {
			t.Fatalf("orders: %+v", all)
		}
		h.Client(t).As(fin).Do("POST", "/v1/admin/recharges/"+all.Items[0].ID+"/refund", map[string]any{"reason": "battery"}).Want(t, 409, "refund_exceeds_balance")
		adjust(t, h, fin, u.User.ID, -400.001).Want(t, 402, "insufficient_balance")
		db := rawDB(t, h)
		before := ledgerOfUser(t, db, u.User.ID)
		_, sqlErr := db.ExecContext(t.Context(), "UPDATE billing_balances SET units = units - 400001 WHERE user_id = '"+u.User.ID+"'")
		after := ledgerOfUser(t, db, u.User.ID)
		if sqlErr == nil || !strings.Contains(strings.ToLower(sqlErr.Error()), "check") {
			t.Fatalf("direct SQL taking the balance below zero: %v, want a CHECK violation", sqlErr)
		}
		if before.Balance != 400_000 || after != before {
			t.Fatalf("balance %d then %d units, want 400000 unchanged", before.Balance, after.Balance)
		}
		checkAllLedgers(t, db)

		// Corrupt one balance by hand: the ledger check flags it, not the other.
		if _, err := db.ExecContext(t.Context(), "UPDATE billing_balances SET units = units + 1 WHERE user_id = '"+u.User.ID+"'"); err != nil {
			t.Fatal(err)
		}
		viewer, _ := h.Admin(t, "viewer")
		var lc struct {
			Consistent bool
			Balance    float64
			EventsSum  float64 `json:"events_sum"`
		}
		h.Client(t).As(viewer).Do("GET", "/v1/admin/users/"+u.User.ID+"/ledger-check", nil).Want(t, 200, "").JSON(t, &lc)
		corrupted := lc
		h.Client(t).As(viewer).Do("GET", "/v1/admin/users/"+other.User.ID+"/ledger-check", nil).Want(t, 200, "").JSON(t, &lc)
		flagged := queryInt(t, db, `SELECT COUNT(*) FROM billing_balances b WHERE b.units <>
			(SELECT COALESCE(SUM(e.units), 0) FROM billing_events e WHERE e.user_id = b.user_id)`)
		if corrupted.Consistent || corrupted.Balance != 400.001 || corrupted.EventsSum != 400 || !lc.Consistent || flagged != 1 {
			t.Fatalf("ledger check: corrupted %+v, other %+v, %d flagged by SQL; want only the corrupted one inconsistent", corrupted, lc, flagged)
		}
		battery.Report(t, "T23", "refund of 1000 on 400 → 409 refund_exceeds_balance; adjust −400.001 → 402 insufficient_balance; SQL to −0.001 → CHECK violation; balance stays 400 (%s)", mode)
		battery.Report(t, "T25", "balance corrupted by +0.001 by hand → ledger-check consistent=false (%v ≠ Σ %v), the untouched user consistent; invariant query flags %d (%s)",
			corrupted.Balance, corrupted.EventsSum, flagged, mode)
	})
}

// TestBatteryBillingModeFreeThenCharging: calls in free mode debit
// nothing, charging resumes after the switch back, a switch without a
// step-up is refused and changes nothing, each switch is audited.
func TestBatteryBillingModeFreeThenCharging(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := newChargedHost(t, h, 10)
		priceHostQueries(t, c, 0.1)
		viewer, _ := h.Admin(t, "viewer")
		call := func() *hubtest.Response {
			return h.Client(t).As(c.key).Do("GET", c.base, nil).Want(t, 200, "")
		}
		setMode(t, h, c.fin, "", "free").Want(t, 403, "step_up_required")
		call()
		setMode(t, h, c.fin, stepUpToken(t, h, c.fin), "free").Want(t, 200, "")
		const free = 20
		for range free {
			if r := call(); r.Header.Get("X-Hostgate-Charged") != "0" {
				t.Fatalf("free-mode call charged %q", r.Header.Get("X-Hostgate-Charged"))
			}
		}
		db := rawDB(t, h)
		inFree := ledgerOfUser(t, db, c.user.User.ID)
		setMode(t, h, c.fin, "", "charging").Want(t, 403, "step_up_required")
		call()
		if got := ledgerOfUser(t, db, c.user.User.ID); got != inFree {
			t.Fatalf("a refused switch changed the mode: %+v then %+v", inFree, got)
		}
		setMode(t, h, c.fin, stepUpToken(t, h, c.fin), "charging").Want(t, 200, "")
		call()
		after := ledgerOfUser(t, db, c.user.User.ID)
		audited := auditRows(t, h, viewer, "?action=billing.mode_change").Total
		if inFree.Charges != 1 || inFree.Balance != 9_900 || after.Charges != 2 || after.Balance != 9_800 || audited != 2 {
			t.Fatalf("before/in free %+v, after %+v, %d audit rows; want 1 charge before, none in free mode, 1 after, 2 audited switches", inFree, after, audited)
		}
		battery.Report(t, "T26", "1 call charging, %d+1 free calls → 0 debits, switch without step-up → 403 step_up_required ×2, charging resumed (1 more debit), %d switches audited (%s)",
			free, audited, mode)
	})
}
