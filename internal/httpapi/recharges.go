package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/paging"
	"hostgate/internal/payments"
)

// Payments is the payment providers' configuration.
type Payments struct {
	// Dummy enables the unsigned dummy provider (development and tests).
	Dummy bool
	// EPay is the fourthparty merchant account, if configured.
	EPay payments.EPay
	// PublicURL is the hub's external base address, for notify and
	// return addresses.
	PublicURL string
}

// Recharge is a recharge order as the API shows it.
type Recharge struct {
	ID         string     `json:"id"`
	OrderNo    string     `json:"order_no"`
	UserID     string     `json:"user_id"`
	AmountCNY  float64    `json:"amount_cny"`
	Tokens     float64    `json:"tokens" doc:"Tokens the order credits when paid (1 CNY = 100 tokens)"`
	Status     string     `json:"status" enum:"pending,paid,refunded,expired"`
	Provider   string     `json:"provider,omitempty" doc:"Provider that reported the payment"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	PaidAt     *time.Time `json:"paid_at,omitempty"`
	RefundedAt *time.Time `json:"refunded_at,omitempty"`
}

func rechargeOf(r billing.Recharge) Recharge {
	return Recharge{ID: r.ID, OrderNo: r.OrderNo, UserID: r.UserID, AmountCNY: billing.CNY(r.AmountFen), Tokens: r.Units.Tokens(),
		Status: r.Status, Provider: r.Provider, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		PaidAt: r.PaidAt, RefundedAt: r.RefundedAt}
}

type rechargeIn struct {
	Body struct {
		AmountCNY float64 `json:"amount_cny" doc:"1 to 50000 CNY, at most two decimals"`
	}
}

type rechargeOut struct {
	Body struct {
		OrderNo   string    `json:"order_no"`
		PayURL    string    `json:"pay_url" doc:"Where the customer pays: the gateway's page; with only the dummy provider, its checkout page (docs/billing.md)"`
		AmountCNY float64   `json:"amount_cny"`
		Tokens    float64   `json:"tokens"`
		ExpiresAt time.Time `json:"expires_at"`
	}
}

type rechargesIn struct {
	PageParams
	Status string `query:"status" enum:"pending,paid,refunded,expired" doc:"Only orders in this status"`
}

const paymentWebhookPath = "/v1/public/webhooks/payment/"

func (s *Server) rechargeRoutes() {
	tags := []string{"user"}
	op(s, huma.Operation{OperationID: "createRecharge", Method: http.MethodPost, Path: "/v1/user/billing/recharge",
		Summary: "Open a recharge order and get the address to pay it", Tags: tags, Security: userSecurity}, s.createRecharge)
	op(s, huma.Operation{OperationID: "listRecharges", Method: http.MethodGet, Path: "/v1/user/billing/recharges",
		Summary: "Recharge orders, newest first", Tags: tags, Security: userSecurity}, s.listRecharges)
	s.raw("POST "+paymentWebhookPath+"{provider}", s.paymentWebhook, huma.Operation{OperationID: "paymentWebhook",
		Tags: []string{"public"}, Summary: "Payment provider notification",
		Description: "`fourthparty`: form-encoded, EPay-signed; answers the text SUCCESS. `dummy` (only with " +
			"HOSTGATE_PAYMENT_DUMMY=1, else 404): JSON {order_no, amount_cny}; answers {ok, credited}. " +
			"A paid order credits once however often it is notified.",
		Parameters: []*huma.Param{{Name: "provider", In: "path", Required: true,
			Schema: &huma.Schema{Type: "string", Enum: []any{payments.ProviderDummy, payments.ProviderFourthParty}}}}})
}

func (s *Server) createRecharge(ctx context.Context, in *rechargeIn) (*rechargeOut, error) {
	p := s.cfg.Options.Payments
	if !p.EPay.Configured() && !p.Dummy {
		return nil, apperr.New("payment_not_configured", "no payment provider is configured on this hub")
	}
	r, err := s.cfg.Billing.CreateRecharge(ctx, userOf(ctx).UserID, in.Body.AmountCNY)
	if err != nil {
		return nil, err
	}
	out := &rechargeOut{}
	out.Body.OrderNo, out.Body.AmountCNY, out.Body.Tokens, out.Body.ExpiresAt = r.OrderNo, billing.CNY(r.AmountFen), r.Units.Tokens(), r.ExpiresAt
	if p.EPay.Configured() {
		out.Body.PayURL = p.EPay.PayURL(r.OrderNo, r.AmountFen, p.PublicURL+paymentWebhookPath+payments.ProviderFourthParty, p.PublicURL+"/")
	} else {
		out.Body.PayURL = p.PublicURL + dummyCheckoutPath + r.OrderNo
	}
	return out, nil
}

func (s *Server) listRecharges(ctx context.Context, in *rechargesIn) (*pagedOut[Recharge], error) {
	res, err := s.cfg.Billing.Recharges(ctx, userOf(ctx).UserID, in.Status, in.page())
	if err != nil {
		return nil, err
	}
	return rechargePage(res), nil
}

func rechargePage(res paging.Result[billing.Recharge]) *pagedOut[Recharge] {
	return &pagedOut[Recharge]{Body: paging.Map(res, rechargeOf)}
}

// adminRechargesIn declares its parameters itself rather than embedding
// rechargesIn: huma does not see the parameters of a struct embedded in
// an embedded struct (PageParams in rechargesIn), so limit, offset and
// status were ignored (limits_test.go).
type adminRechargesIn struct {
	PageParams
	Status string `query:"status" enum:"pending,paid,refunded,expired" doc:"Only orders in this status"`
	UserID string `query:"user_id" maxLength:"64" doc:"Only this user's orders"`
}

func (s *Server) adminListRecharges(ctx context.Context, in *adminRechargesIn) (*pagedOut[Recharge], error) {
	res, err := s.cfg.Billing.AllRecharges(ctx, in.UserID, in.Status, in.page())
	if err != nil {
		return nil, err
	}
	return rechargePage(res), nil
}

type refundIn struct {
	ID   string `path:"id" format:"uuid" doc:"Recharge id"`
	Body struct {
		Reason string `json:"reason" maxLength:"1000" doc:"Why, 1 to 200 characters; kept in the event and the audit log"`
	}
}

type refundOut struct {
	Body struct {
		OK           bool     `json:"ok"`
		Recharge     Recharge `json:"recharge"`
		BalanceAfter float64  `json:"balance_after"`
	}
}

func (s *Server) adminRefundRecharge(ctx context.Context, in *refundIn) (*refundOut, error) {
	r, after, err := s.cfg.Billing.RefundRecharge(ctx, actor(ctx), in.ID, in.Body.Reason)
	if err != nil {
		return nil, err
	}
	out := &refundOut{}
	out.Body.OK, out.Body.Recharge, out.Body.BalanceAfter = true, rechargeOf(r), after.Tokens()
	return out, nil
}

type ledgerOut struct {
	Body struct {
		UserID     string  `json:"user_id"`
		Balance    float64 `json:"balance" doc:"The stored balance in tokens"`
		EventsSum  float64 `json:"events_sum" doc:"The sum of the user's billing events in tokens"`
		Consistent bool    `json:"consistent" doc:"Whether the two are equal (they always should be)"`
	}
}

func (s *Server) adminLedgerCheck(ctx context.Context, in *idIn) (*ledgerOut, error) {
	bal, sum, err := s.cfg.Billing.CheckLedger(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := &ledgerOut{}
	out.Body.UserID, out.Body.Balance, out.Body.EventsSum, out.Body.Consistent = in.ID, bal.Tokens(), sum.Tokens(), bal == sum
	return out, nil
}

// paymentWebhook applies a provider's notification. What changes nothing
// (unknown order, bad signature, wrong amount) is logged and refused.
func (s *Server) paymentWebhook(w http.ResponseWriter, r *http.Request) {
	provider := r.PathValue("provider")
	p := s.cfg.Options.Payments
	var read func(*http.Request) (payments.Notification, error)
	switch {
	case provider == payments.ProviderDummy && p.Dummy:
		read = readDummyNotice
	case provider == payments.ProviderFourthParty && p.EPay.Configured():
		read = func(r *http.Request) (payments.Notification, error) { return readEPayNotice(r, p.EPay) }
	default:
		writeProblem(w, &Problem{Status: 404, Code: apperr.CodeNotFound, Message: "no such payment provider"})
		return
	}
	// Counted per address before the body is read (docs/security.md,
	// "Abuse limits": the limit is far above what a provider retrying
	// honestly sends).
	if !s.limitRaw(w, r, limitNotify, "") {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxNotice)
	n, err := read(r)
	switch {
	case errors.Is(err, errNoticeTooLarge):
		writeProblem(w, &Problem{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
			Message: fmt.Sprintf("a payment notification is at most %d bytes", maxNotice)})
		return
	case errors.Is(err, errNoticeTimeout):
		writeProblem(w, &Problem{Status: http.StatusRequestTimeout, Code: "body_timeout",
			Message: "the notification's body did not arrive in time"})
		return
	}
	if err != nil {
		s.log.WarnContext(r.Context(), "payment notification refused", "provider", provider, "order_no", n.OrderNo,
			"request_id", requestID(r.Context()), "err", err)
		writeProblem(w, paymentProblem(err))
		return
	}
	_, credited, err := s.applyPayment(r, provider, n)
	if err != nil {
		writeProblem(w, paymentProblem(err))
		return
	}
	if provider == payments.ProviderFourthParty {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "SUCCESS")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]bool{"ok": true, "credited": credited})
}

// applyPayment credits the order of a verified notification, once
// (billing.ApplyPayment), and logs the outcome; every way an order is
// paid goes through it.
func (s *Server) applyPayment(r *http.Request, provider string, n payments.Notification) (billing.Recharge, bool, error) {
	paid, credited, err := s.cfg.Billing.ApplyPayment(r.Context(), provider, n.OrderNo, n.AmountFen)
	if err != nil {
		s.log.WarnContext(r.Context(), "payment notification refused", "provider", provider, "order_no", n.OrderNo,
			"request_id", requestID(r.Context()), "err", err)
		return billing.Recharge{}, false, err
	}
	s.log.InfoContext(r.Context(), "payment notification", "provider", provider, "order_no", n.OrderNo, "credited", credited)
	return paid, credited, nil
}

// maxNotice bounds a notification body; a longer one is refused with 413
// body_too_large.
const maxNotice = 64 << 10

// errNoticeTooLarge is a notification body over maxNotice;
// errNoticeTimeout one that did not arrive in time (bodydeadline.go).
var (
	errNoticeTooLarge = errors.New("payment notification too large")
	errNoticeTimeout  = errors.New("payment notification body timed out")
)

// readNotice reads a notification body whole, within maxNotice (the
// caller set the MaxBytesReader).
func readNotice(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, errNoticeTooLarge
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return nil, errNoticeTimeout
	}
	if err != nil {
		return nil, payments.ErrMalformed
	}
	return b, nil
}

func readDummyNotice(r *http.Request) (payments.Notification, error) {
	var body struct {
		OrderNo   string  `json:"order_no"`
		AmountCNY float64 `json:"amount_cny"`
	}
	b, err := readNotice(r)
	if err != nil {
		return payments.Notification{}, err
	}
	if checkJSONDepth(b) != nil {
		return payments.Notification{}, payments.ErrMalformed
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.OrderNo == "" {
		return payments.Notification{}, payments.ErrMalformed
	}
	fen, err := billing.ParseCNY(body.AmountCNY)
	if err != nil {
		return payments.Notification{}, payments.ErrMalformed
	}
	return payments.Notification{OrderNo: body.OrderNo, AmountFen: fen}, nil
}

func readEPayNotice(r *http.Request, e payments.EPay) (payments.Notification, error) {
	b, err := readNotice(r)
	if err != nil {
		return payments.Notification{}, err
	}
	form, err := url.ParseQuery(string(b))
	if err != nil {
		return payments.Notification{}, payments.ErrMalformed
	}
	return e.Verify(form)
}

func paymentProblem(err error) *Problem {
	switch {
	case errors.Is(err, payments.ErrBadSignature):
		return &Problem{Status: 400, Code: "invalid_signature", Message: "the notification's signature is not valid"}
	case errors.Is(err, payments.ErrNotPaid):
		return &Problem{Status: 400, Code: "payment_not_successful", Message: "the trade is not successful"}
	case errors.Is(err, payments.ErrMalformed):
		return &Problem{Status: 400, Code: apperr.CodeInvalidBody, Message: "malformed payment notification"}
	case errors.Is(err, billing.ErrOrderNotFound):
		return &Problem{Status: 404, Code: "order_not_found", Message: "no such order"}
	case errors.Is(err, billing.ErrAmountMismatch):
		return &Problem{Status: 400, Code: "amount_mismatch", Message: "the paid amount differs from the order's"}
	case errors.Is(err, billing.ErrNotPayable):
		return &Problem{Status: 409, Code: "order_not_payable", Message: "the order was refunded"}
	}
	return &Problem{Status: 500, Code: apperr.CodeInternal, Message: "internal error"}
}
