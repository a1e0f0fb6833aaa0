package billing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/periodic"
)

// Recharge statuses. pending → paid by the payment webhook (also from
// expired: money the provider took is never ignored); pending → expired
// when unpaid past ExpiresAt; paid → refunded by an admin.
const (
	RechargePending  = "pending"
	RechargePaid     = "paid"
	RechargeRefunded = "refunded"
	RechargeExpired  = "expired"
)

// RechargeStatuses lists the statuses, for filters.
var RechargeStatuses = []string{RechargePending, RechargePaid, RechargeRefunded, RechargeExpired}

// Recharge limits: amounts in CNY with at most two decimals.
const (
	MinRechargeFen = 100           // 1 CNY
	MaxRechargeFen = 5_000_000     // 50,000 CNY
	RechargeTTL    = 2 * time.Hour // an unpaid order expires after this
	// UnitsPerFen: 1 CNY = 100 tokens, so 1 fen = 1 token = 1000 units.
	UnitsPerFen = UnitsPerToken
)

// Recharge is one top-up order.
type Recharge struct {
	ID         string
	OrderNo    string
	UserID     string
	AmountFen  int64
	Units      Units
	Status     string
	Provider   string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	PaidAt     *time.Time
	RefundedAt *time.Time
}

// Payment is a provider's notification that an order was paid.
type Payment struct {
	OrderNo   string
	AmountFen int64
	Provider  string
	EventID   string
	At        time.Time
}

// Refund is an admin's refund of a paid order.
type Refund struct {
	RechargeID string
	EventID    string
	Reason     string
	At         time.Time
	// Audit is written in the same transaction.
	Audit audit.Entry
}

// Errors of PayRecharge.
var (
	ErrOrderNotFound  = errors.New("billing: no such order")
	ErrAmountMismatch = errors.New("billing: paid amount differs from the order's")
	ErrNotPayable     = errors.New("billing: order refunded")
	// ErrNotRefundable: the order is not paid (or already refunded).
	ErrNotRefundable = errors.New("billing: order not paid")
)

// RechargeStore keeps recharge orders.
type RechargeStore interface {
	CreateRecharge(ctx context.Context, r Recharge) error
	ListRecharges(ctx context.Context, userID, status string, p paging.Page) ([]Recharge, int, error)
	// RechargeByOrderNo is the order numbered orderNo; ErrOrderNotFound.
	RechargeByOrderNo(ctx context.Context, orderNo string) (Recharge, error)
	// ExpireRecharges moves pending orders past their expiry to expired
	// and returns how many.
	ExpireRecharges(ctx context.Context, now time.Time) (int64, error)
}

// ParseCNY converts an amount in CNY from the API into fen, refusing more
// than two decimals.
func ParseCNY(cny float64) (int64, error) {
	if math.IsNaN(cny) || math.IsInf(cny, 0) || cny <= 0 || cny > 1e9 {
		return 0, fmt.Errorf("amount out of range")
	}
	f := math.Round(cny * 100)
	if math.Abs(f-cny*100) > 1e-6 {
		return 0, fmt.Errorf("CNY amounts have at most two decimals")
	}
	return int64(f), nil
}

// CNY is fen as a CNY number for the API.
func CNY(fen int64) float64 { return float64(fen) / 100 }

// CreateRecharge opens a pending order of amountCNY for userID.
func (s *Service) CreateRecharge(ctx context.Context, userID string, amountCNY float64) (Recharge, error) {
	fen, err := ParseCNY(amountCNY)
	if err != nil || fen < MinRechargeFen || fen > MaxRechargeFen {
		return Recharge{}, apperr.New(apperr.CodeInvalidBody, "amount_cny must be 1 to 50000 CNY with at most two decimals")
	}
	now := s.now().UTC()
	r := Recharge{ID: uuid.NewString(), OrderNo: newOrderNo(now), UserID: userID, AmountFen: fen,
		Units: Units(fen * UnitsPerFen), Status: RechargePending, CreatedAt: now, ExpiresAt: now.Add(RechargeTTL)}
	return r, s.recharges.CreateRecharge(ctx, r)
}

// newOrderNo is "HG" + the UTC date and time + 12 random hex digits:
// sortable, unguessable, 28 characters.
func newOrderNo(now time.Time) string {
	b := make([]byte, 6)
	rand.Read(b)
	return "HG" + now.Format("20060102150405") + hex.EncodeToString(b)
}

// Recharges pages the user's orders, newest first, optionally by status.
func (s *Service) Recharges(ctx context.Context, userID, status string, p paging.Page) (paging.Result[Recharge], error) {
	items, total, err := s.recharges.ListRecharges(ctx, userID, status, p)
	return paging.NewResult(items, total, p), err
}

// RechargeByOrderNo is the order numbered orderNo, whoever's it is (the
// dummy provider's checkout page shows it); ErrOrderNotFound.
func (s *Service) RechargeByOrderNo(ctx context.Context, orderNo string) (Recharge, error) {
	return s.recharges.RechargeByOrderNo(ctx, orderNo)
}

// ApplyPayment credits a paid order once. A repeated notification of a
// paid order is success with credited false.
func (s *Service) ApplyPayment(ctx context.Context, provider, orderNo string, amountFen int64) (Recharge, bool, error) {
	return s.ledger.PayRecharge(ctx, Payment{OrderNo: orderNo, AmountFen: amountFen, Provider: provider,
		EventID: uuid.NewString(), At: s.now().UTC()})
}

// ExpireRecharges marks unpaid orders past their expiry; several hub
// instances may run it at once (the UPDATE is idempotent).
func (s *Service) ExpireRecharges(ctx context.Context) error {
	_, err := s.recharges.ExpireRecharges(ctx, s.now().UTC())
	return err
}

// RunExpiry runs ExpireRecharges every interval until ctx ends.
func (s *Service) RunExpiry(ctx context.Context, interval time.Duration, onErr func(error)) {
	periodic.Run(ctx, interval, s.ExpireRecharges, onErr)
}

// AllRecharges pages every user's orders (the back office), optionally by
// user and status.
func (s *Service) AllRecharges(ctx context.Context, userID, status string, p paging.Page) (paging.Result[Recharge], error) {
	return s.Recharges(ctx, userID, status, p)
}

// RefundRecharge refunds a paid order on an admin's behalf, audited as
// recharge.refund; it returns the order and the balance after.
func (s *Service) RefundRecharge(ctx context.Context, actor audit.Actor, id, reason string) (Recharge, Units, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > MaxReasonLen {
		return Recharge{}, 0, apperr.New(apperr.CodeInvalidBody, "reason must be 1 to 200 characters")
	}
	entry := actor.Entry(audit.ActionRechargeRefund, "recharge", id).WithDetail(map[string]any{"reason": reason})
	r, after, err := s.ledger.RefundRecharge(ctx, Refund{RechargeID: id, EventID: uuid.NewString(), Reason: reason,
		At: s.now().UTC(), Audit: entry})
	switch {
	case errors.Is(err, ErrOrderNotFound):
		return Recharge{}, 0, apperr.NotFound("recharge")
	case errors.Is(err, ErrNotRefundable):
		return Recharge{}, 0, apperr.New(CodeNotRefundable, "only a paid order can be refunded, once")
	case errors.Is(err, ErrInsufficient):
		return Recharge{}, 0, apperr.New(CodeRefundExceedsBalance, "the balance no longer covers what the order credited")
	}
	return r, after, err
}

// Error codes of a refund.
const (
	CodeNotRefundable        = "not_refundable"
	CodeRefundExceedsBalance = "refund_exceeds_balance"
)
