package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/coord"
)

// Abuse limits (docs/security.md, "Abuse limits"): the routes that check a
// credential, hand one out or move money count their requests per client
// address (HOSTGATE_TRUSTED_PROXIES applied) and, where the request names
// an account, per account, in fixed windows kept in coordination, so every
// hub instance shares the counts. Past a limit the route answers 429
// rate_limited with Retry-After before it does anything: no password is
// checked, no lockout counted, no ticket issued, nothing credited.

// RateLimit is one route class's limit: requests per window from one
// client address, and for one account. Zero is no limit of that kind.
type RateLimit struct {
	PerAddress int
	PerAccount int
}

// RateLimits are the abuse limits the hub configures (HOSTGATE_RATE_*).
// With a nil Counter nothing is limited: a Server built for its OpenAPI
// document only.
type RateLimits struct {
	Counter coord.Counter
	// Window is the fixed window every limit counts in.
	Window time.Duration
	// Login: user and admin sign-in (each kind counted apart), per
	// address and per account name.
	Login RateLimit
	// Register: account creation, per address and per email.
	Register RateLimit
	// Refresh: user and admin token refresh, per address.
	Refresh RateLimit
	// Ticket: terminal tickets, user and admin, per address and per
	// signed-in user or admin.
	Ticket RateLimit
	// Notify: payment notifications, per provider address.
	Notify RateLimit
	// Checkout: the dummy provider's checkout page and its payment, per
	// address.
	Checkout RateLimit
}

// rateClass is a kind of limited request: the counters' name and the
// limit of RateLimits it counts against.
type rateClass struct {
	name  string // counter prefix and log field; kinds counted apart have their own
	what  string // what the caller did too often, for the message
	limit func(RateLimits) RateLimit
}

var (
	limitLogin        = rateClass{"login", "sign-in attempts", func(l RateLimits) RateLimit { return l.Login }}
	limitAdminLogin   = rateClass{"admin-login", "admin sign-in attempts", func(l RateLimits) RateLimit { return l.Login }}
	limitRegister     = rateClass{"register", "registrations", func(l RateLimits) RateLimit { return l.Register }}
	limitRefresh      = rateClass{"refresh", "token refreshes", func(l RateLimits) RateLimit { return l.Refresh }}
	limitAdminRefresh = rateClass{"admin-refresh", "admin token refreshes", func(l RateLimits) RateLimit { return l.Refresh }}
	limitTicket       = rateClass{"ticket", "terminal tickets", func(l RateLimits) RateLimit { return l.Ticket }}
	limitNotify       = rateClass{"notify", "payment notifications", func(l RateLimits) RateLimit { return l.Notify }}
	limitCheckout     = rateClass{"checkout", "checkout requests", func(l RateLimits) RateLimit { return l.Checkout }}
)

// rateLimitedOps are the operations that count against a class; the
// OpenAPI document gives them the 429 answer with Retry-After.
var rateLimitedOps = map[string]rateClass{
	"login":               limitLogin,
	"adminLogin":          limitAdminLogin,
	"register":            limitRegister,
	"refresh":             limitRefresh,
	"adminRefresh":        limitAdminRefresh,
	"userTerminalTicket":  limitTicket,
	"adminTerminalTicket": limitTicket,
	"paymentWebhook":      limitNotify,
	"dummyCheckoutPage":   limitCheckout,
	"dummyCheckoutPay":    limitCheckout,
}

// rateLimited is a refusal: the problem to answer and its Retry-After.
type rateLimited struct {
	problem *Problem
	retry   string // seconds
}

// take counts one request of class c from the caller's address and, when
// account is not empty, for that account (an email, a username, "user:"
// and an id). It returns the refusal to answer with when either count is
// over its limit, else nil. The address is counted first, and a request it
// refuses is not counted for the account, so a flood from one address
// cannot use up an account's allowance faster than the address's own.
//
// When coordination cannot count, the request goes on (and the failure is
// logged): these limits slow abuse down; the login lockout, which lives in
// the store, still bounds password guesses, and an honest payment
// provider's notification must never be refused for the hub's own fault.
func (s *Server) take(ctx context.Context, c rateClass, account string) *rateLimited {
	lim := s.cfg.Options.Limits
	if lim.Counter == nil || lim.Window <= 0 {
		return nil
	}
	l := c.limit(lim)
	now := time.Now()
	check := func(scope string, n int, key string) *rateLimited {
		if n <= 0 {
			return nil
		}
		ok, first, retry, err := coord.Limiter{Coord: lim.Counter, Prefix: "rate:" + c.name + ":" + scope + ":",
			Limit: int64(n), Window: lim.Window}.Take(ctx, key, now)
		if err != nil {
			s.log.ErrorContext(ctx, "rate limit not counted: coordination failed; the request goes on",
				"request_id", requestID(ctx), "limit", c.name, "scope", scope, "err", err)
			return nil
		}
		if ok {
			return nil
		}
		if first { // once per key and window: a flood does not flood the log
			s.log.InfoContext(ctx, "rate limited", "request_id", requestID(ctx), "limit", c.name, "scope", scope,
				"client_ip", clientIP(ctx))
		}
		secs := max(int64((retry+time.Second-1)/time.Second), 1)
		who := "this address"
		if scope == "account" {
			who = "this account"
		}
		return &rateLimited{
			problem: &Problem{Status: http.StatusTooManyRequests, Code: apperr.CodeRateLimited,
				Message: fmt.Sprintf("too many %s from %s; retry in %d s", c.what, who, secs)},
			retry: strconv.FormatInt(secs, 10),
		}
	}
	if r := check("addr", l.PerAddress, clientIP(ctx)); r != nil {
		return r
	}
	if account == "" {
		return nil
	}
	return check("account", l.PerAccount, accountKey(account))
}

// limitOp is take for a huma operation: the error to return, or nil.
func (s *Server) limitOp(ctx context.Context, c rateClass, account string) error {
	if r := s.take(ctx, c, account); r != nil {
		return huma.ErrorWithHeaders(r.problem, http.Header{"Retry-After": {r.retry}})
	}
	return nil
}

// limitRaw is take for a raw handler: it answers the refusal itself and
// reports whether the request may go on.
func (s *Server) limitRaw(w http.ResponseWriter, r *http.Request, c rateClass, account string) bool {
	if rl := s.take(r.Context(), c, account); rl != nil {
		w.Header().Set("Retry-After", rl.retry)
		writeProblem(w, rl.problem)
		return false
	}
	return true
}

// accountKey names an account in a counter's key without the name itself
// (an email is personal data): a hash of its trimmed, lower-cased form,
// which is how sign-in and registration compare names.
func accountKey(name string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(name))))
	return hex.EncodeToString(sum[:16])
}
