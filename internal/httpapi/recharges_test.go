package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"hostgate/internal/battery"
	"hostgate/internal/hubtest"
	"hostgate/internal/payments"
)

var epay = payments.EPay{GatewayURL: "https://pay.example.com", PID: "1001", Key: "merchant-key"}

func paymentHub(t *testing.T, mode hubtest.Mode) *hubtest.Hub {
	return hubtest.Start(t, mode, hubtest.WithEnv("HOSTGATE_PAYMENT_DUMMY", "1"),
		hubtest.WithEnv("HOSTGATE_EPAY_URL", epay.GatewayURL), hubtest.WithEnv("HOSTGATE_EPAY_PID", epay.PID),
		hubtest.WithEnv("HOSTGATE_EPAY_KEY", epay.Key))
}

type order struct {
	OrderNo string `json:"order_no"`
	PayURL  string `json:"pay_url"`
	Tokens  float64
}

func balanceOf(t *testing.T, h *hubtest.Hub, token string) float64 {
	var b struct{ Tokens float64 }
	h.Client(t).As(token).Do("GET", "/v1/user/billing/balance", nil).Want(t, 200, "").JSON(t, &b)
	return b.Tokens
}

// fire sends n copies of one request at once and counts the statuses.
func fire(t *testing.T, n int, send func() *hubtest.Response) map[int]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range n {
		wg.Go(func() {
			s := send().Status
			mu.Lock()
			statuses[s]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return statuses
}

func TestDummyPaymentCreditsOnce(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := paymentHub(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		var o order
		c.Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 12.34}).Want(t, 200, "").JSON(t, &o)
		if o.Tokens != 1234 || !strings.HasPrefix(o.OrderNo, "HG") {
			t.Fatalf("order %+v", o)
		}
		if !strings.Contains(o.PayURL, "pay.example.com/submit.php") {
			t.Errorf("pay_url %q is not the gateway's", o.PayURL)
		}
		// Wrong amount and unknown order change nothing.
		h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": o.OrderNo, "amount_cny": 12.33}).Want(t, 400, "amount_mismatch")
		h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": "HGnope", "amount_cny": 12.34}).Want(t, 404, "order_not_found")
		if b := balanceOf(t, h, u.AccessToken); b != 0 {
			t.Fatalf("balance %v after refused notifications", b)
		}
		var credited atomic.Int64
		statuses := fire(t, 1000, func() *hubtest.Response {
			r := h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": o.OrderNo, "amount_cny": 12.34})
			if strings.Contains(string(r.Body), `"credited":true`) {
				credited.Add(1)
			}
			return r
		})
		if statuses[200] != 1000 || credited.Load() != 1 {
			t.Fatalf("statuses %v, %d credits; want 1000 × 200 and one credit", statuses, credited.Load())
		}
		if b := balanceOf(t, h, u.AccessToken); b != 1234 {
			t.Fatalf("balance %v, want 1234", b)
		}
		var list struct {
			Items []struct {
				Status  string
				OrderNo string `json:"order_no"`
			}
			Total int
		}
		c.Do("GET", "/v1/user/billing/recharges?status=paid", nil).Want(t, 200, "").JSON(t, &list)
		if list.Total != 1 || list.Items[0].OrderNo != o.OrderNo {
			t.Errorf("paid orders: %+v", list)
		}
		// The back office sees it, refunds it once, and the ledger holds.
		fin, _ := h.Admin(t, "finance")
		var all struct {
			Items []struct {
				ID     string
				UserID string `json:"user_id"`
			}
		}
		h.Client(t).As(fin).Do("GET", "/v1/admin/recharges?status=paid&user_id="+u.User.ID, nil).Want(t, 200, "").JSON(t, &all)
		if len(all.Items) != 1 || all.Items[0].UserID != u.User.ID {
			t.Fatalf("admin list: %+v", all)
		}
		var dash struct {
			Revenue float64 `json:"today_revenue_cny"`
		}
		h.Client(t).As(fin).Do("GET", "/v1/admin/dashboard/summary", nil).Want(t, 200, "").JSON(t, &dash)
		if dash.Revenue != 12.34 {
			t.Errorf("today's revenue %v, want 12.34", dash.Revenue)
		}
		refund := "/v1/admin/recharges/" + all.Items[0].ID + "/refund"
		h.Client(t).As(fin).Do("POST", refund, map[string]any{"reason": "test"}).Want(t, 200, "")
		h.Client(t).As(fin).Do("POST", refund, map[string]any{"reason": "again"}).Want(t, 409, "not_refundable")
		if b := balanceOf(t, h, u.AccessToken); b != 0 {
			t.Fatalf("balance %v after the refund", b)
		}
		var ledger struct{ Consistent bool }
		h.Client(t).As(fin).Do("GET", "/v1/admin/users/"+u.User.ID+"/ledger-check", nil).Want(t, 200, "").JSON(t, &ledger)
		if !ledger.Consistent {
			t.Error("ledger check: inconsistent")
		}
		// Another user's orders stay invisible.
		other := h.Register(t)
		h.Client(t).As(other.AccessToken).Do("GET", "/v1/user/billing/recharges", nil).Want(t, 200, "").JSON(t, &list)
		if list.Total != 0 {
			t.Errorf("another user sees %d orders", list.Total)
		}
	})
}

func epayNotice(key, orderNo, money string) string {
	p := url.Values{"pid": {epay.PID}, "trade_no": {"T" + orderNo}, "out_trade_no": {orderNo}, "type": {"alipay"},
		"name": {"hostgate tokens"}, "money": {money}, "trade_status": {"TRADE_SUCCESS"}}
	p.Set("sign", payments.Sign(p, key))
	p.Set("sign_type", "MD5")
	return p.Encode()
}

func postForm(t *testing.T, h *hubtest.Hub, body string) *hubtest.Response {
	req, _ := http.NewRequest("POST", h.URL+"/v1/public/webhooks/payment/fourthparty", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.Client(t).Send(req)
}

func TestFourthPartyPaymentCreditsOnce(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := paymentHub(t, mode)
		u := h.Register(t)
		var o order
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 50}).Want(t, 200, "").JSON(t, &o)

		postForm(t, h, epayNotice("wrong-key", o.OrderNo, "50.00")).Want(t, 400, "invalid_signature")
		postForm(t, h, epayNotice(epay.Key, o.OrderNo, "5.00")).Want(t, 400, "amount_mismatch")
		if b := balanceOf(t, h, u.AccessToken); b != 0 {
			t.Fatalf("balance %v after refused notifications", b)
		}
		valid := epayNotice(epay.Key, o.OrderNo, "50.00")
		statuses := fire(t, 1000, func() *hubtest.Response {
			r := postForm(t, h, valid)
			if r.Status == 200 && string(r.Body) != "SUCCESS" {
				t.Errorf("body %q, want SUCCESS", r.Body)
			}
			return r
		})
		if statuses[200] != 1000 {
			t.Fatalf("statuses %v", statuses)
		}
		if b := balanceOf(t, h, u.AccessToken); b != 5000 {
			t.Fatalf("balance %v, want 5000 (50 CNY once)", b)
		}
		var events struct{ Total int }
		h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/billing/events", nil).Want(t, 200, "").JSON(t, &events)
		if events.Total != 1 {
			t.Errorf("%d billing events, want 1", events.Total)
		}
		battery.Report(t, "T16", "%d concurrent identical notifies → %d × 200 SUCCESS, 1 credit (balance %v tokens), %d ledger row (%s)", 1000, statuses[200], 5000, events.Total, mode)
	})
}

func TestPaymentProvidersOffByDefault(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 10}).Want(t, 503, "payment_not_configured")
	h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": "x", "amount_cny": 1}).Want(t, 404, "not_found")
	postForm(t, h, epayNotice(epay.Key, "x", "1.00")).Want(t, 404, "not_found")
	// Bad amounts are refused before anything is stored.
	h2 := paymentHub(t, hubtest.Embedded)
	u2 := h2.Register(t)
	for _, bad := range []any{0, -5, 0.001, 50001, "ten"} {
		h2.Client(t).As(u2.AccessToken).Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": bad}).Want(t, 400, "invalid_body")
	}
}
