// Package payments speaks to payment providers: it builds the address a
// customer pays a recharge order at and checks the providers'
// notifications before billing credits anything. Two providers:
//
//   - fourthparty: an "EPay"-style merchant gateway. Requests and
//     notifications carry form parameters signed with the merchant key:
//     the parameters except sign and sign_type and those with empty
//     values, sorted by name, joined as k=v with &, the key appended, MD5
//     in lower-case hex.
//   - dummy: for development and tests only, enabled explicitly; its
//     notification is JSON {order_no, amount_cny} and carries no proof.
package payments

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Provider names, as in /v1/public/webhooks/payment/{provider}.
const (
	ProviderDummy       = "dummy"
	ProviderFourthParty = "fourthparty"
)

// EPay is a merchant account at an EPay-style gateway.
type EPay struct {
	// GatewayURL is the gateway's base address; customers pay at
	// <GatewayURL>/submit.php.
	GatewayURL string
	// PID is the merchant id, Key the merchant key (a secret).
	PID string
	Key string
}

// Configured reports whether the account is complete.
func (e EPay) Configured() bool { return e.GatewayURL != "" && e.PID != "" && e.Key != "" }

// Sign is the signature of params under key.
func Sign(params url.Values, key string) string {
	names := make([]string, 0, len(params))
	for k := range params {
		if k != "sign" && k != "sign_type" && params.Get(k) != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k + "=" + params.Get(k))
	}
	b.WriteString(key)
	sum := md5.Sum([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// PayURL is where the customer pays orderNo of amountFen; the gateway
// notifies notifyURL and sends the customer back to returnURL.
func (e EPay) PayURL(orderNo string, amountFen int64, notifyURL, returnURL string) string {
	p := url.Values{
		"pid": {e.PID}, "out_trade_no": {orderNo}, "notify_url": {notifyURL}, "return_url": {returnURL},
		"name": {"hostgate tokens " + orderNo}, "money": {FormatFen(amountFen)},
	}
	p.Set("sign", Sign(p, e.Key))
	p.Set("sign_type", "MD5")
	return strings.TrimRight(e.GatewayURL, "/") + "/submit.php?" + p.Encode()
}

// Notification is a verified notice that an order was paid.
type Notification struct {
	OrderNo   string
	AmountFen int64
}

// Errors of Verify; each means the notice changes nothing.
var (
	ErrBadSignature = errors.New("payments: bad signature")
	ErrNotPaid      = errors.New("payments: trade not successful")
	ErrMalformed    = errors.New("payments: malformed notification")
)

// Verify checks a gateway notification: the signature (compared in
// constant time), the merchant id and a successful trade status.
func (e EPay) Verify(params url.Values) (Notification, error) {
	want := Sign(params, e.Key)
	got := strings.ToLower(params.Get("sign"))
	if subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		return Notification{}, ErrBadSignature
	}
	if params.Get("pid") != e.PID {
		return Notification{}, fmt.Errorf("%w: merchant id %q", ErrMalformed, params.Get("pid"))
	}
	if params.Get("trade_status") != "TRADE_SUCCESS" {
		return Notification{}, fmt.Errorf("%w: %q", ErrNotPaid, params.Get("trade_status"))
	}
	fen, err := ParseFen(params.Get("money"))
	if err != nil || params.Get("out_trade_no") == "" {
		return Notification{}, fmt.Errorf("%w: money %q, order %q", ErrMalformed, params.Get("money"), params.Get("out_trade_no"))
	}
	return Notification{OrderNo: params.Get("out_trade_no"), AmountFen: fen}, nil
}

// ParseFen reads a decimal CNY amount ("12", "12.3", "12.34") exactly
// into fen; anything else (signs, exponents, more decimals) is refused.
func ParseFen(s string) (int64, error) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || len(frac) > 2 || (hasDot && frac == "") || !digits(whole) || !digits(frac) {
		return 0, fmt.Errorf("not an amount: %q", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, err
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			f *= 10
		}
	}
	return w*100 + f, nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FormatFen writes fen as a CNY amount with two decimals.
func FormatFen(fen int64) string { return fmt.Sprintf("%d.%02d", fen/100, fen%100) }
