package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/billing"
	"hostgate/internal/payments"
)

// TestPaymentCrashAtomic (battery T19, issue 27 item 4): a real hub
// process is killed with SIGKILL inside a payment's unit of work — after
// the order update, before the ledger insert, before the commit
// (billing.CrashAtEnv) — and restarted. Each time nothing of the payment
// is visible (order pending, balance 0, no event); then the provider
// retries every notification and each order is credited exactly once.
func TestPaymentCrashAtomic(t *testing.T) {
	for _, scaled := range []bool{false, true} {
		name := map[bool]string{false: "sqlite", true: "postgres"}[scaled]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			epay := payments.EPay{GatewayURL: "https://pay.example.com", PID: "1001", Key: "e2e-merchant-key"}
			e := NewEnv(t, scaled)
			e.env["HOSTGATE_EPAY_URL"], e.env["HOSTGATE_EPAY_PID"], e.env["HOSTGATE_EPAY_KEY"] = epay.GatewayURL, epay.PID, epay.Key
			points := []string{billing.CrashAfterOrderUpdate, billing.CrashBeforeLedgerInsert, billing.CrashBeforeCommit}
			e.env[billing.CrashAtEnv] = points[0]
			h := e.StartHub()
			c := NewCustomer(t, h)
			type order struct {
				OrderNo   string  `json:"order_no"`
				AmountCNY float64 `json:"amount_cny"`
			}
			orders := make([]order, len(points))
			for i := range orders {
				if s := call(t, "POST", h.URL+"/v1/user/billing/recharge", c.Token, map[string]any{"amount_cny": 10 + i}, &orders[i]); s != 200 {
					t.Fatalf("recharge: %d", s)
				}
			}
			notify := func(h *Hub, o order) (int, string, error) {
				p := url.Values{"pid": {epay.PID}, "trade_no": {"T" + o.OrderNo}, "out_trade_no": {o.OrderNo}, "type": {"alipay"},
					"name": {"hostgate tokens"}, "money": {fmt.Sprintf("%.2f", o.AmountCNY)}, "trade_status": {"TRADE_SUCCESS"}}
				p.Set("sign", payments.Sign(p, epay.Key))
				p.Set("sign_type", "MD5")
				resp, err := http.Post(h.URL+"/v1/public/webhooks/payment/fourthparty", "application/x-www-form-urlencoded", strings.NewReader(p.Encode()))
				if err != nil {
					return 0, "", err
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b), err
			}
			// state is what the hub shows of the customer: the orders'
			// statuses, the balance and the number of billing events.
			state := func(h *Hub) (map[string]string, float64, int) {
				var list struct {
					Items []struct {
						OrderNo string `json:"order_no"`
						Status  string
					}
				}
				if s := call(t, "GET", h.URL+"/v1/user/billing/recharges", c.Token, nil, &list); s != 200 {
					t.Fatalf("recharges: %d", s)
				}
				st := map[string]string{}
				for _, it := range list.Items {
					st[it.OrderNo] = it.Status
				}
				var events struct{ Total int }
				if s := call(t, "GET", h.URL+"/v1/user/billing/events", c.Token, nil, &events); s != 200 {
					t.Fatalf("events: %d", s)
				}
				return st, c.Balance(h), events.Total
			}
			for i, point := range points {
				status, body, err := notify(h, orders[i])
				if err == nil && status == 200 && strings.HasPrefix(body, "SUCCESS") {
					t.Fatalf("%s: the notify was answered %d %q; want the hub killed before answering", point, status, body)
				}
				select {
				case <-h.done:
				case <-time.After(30 * time.Second):
					t.Fatalf("%s: the hub did not die at the checkpoint", point)
				}
				if ps := h.cmd.ProcessState; ps == nil || !strings.Contains(ps.String(), "killed") {
					t.Fatalf("%s: hub exit %v, want killed by SIGKILL", point, ps)
				}
				if i+1 < len(points) {
					e.env[billing.CrashAtEnv] = points[i+1]
				} else {
					delete(e.env, billing.CrashAtEnv)
				}
				h = e.StartHub(h.addr)
				st, bal, events := state(h)
				for _, o := range orders {
					if st[o.OrderNo] != "pending" {
						t.Fatalf("after SIGKILL %s: order %s is %q, want pending (nothing committed)", point, o.OrderNo, st[o.OrderNo])
					}
				}
				if bal != 0 || events != 0 {
					t.Fatalf("after SIGKILL %s: balance %v, %d events; want 0, 0", point, bal, events)
				}
			}
			// The provider retries every notification, twice: each order
			// credits once.
			for range 2 {
				for _, o := range orders {
					if status, body, err := notify(h, o); err != nil || status != 200 || body != "SUCCESS" {
						t.Fatalf("retry of %s: %d %q %v, want 200 SUCCESS", o.OrderNo, status, body, err)
					}
				}
			}
			st, bal, events := state(h)
			for _, o := range orders {
				if st[o.OrderNo] != "paid" {
					t.Errorf("order %s is %q after the retries, want paid", o.OrderNo, st[o.OrderNo])
				}
			}
			if bal != 3300 || events != 3 {
				t.Fatalf("after the retries: balance %v, %d events; want 3300 (10+11+12 CNY once each), 3", bal, events)
			}
			var lc struct{ Consistent bool }
			if s := call(t, "GET", h.URL+"/v1/admin/users/"+c.UserID+"/ledger-check", adminToken(t, h), nil, &lc); s != 200 || !lc.Consistent {
				t.Fatalf("ledger check: %d %+v", s, lc)
			}
			battery.Report(t, "T19", "hub SIGKILLed at %s: each time order pending, balance 0, 0 events after restart; 2 provider retries of each → %d credits, balance %v tokens, ledger consistent (%s)",
				strings.Join(points, ", "), events, bal, name)
		})
	}
}
