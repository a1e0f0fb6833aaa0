package payments

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestSignKnownVector(t *testing.T) {
	// md5("a=1&b=2&c=x" + "KEY"); empty values, sign and sign_type are left out.
	p := url.Values{"b": {"2"}, "a": {"1"}, "c": {"x"}, "empty": {""}, "sign": {"zzz"}, "sign_type": {"MD5"}}
	if got := Sign(p, "KEY"); got != "87a5ed186461e243988639f3b8da1603" {
		t.Fatalf("sign %q", got)
	}
	q := url.Values{"a": {"1"}, "b": {"2"}, "c": {"x"}}
	if Sign(p, "KEY") != Sign(q, "KEY") {
		t.Error("sign, sign_type or empty values changed the signature")
	}
	if Sign(q, "KEY") == Sign(q, "KEY2") {
		t.Error("the key does not matter")
	}
}

func notice(e EPay, money, status string) url.Values {
	p := url.Values{"pid": {e.PID}, "trade_no": {"T1"}, "out_trade_no": {"HG1"}, "type": {"alipay"},
		"name": {"x"}, "money": {money}, "trade_status": {status}}
	p.Set("sign", Sign(p, e.Key))
	p.Set("sign_type", "MD5")
	return p
}

func TestVerify(t *testing.T) {
	e := EPay{GatewayURL: "https://pay.example.com", PID: "1001", Key: "secret"}
	n, err := e.Verify(notice(e, "12.30", "TRADE_SUCCESS"))
	if err != nil || n.OrderNo != "HG1" || n.AmountFen != 1230 {
		t.Fatalf("%+v %v", n, err)
	}
	upper := notice(e, "12.30", "TRADE_SUCCESS")
	upper.Set("sign", strings.ToUpper(upper.Get("sign")))
	if _, err := e.Verify(upper); err != nil {
		t.Errorf("upper-case signature: %v", err)
	}
	tampered := notice(e, "12.30", "TRADE_SUCCESS")
	tampered.Set("money", "1230.00")
	if _, err := e.Verify(tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("tampered amount: %v", err)
	}
	other := EPay{PID: "1001", Key: "other"}
	if _, err := other.Verify(notice(e, "1", "TRADE_SUCCESS")); !errors.Is(err, ErrBadSignature) {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := e.Verify(notice(e, "1", "WAIT_BUYER_PAY")); !errors.Is(err, ErrNotPaid) {
		t.Errorf("unpaid: %v", err)
	}
	if _, err := e.Verify(notice(EPay{PID: "9", Key: "secret"}, "1", "TRADE_SUCCESS")); !errors.Is(err, ErrMalformed) {
		t.Errorf("other merchant: %v", err)
	}
	if _, err := e.Verify(notice(e, "1e3", "TRADE_SUCCESS")); !errors.Is(err, ErrMalformed) {
		t.Errorf("bad money: %v", err)
	}
}

func TestPayURLIsSigned(t *testing.T) {
	e := EPay{GatewayURL: "https://pay.example.com/", PID: "1001", Key: "secret"}
	u, err := url.Parse(e.PayURL("HG1", 1234, "https://hub/notify", "https://hub/"))
	if err != nil || u.Host != "pay.example.com" || u.Path != "/submit.php" {
		t.Fatalf("%v %v", u, err)
	}
	q := u.Query()
	if q.Get("money") != "12.34" || q.Get("out_trade_no") != "HG1" || q.Get("sign") != Sign(q, "secret") {
		t.Errorf("query %v", q)
	}
}

func TestParseFen(t *testing.T) {
	ok := map[string]int64{"0": 0, "12": 1200, "12.3": 1230, "12.34": 1234, "0.01": 1, "007.50": 750}
	for in, want := range ok {
		if got, err := ParseFen(in); err != nil || got != want {
			t.Errorf("ParseFen(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".5", "1.", "1.234", "-1", "+1", "1e2", " 1", "1,00", "9999999999999"} {
		if got, err := ParseFen(bad); err == nil {
			t.Errorf("ParseFen(%q) = %d, want an error", bad, got)
		}
	}
}

func FuzzParseFen(f *testing.F) {
	for _, s := range []string{"1", "12.34", "0.5", "1.", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fen, err := ParseFen(s)
		if err != nil {
			return
		}
		if fen < 0 {
			t.Fatalf("%q → negative %d", s, fen)
		}
		// Formatting and parsing again gives the same amount.
		if again, err := ParseFen(FormatFen(fen)); err != nil || again != fen {
			t.Fatalf("%q → %d → %q → %d, %v", s, fen, FormatFen(fen), again, err)
		}
	})
}
