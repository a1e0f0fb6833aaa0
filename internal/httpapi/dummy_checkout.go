package httpapi

import (
	"errors"
	"html/template"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/payments"
)

// The dummy provider's checkout page (HOSTGATE_PAYMENT_DUMMY=1 only, for
// development and tests): the pay_url of a dummy order. GET shows the
// order with a button; the button's form POST pays it exactly as the
// dummy JSON notification does (billing.ApplyPayment: credited once).

const dummyCheckoutPath = "/v1/public/payments/dummy/"

// checkoutCSP lets the page use its own inline style and post its form to
// the hub, and nothing else: no script at all.
const checkoutCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func (s *Server) dummyCheckoutRoutes() {
	doc := func(id, summary, desc string) huma.Operation {
		return huma.Operation{OperationID: id, Tags: []string{"public"}, Summary: summary, Description: desc,
			Parameters: []*huma.Param{{Name: "order_no", In: "path", Required: true, Schema: &huma.Schema{Type: "string"},
				Description: "The order's number, as createRecharge answered it"}},
			Responses: map[string]*huma.Response{
				"200": {Description: "An HTML page", Content: map[string]*huma.MediaType{"text/html": {}}},
				"404": {Description: "not_found without HOSTGATE_PAYMENT_DUMMY=1; order_not_found for an unknown order"},
			}}
	}
	s.raw("GET "+dummyCheckoutPath+"{order_no}", s.dummyCheckoutPage, doc("dummyCheckoutPage",
		"The dummy provider's checkout page for an order (development and tests only)",
		"Only with HOSTGATE_PAYMENT_DUMMY=1, else 404. Shows the order number and amount and a \"Pay (test provider)\" button, a form posting to the same path."))
	s.raw("POST "+dummyCheckoutPath+"{order_no}", s.dummyCheckoutPay, doc("dummyCheckoutPay",
		"Pay an order with the dummy provider (development and tests only)",
		"Only with HOSTGATE_PAYMENT_DUMMY=1, else 404. The checkout page's form: pays the order exactly as the dummy "+
			"notification does (credited once however often) and answers a page saying it is paid. 409 order_not_payable for a refunded order."))
}

var checkoutPage = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Dummy checkout · {{.OrderNo}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}
dt{color:#666}dd{margin:0 0 .75rem;font-size:1.25rem}button{font-size:1rem;padding:.5rem 1rem}</style></head>
<body>
<h1>{{if .Done}}Paid — you can close this tab{{else}}Dummy checkout{{end}}</h1>
<p>Test payment provider: no money moves.</p>
<dl>
<dt>Order</dt><dd data-testid="checkout-order">{{.OrderNo}}</dd>
<dt>Amount</dt><dd data-testid="checkout-amount">{{.Amount}} CNY ({{.Tokens}} tokens)</dd>
<dt>Status</dt><dd data-testid="checkout-status">{{.Status}}</dd>
</dl>
{{if .Payable}}<form method="post" action="{{.Action}}"><button type="submit" data-testid="checkout-pay">Pay (test provider)</button></form>{{end}}
</body>
</html>
`))

type checkoutView struct {
	OrderNo, Amount, Status, Action string
	Tokens                          float64
	Payable, Done                   bool
}

func viewOf(r billing.Recharge, done bool) checkoutView {
	return checkoutView{OrderNo: r.OrderNo, Amount: payments.FormatFen(r.AmountFen), Status: r.Status,
		Action: dummyCheckoutPath + r.OrderNo, Tokens: r.Units.Tokens(), Done: done,
		Payable: !done && (r.Status == billing.RechargePending || r.Status == billing.RechargeExpired)}
}

// dummyOrder is the order of the request's path, or the answer that there
// is none (or no dummy provider).
func (s *Server) dummyOrder(w http.ResponseWriter, r *http.Request) (billing.Recharge, bool) {
	if !s.cfg.Options.Payments.Dummy {
		writeProblem(w, &Problem{Status: 404, Code: apperr.CodeNotFound, Message: "no such route: the dummy payment provider is off (HOSTGATE_PAYMENT_DUMMY)"})
		return billing.Recharge{}, false
	}
	if !s.limitRaw(w, r, limitCheckout, "") {
		return billing.Recharge{}, false
	}
	o, err := s.cfg.Billing.RechargeByOrderNo(r.Context(), r.PathValue("order_no"))
	if err != nil {
		if !errors.Is(err, billing.ErrOrderNotFound) {
			writeProblem(w, problemFor(s.log, r, err))
		} else {
			writeProblem(w, paymentProblem(err))
		}
		return billing.Recharge{}, false
	}
	return o, true
}

func (s *Server) dummyCheckoutPage(w http.ResponseWriter, r *http.Request) {
	if o, ok := s.dummyOrder(w, r); ok {
		s.writeCheckout(w, viewOf(o, o.Status == billing.RechargePaid))
	}
}

func (s *Server) dummyCheckoutPay(w http.ResponseWriter, r *http.Request) {
	o, ok := s.dummyOrder(w, r)
	if !ok {
		return
	}
	// The order's own amount: the page pays what was ordered, as the
	// dummy notification with the right amount does.
	paid, _, err := s.applyPayment(r, payments.ProviderDummy, payments.Notification{OrderNo: o.OrderNo, AmountFen: o.AmountFen})
	if err != nil {
		writeProblem(w, paymentProblem(err))
		return
	}
	s.writeCheckout(w, viewOf(paid, true))
}

func (s *Server) writeCheckout(w http.ResponseWriter, v checkoutView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", checkoutCSP)
	_ = checkoutPage.Execute(w, v)
}
