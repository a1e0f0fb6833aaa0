package payments

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzNotifyForm feeds any form-encoded body to the payment gateway
// notification's check, parsed as the hub's notify route parses it
// (url.ParseQuery, then EPay.Verify). "{sign}" in the body stands for the
// true signature of its other fields, so the fuzzer reaches past the
// signature check. Nothing panics; every refusal is ErrBadSignature,
// ErrMalformed or ErrNotPaid; and an accepted notification is signed with
// the merchant key, is this merchant's, reports a successful trade and
// carries an order and a non-negative amount that formats back to the
// form's.
func FuzzNotifyForm(f *testing.F) {
	e := EPay{PID: "1001", Key: "fuzz-merchant-key"}
	valid := "pid=1001&trade_no=T1&out_trade_no=ord_1&type=alipay&name=tokens&money=12.30&trade_status=TRADE_SUCCESS&sign_type=MD5&sign={sign}"
	for _, seed := range []string{
		valid,
		strings.Replace(valid, "{sign}", "00000000000000000000000000000000", 1),
		strings.Replace(valid, "sign={sign}", "", 1),
		strings.Replace(valid, "pid=1001", "pid=9", 1),
		strings.Replace(valid, "TRADE_SUCCESS", "WAIT_BUYER_PAY", 1),
		strings.Replace(valid, "12.30", "1e3", 1),
		strings.Replace(valid, "12.30", "-1", 1),
		strings.Replace(valid, "out_trade_no=ord_1&", "", 1),
		valid + "&money=99",
		"sign={sign}",
		"%zz",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return // the route answers a malformed notification
		}
		if strings.Contains(form.Get("sign"), "{sign}") {
			form.Set("sign", Sign(form, e.Key))
		}
		n, err := e.Verify(form)
		if err != nil {
			if !errors.Is(err, ErrBadSignature) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotPaid) {
				t.Fatalf("error %v is none of ErrBadSignature, ErrMalformed, ErrNotPaid", err)
			}
			return
		}
		if strings.ToLower(form.Get("sign")) != Sign(form, e.Key) || form.Get("pid") != e.PID ||
			form.Get("trade_status") != "TRADE_SUCCESS" {
			t.Fatalf("accepted %q: unsigned, another merchant's or not paid", body)
		}
		if n.OrderNo == "" || n.OrderNo != form.Get("out_trade_no") || n.AmountFen < 0 {
			t.Fatalf("accepted %q as %+v", body, n)
		}
		if back, err := ParseFen(FormatFen(n.AmountFen)); err != nil || back != n.AmountFen {
			t.Fatalf("amount %d does not format back (%v)", n.AmountFen, err)
		}
	})
}
