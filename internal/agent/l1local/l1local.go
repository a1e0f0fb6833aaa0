// Package l1local is the agent's local L1 listener: an HTTP server, on
// loopback unless configured otherwise, that answers POST /gateway?bid=<bid>
// exactly as the hub's route does (docs/l1.md), for this host only, and
// carries the control out on the agent itself.
//
// A request is decoded with the host's l1.Codec, its nonce checked against
// an l1.NonceStore, its args validated like the client API's
// (agentproto.ValidateArgs), and then handed to Exec. Every refusal before
// that gets the one answer l1.Invalid(). Each source address has a small
// token bucket; a request over it is answered 429 before any decoding.
package l1local

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

// Path is the listener's one route, as on the hub.
const Path = "/gateway"

// Defaults of Config.
const (
	DefaultRate  = 5  // requests per second per source address
	DefaultBurst = 10 // bucket size
)

// Exec carries out one legacy control, with its args already validated.
// It returns the result as JSON (nil for none), or an error shown to the
// sender (an *agentproto.Error keeps its code): it must hold no secret.
type Exec func(ctx context.Context, control int64, args agentproto.ControlArgs) (json.RawMessage, error)

// Config is what a Server needs. Codec, Nonces and Exec are required.
type Config struct {
	Codec  *l1.Codec     // this host's bid and secret key
	Nonces l1.NonceStore // replay memory; keep it across restarts of the listener
	Exec   Exec
	// Done, when set, is called after each request that was carried out
	// (or failed after decoding), with its control and answer.
	Done func(control int64, r l1.Response)
	// Rate and Burst size each source address's token bucket; zero means
	// DefaultRate and DefaultBurst.
	Rate  float64
	Burst int
	Log   *slog.Logger // nil discards

	now func() time.Time
}

// Server answers L1 requests for one host. Create it with New.
type Server struct {
	cfg    Config
	scope  string // the replay scope: Scope of the host's bid
	bidArg string
	limit  *limiter
	log    *slog.Logger
	srv    *http.Server
	ln     net.Listener
	served chan struct{}
}

// New returns a server for cfg; it panics without Codec, Nonces or Exec.
func New(cfg Config) *Server {
	if cfg.Codec == nil || cfg.Nonces == nil || cfg.Exec == nil {
		panic("l1local: Codec, Nonces and Exec are required")
	}
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	bid := strconv.FormatInt(cfg.Codec.BID(), 10)
	return &Server{cfg: cfg, scope: Scope(cfg.Codec.BID()), bidArg: bid, log: log,
		limit: newLimiter(cfg.Rate, cfg.Burst, cfg.now)}
}

// Scope is the replay scope of bid's messages in the agent's nonce store:
// the listener checks its requests' nonces under it, and the agent records
// there the nonces of the messages the hub carries out for it
// (agentproto.OpL1Nonce), so that either receiver refuses what the other
// carried out.
func Scope(bid int64) string { return "agent:" + strconv.FormatInt(bid, 10) }

// Handler is the server's routes: POST Path, and 404 for anything else.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+Path, s.gateway)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		status := http.StatusNotFound
		if r.URL.Path == Path {
			status = http.StatusMethodNotAllowed
		}
		write(w, status, l1.Fail(http.StatusText(status)))
	})
	return mux
}

// Listen binds addr and serves in the background until Shutdown.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = ln
	s.srv = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("L1 listener stopped", "err", err)
		}
	}()
	return nil
}

// Addr is the bound address; nil before Listen.
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Shutdown stops accepting and waits, until ctx ends, for requests in
// flight; then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.served
	return err
}

// gateway answers one request. Every refusal before the request is
// carried out is l1.Invalid(), whatever was wrong.
func (s *Server) gateway(w http.ResponseWriter, r *http.Request) {
	if !s.limit.allow(sourceOf(r)) {
		w.Header().Set("Retry-After", "1")
		write(w, http.StatusTooManyRequests, l1.Fail("rate limited"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, l1.MaxBody+1))
	if err != nil {
		write(w, http.StatusOK, l1.Invalid())
		return
	}
	now := s.cfg.now()
	req, err := s.cfg.Codec.Decode(body, now)
	if err == nil && r.URL.Query().Get("bid") != s.bidArg {
		err = l1.ErrInvalid
	}
	if err == nil {
		err = l1.CheckReplay(r.Context(), s.cfg.Nonces, s.scope, req, now)
	}
	if err != nil {
		write(w, http.StatusOK, l1.Invalid())
		return
	}
	resp := s.carryOut(r.Context(), req)
	if s.cfg.Done != nil {
		s.cfg.Done(req.Control, resp)
	}
	write(w, http.StatusOK, resp)
}

// carryOut validates the args of a decoded request and runs it.
func (s *Server) carryOut(ctx context.Context, req l1.Request) l1.Response {
	if err := agentproto.ValidateArgs(req.Control, req.Args); err != nil {
		return l1.Fail(message(err))
	}
	res, err := s.cfg.Exec(ctx, req.Control, req.Args)
	if err != nil {
		return l1.Fail(message(err))
	}
	s.log.Info("L1 control carried out", "control", req.Control)
	return l1.OK(res)
}

// message is what the sender is told about err: "<code>: <message>" with
// the agent's error code (agentproto), "failed" for a plain error, like
// the hub's "<code>: <message>".
func message(err error) string {
	if pe, ok := errors.AsType[*agentproto.Error](err); ok {
		return pe.Code + ": " + pe.Message
	}
	return agentproto.CodeFailed + ": " + err.Error()
}

func write(w http.ResponseWriter, status int, r l1.Response) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(r)
}

// sourceOf is the request's source address without its port.
func sourceOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
