package httpapi

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"hostgate/internal/apperr"
)

// maxBody caps every request body; huma operations also enforce it.
const maxBody = 1 << 20

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyClientIP
	keyUser
	keyAdmin
	keySecure
	keyClient
	keyRoute // *string: the matched mux pattern, set by the innermost handler
)

func withValue(ctx context.Context, k ctxKey, v any) context.Context {
	return context.WithValue(ctx, k, v)
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(keyRequestID).(string)
	return id
}

func clientIP(ctx context.Context) string {
	ip, _ := ctx.Value(keyClientIP).(string)
	return ip
}

// secure reports whether the client reached us over TLS, directly or
// through a trusted proxy; cookies are marked Secure then.
func secure(ctx context.Context) bool {
	s, _ := ctx.Value(keySecure).(bool)
	return s
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (WebSockets).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// RequestObserver learns each request's route pattern ("GET
// /v1/api/hosts/{id}", "unmatched" when refused before routing), status
// and duration; the hub's metrics implement it.
type RequestObserver interface {
	RequestDone(route string, status int, took time.Duration)
}

// noteRoute records the pattern the mux matched for the outer middleware.
func noteRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if p, ok := r.Context().Value(keyRoute).(*string); ok {
			*p = r.Pattern
		}
	})
}

// outer is the chain every request passes: request id, client address,
// panic recovery, access log, the body cap and the body's read deadline.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := incomingRequestID(r.Header.Get("X-Request-Id"))
		ip, tls := s.clientAddr(r)
		ctx := context.WithValue(r.Context(), keyRequestID, id)
		ctx = context.WithValue(ctx, keyClientIP, ip)
		ctx = context.WithValue(ctx, keySecure, tls)
		route := new(string)
		ctx = context.WithValue(ctx, keyRoute, route)
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id)
		setSecurityHeaders(w.Header())
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(ctx, "panic", "request_id", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeProblem(sw, problemFor(s.log, r, fmt.Errorf("panic: %v", v)))
				}
			}
			took := time.Since(start)
			// The query string is never logged: it can carry a terminal ticket.
			s.log.InfoContext(ctx, "request", "request_id", id, "method", r.Method, "path", logPath(r.URL.Path),
				"status", sw.status, "duration_ms", took.Milliseconds(), "client_ip", ip)
			if s.cfg.Options.Requests != nil {
				s.cfg.Options.Requests.RequestDone(cmp.Or(*route, "unmatched"), sw.status, took)
			}
		}()
		if !isClean(r.URL.Path) {
			writeProblem(sw, &Problem{Status: 404, Code: apperr.CodeNotFound,
				Message: "no such route: " + r.URL.Path + " (paths with '.', '..' or empty segments are not cleaned up)"})
			return
		}
		if r.ContentLength > maxBody {
			writeProblem(sw, &Problem{Status: 413, Code: "body_too_large", Message: fmt.Sprintf("request body is larger than %d bytes", maxBody)})
			return
		}
		r = s.bodyDeadline(sw, r)
		r.Body = http.MaxBytesReader(sw, r.Body, maxBody)
		next.ServeHTTP(sw, r)
	})
}

// isClean reports whether p is already in the form ServeMux would clean it
// to (path.Clean, keeping a trailing slash). The mux answers any other
// path with a redirect to the cleaned one, which would send a caller
// somewhere it did not ask to go, past checks made on the path as written
// (the authentication prefix, for one); such a path gets our 404 instead.
// p is the decoded path, so %2e%2e counts as "..".
func isClean(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// securityHeaders go on every answer the hub writes, success or error,
// before any handler runs (a handler may still replace one). API answers
// are JSON, a script or an executable, never a page; the two kinds of page
// (the console, console.go, and the dummy checkout, dummy_checkout.go)
// replace the CSP, and the console's assets the caching, with their own.
//   - Cache-Control: no-store, because so many answers carry a token, a
//     secret or install credentials (sign-in, refresh, step-up, API keys,
//     host credentials, installers, tickets, agent tokens) that listing
//     them invites a miss; nothing the hub says is worth caching anyway.
//   - nosniff, and a CSP that loads nothing, so no answer is ever run as
//     a page; frame-ancestors 'none' and X-Frame-Options (older browsers)
//     keep answers out of frames.
//   - no-referrer: no hub URL (some carry ids) leaves in a Referer.
var securityHeaders = [][2]string{
	{"Cache-Control", "no-store"},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "no-referrer"},
	{"Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"},
}

func setSecurityHeaders(h http.Header) {
	for _, kv := range securityHeaders {
		h.Set(kv[0], kv[1])
	}
}

// incomingRequestID keeps a caller's id when it is short and plain, so a
// proxy's id threads through our logs; otherwise it makes one.
func incomingRequestID(h string) string {
	if n := len(h); n >= 8 && n <= 64 && strings.Trim(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return h
	}
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// clientAddr returns the client's address and whether it used TLS.
// X-Forwarded-For and X-Forwarded-Proto count only when the direct peer is
// a configured trusted proxy; the client is then the rightmost address in
// X-Forwarded-For that is not itself a trusted proxy.
func (s *Server) clientAddr(r *http.Request) (string, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !s.trusted(peer) {
		return host, r.TLS != nil
	}
	tls := r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !s.trusted(a) {
			return a.Unmap().String(), tls
		}
	}
	return peer.Unmap().String(), tls
}

func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.Options.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// notFound answers for paths and methods no route serves, in our envelope:
// 405 with Allow when the path exists under another method, else 404.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" && pattern != consolePattern {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeProblem(w, &Problem{Status: 405, Code: "method_not_allowed", Message: r.Method + " is not allowed here; allowed: " + strings.Join(allow, ", ")})
		return
	}
	writeProblem(w, &Problem{Status: 404, Code: apperr.CodeNotFound, Message: "no such route: " + r.URL.Path})
}

// Hijack hands the connection to a WebSocket upgrader; the access log then
// records 101.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("httpapi: connection cannot be hijacked")
	}
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}
