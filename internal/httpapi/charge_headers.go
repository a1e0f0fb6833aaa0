package httpapi

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"

	"hostgate/internal/billing"
)

// The answer of a request that reached a charge step says what it cost
// (docs/billing.md): the tokens taken and the balance after, as decimal
// token numbers written as the API writes balances. The charge is made
// deep in the request (package operations, billing.ChargeCall) and noted
// in a billing.Receipt the request's context carries; chargeHeaders reads
// it as the answer's header goes out, so no handler decides anything.
const (
	// HeaderCharged is the tokens the call took: "0" when nothing was
	// (free mode, a price of zero, 402 insufficient_balance).
	HeaderCharged = "X-Hostgate-Charged"
	// HeaderBalance is the balance after the charge; on a 402 the balance
	// that fell short. Absent when no balance was read: free mode or a
	// price of zero.
	HeaderBalance = "X-Hostgate-Balance"
)

// chargeHeaders gives every request of the API (/v1/: the client API and
// the console's charged system/info) a billing.Receipt and its answer the
// charge headers when a charge step ran. An answer refused before the
// charge (not_found, invalid_body, host_offline…) carries neither: nothing
// was charged. The legacy /gateway keeps its answers as they were.
func chargeHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/") {
			next.ServeHTTP(w, r)
			return
		}
		ctx, rc := billing.WithReceipt(r.Context())
		next.ServeHTTP(&chargeWriter{ResponseWriter: w, receipt: rc}, r.WithContext(ctx))
	})
}

// chargeWriter writes the charge headers with the answer's status line.
type chargeWriter struct {
	http.ResponseWriter
	receipt *billing.Receipt
	stamped bool
}

func (w *chargeWriter) stamp() {
	if w.stamped {
		return
	}
	w.stamped = true
	s, seen := w.receipt.Spent()
	if !seen {
		return
	}
	h := w.Header()
	h.Set(HeaderCharged, s.Units.Decimal())
	if s.HasBalance {
		h.Set(HeaderBalance, s.Balance.Decimal())
	}
}

func (w *chargeWriter) WriteHeader(code int) {
	if code >= 200 {
		w.stamp()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *chargeWriter) Write(b []byte) (int, error) {
	w.stamp()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (WebSockets,
// flushes).
func (w *chargeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack hands the connection to a WebSocket upgrader.
func (w *chargeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.stamped = true
	return hijack(w.ResponseWriter)
}

// hijack hijacks w's connection, or says it cannot be.
func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("httpapi: connection cannot be hijacked")
	}
	return h.Hijack()
}
