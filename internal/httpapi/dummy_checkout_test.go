package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// TestDummyCheckout: with only the dummy provider, pay_url is its checkout
// page; the page's button pays the order once, as the dummy notification
// would, and the page then says so.
func TestDummyCheckout(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode, hubtest.WithEnv("HOSTGATE_PAYMENT_DUMMY", "1"))
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		var o order
		c.Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 12.34}).Want(t, 200, "").JSON(t, &o)
		if want := h.URL + "/v1/public/payments/dummy/" + o.OrderNo; o.PayURL != want {
			t.Fatalf("pay_url %q, want %q", o.PayURL, want)
		}
		path := strings.TrimPrefix(o.PayURL, h.URL)

		page := h.Client(t).Do("GET", path, nil).Want(t, 200, "")
		body := string(page.Body)
		for _, want := range []string{o.OrderNo, "12.34 CNY", "Pay (test provider)", `<form method="post" action="` + path + `">`} {
			if !strings.Contains(body, want) {
				t.Errorf("checkout page lacks %q:\n%s", want, body)
			}
		}
		if strings.Contains(strings.ToLower(body), "<script") {
			t.Error("checkout page has a script")
		}
		if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if csp := page.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "script-src") {
			t.Errorf("CSP %q, want one that runs no script", csp)
		}
		if b := balanceOf(t, h, u.AccessToken); b != 0 {
			t.Fatalf("balance %v before paying", b)
		}

		// The button: a form POST with no fields.
		for range 2 {
			req, _ := http.NewRequest("POST", h.URL+path, strings.NewReader(""))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			paid := h.Client(t).Send(req).Want(t, 200, "")
			if !strings.Contains(string(paid.Body), "Paid — you can close this tab") || strings.Contains(string(paid.Body), "<form") {
				t.Errorf("after paying:\n%s", paid.Body)
			}
		}
		if b := balanceOf(t, h, u.AccessToken); b != 1234 {
			t.Errorf("balance %v after paying twice, want 1234 (credited once)", b)
		}
		var rs struct {
			Items []struct{ Status, Provider string }
		}
		c.Do("GET", "/v1/user/billing/recharges", nil).Want(t, 200, "").JSON(t, &rs)
		if len(rs.Items) != 1 || rs.Items[0].Status != "paid" || rs.Items[0].Provider != "dummy" {
			t.Errorf("recharges %+v", rs.Items)
		}
		if again := h.Client(t).Do("GET", path, nil).Want(t, 200, ""); strings.Contains(string(again.Body), "<form") {
			t.Error("a paid order's page still offers to pay")
		}
		h.Client(t).Do("GET", "/v1/public/payments/dummy/HGnope", nil).Want(t, 404, "order_not_found")
		h.Client(t).Do("POST", "/v1/public/payments/dummy/HGnope", nil).Want(t, 404, "order_not_found")

		// The JSON notification keeps working beside the page.
		var o2 order
		c.Do("POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 1}).Want(t, 200, "").JSON(t, &o2)
		h.Client(t).Do("POST", "/v1/public/webhooks/payment/dummy", map[string]any{"order_no": o2.OrderNo, "amount_cny": 1}).Want(t, 200, "")
		if b := balanceOf(t, h, u.AccessToken); b != 1334 {
			t.Errorf("balance %v after the JSON notification, want 1334", b)
		}
	})
}

// TestDummyCheckoutOff: without HOSTGATE_PAYMENT_DUMMY the page does not
// exist, whatever the order.
func TestDummyCheckoutOff(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	for _, m := range []string{"GET", "POST"} {
		h.Client(t).Do(m, "/v1/public/payments/dummy/HG20260101000000abcdef012345", nil).Want(t, 404, "not_found")
	}
}
