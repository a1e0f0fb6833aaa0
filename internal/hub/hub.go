package hub

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/agentdist"
	"hostgate/internal/agentgw"
	"hostgate/internal/apikeys"
	"hostgate/internal/billing"
	"hostgate/internal/console"
	"hostgate/internal/coord"
	"hostgate/internal/coord/inproc"
	coordredis "hostgate/internal/coord/redis"
	"hostgate/internal/dashboard"
	"hostgate/internal/deliveries"
	"hostgate/internal/dispatch"
	"hostgate/internal/hosts"
	"hostgate/internal/httpapi"
	"hostgate/internal/installer"
	"hostgate/internal/jobs"
	"hostgate/internal/l1config"
	"hostgate/internal/l1gate"
	"hostgate/internal/lockout"
	"hostgate/internal/metrics"
	"hostgate/internal/operations"
	"hostgate/internal/passwords"
	"hostgate/internal/periodic"
	"hostgate/internal/recent"
	"hostgate/internal/schedules"
	"hostgate/internal/store"
	"hostgate/internal/terminals"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

// Version is the hub's version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Hub is an assembled hub, ready to serve.
type Hub struct {
	cfg      Config
	log      *slog.Logger
	store    store.Store
	coord    coord.Coord
	Accounts *accounts.Service
	Admins   *admin.Service
	Hosts    *hosts.Service
	APIKeys  *apikeys.Service
	Dispatch *dispatch.Dispatcher
	Billing  *billing.Service
	Versions *versions.Service
	Upgrades *upgrades.Service
	L1Config *l1config.Service
	// Dashboard is the admin dashboard's figures; Serve runs its fleet
	// sampler.
	Dashboard *dashboard.Service
	// Deliveries is the webhook delivery worker; Serve runs it.
	Deliveries *deliveries.Worker
	// WebhookSecrets is the users' webhook signing secrets; the jobs'
	// notifier reads the current one with WebhookSecret.
	WebhookSecrets *deliveries.Secrets
	// Schedules is the users' schedules; Serve runs its firing loop.
	// Until SetJobs connects the jobs, saving a schedule answers 503
	// unavailable and the loop starts nothing.
	Schedules *schedules.Service
	// Terminals holds this instance's terminals and reaches other
	// instances' ones; Serve runs its routing.
	Terminals *terminals.Service
	// Jobs runs operations across the fleet; Serve drives them.
	Jobs *jobs.Service
	// Metrics is the Prometheus registry; Serve exposes it on
	// HOSTGATE_METRICS_ADDR.
	Metrics *metrics.Metrics
	live    *hosts.Liveness
	// forgets carries the invalidation of facts kept by package recent
	// (API-key checks, command targets, session and admin states) between
	// instances.
	forgets *recent.Bus
	// lockouts are the login guards (users, admins), pruned periodically.
	lockouts []*lockout.Guard
	admit    *agentgw.Admission
	gw       *agentgw.Gateway
	// l1gate answers POST /gateway; Serve prunes its expired nonces.
	l1gate *l1gate.Service
	// dist is the agent binaries served at /download/.
	dist   *agentdist.Dist
	server *httpapi.Server
	// out hears, in words, where the hub serves (Run's terminal).
	out io.Writer
	// bg bounds the work done on behalf of agent connections; Close cancels it.
	bg     context.Context
	stopBG context.CancelFunc
}

// Open opens the store (applying migrations) and coordination and builds
// every service. It creates the bootstrap owner admin when configured. A
// failure that a setting explains is a *SettingError naming it.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (_ *Hub, err error) {
	dist, err := openDist(cfg)
	if err != nil {
		return nil, err
	}
	exeURL, exeSHA256, exe := agentExe(cfg, dist)
	h := &Hub{cfg: cfg, log: log, dist: dist}
	h.bg, h.stopBG = context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		if err != nil {
			// Close what was opened; the cause is what the caller hears.
			if cerr := h.Close(); cerr != nil {
				log.Warn("closing after a failed start", "err", cerr)
			}
		}
	}()
	// Coordination first: a hub that cannot reach Redis stops before it
	// creates or migrates anything in the database.
	h.Metrics = metrics.New()
	co, err := openCoord(ctx, cfg, h.Metrics)
	if err != nil {
		return nil, coordError(err)
	}
	h.coord = co
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir, log)
	if err != nil {
		return nil, storeError(cfg, err)
	}
	h.store = st
	keys, err := openKeys(ctx, cfg, h.store.Keys)
	if err != nil {
		return nil, err
	}
	hasher := passwords.NewHasher(passwords.Default)
	h.forgets = recent.NewBus(h.coord, log)
	h.lockouts = []*lockout.Guard{lockout.New(h.store.Lockout, lockout.Default, "user"), lockout.New(h.store.Lockout, lockout.Default, "admin")}
	h.APIKeys = apikeys.NewService(h.store.APIKeys, h.forgets)
	h.Accounts = accounts.NewService(h.store.Accounts, accounts.Deps{Bus: h.forgets, Keys: keys, Hasher: hasher,
		Lockout: h.lockouts[0], APIKeys: h.APIKeys}, accounts.DefaultPolicy, log)
	h.Admins = admin.NewService(h.store.Admins, h.coord, h.forgets, keys, hasher, h.lockouts[1])
	if cfg.AdminUsername != "" {
		created, err := h.Admins.EnsureOwner(ctx, cfg.AdminUsername, cfg.AdminPassword)
		if err != nil {
			return nil, adminError(err)
		}
		if created {
			log.Info("created owner admin", "username", cfg.AdminUsername)
		}
	}
	// The dispatcher and the L1 configuration service come before the host
	// service, which takes them: it drops agents through the one and
	// rotates secrets (with their webhook) through the other.
	h.Dispatch = dispatch.New(uuid.NewString(), h.coord, log)
	h.Deliveries = &deliveries.Worker{Store: h.store.Deliveries, Sealer: keys, Instance: h.Dispatch.Instance(),
		AllowPrivate: cfg.WebhookAllowPrivate, Scale: cfg.WebhookScheduleScale, Log: log,
		Interval: scanInterval(cfg.WebhookScheduleScale)}
	h.WebhookSecrets = deliveries.NewSecrets(h.store.Deliveries, keys)
	h.Schedules = schedules.NewService(h.store.Schedules)
	h.L1Config = l1config.NewService(h.store.L1Config, keys, h.Dispatch, h.Deliveries, cfg.WebhookAllowPrivate, log)
	h.Hosts = hosts.NewService(h.store.Hosts, h.coord, keys, hosts.Config{
		PublicURL: cfg.PublicURL, InstallTokenTTL: cfg.InstallTokenTTL, AgentTokenTTL: AgentTokenTTL,
		ExeURL: exeURL, ExeSHA256: exeSHA256,
	}, h.forgets, h.Dispatch, h.L1Config, log)
	h.live = hosts.NewLiveness(h.store.Hosts)
	h.Billing = billing.NewService(h.store.Billing)
	if err := h.initBillingMode(ctx); err != nil {
		return nil, err
	}
	h.Dashboard = dashboard.NewService(h.store.Dashboard, h.Billing, h.Dispatch, h.store.Deliveries)
	h.Versions = versions.NewService(h.store.Versions)
	h.admit = agentgw.NewAdmission(cfg.HandshakeConcurrency, cfg.HandshakeRate, int(cfg.HandshakeRate))
	h.Upgrades = upgrades.NewService(h.store.Upgrades, h.Hosts, h.Versions, h.Dispatch, log)
	h.gw = agentgw.New(h.bg, h.Hosts, h.Upgrades, h.L1Config, h.live, h.Dispatch, h.admit, log)
	ops := operations.NewService(h.Hosts, h.Dispatch, h.Billing)
	h.Jobs = jobs.NewService(jobs.Config{Store: h.store.Jobs, Targets: jobTargets{hosts: h.Hosts}, Dispatch: h.Dispatch,
		Pricer: h.Billing, Notifier: jobNotifier{secrets: h.WebhookSecrets}, Instance: h.Dispatch.Instance(),
		MaxHosts: cfg.JobMaxHosts, OutputTTL: cfg.JobOutputTTL, ExpiryScale: cfg.JobExpiryScale, Drain: cfg.ShutdownGrace, Log: log})
	h.gw.SetJobs(h.Jobs)
	h.Schedules.SetJobs(scheduleValidator{h.Jobs}, h.Jobs)
	h.Terminals = terminals.New(terminals.Config{
		Instance: h.Dispatch.Instance(), Coord: h.coord, Log: log, Hosts: h.Hosts, Audit: h.store.Audit, TicketTTL: cfg.TerminalTicketTTL,
		Logins: logins{accounts: h.Accounts, admins: h.Admins},
		Local:  func(hostID string) bool { return h.Dispatch.Local(hostID) != nil },
		Open: func(ctx context.Context, hostID string, cols, rows int) (terminals.Terminal, error) {
			p, err := h.gw.OpenPTY(ctx, hostID, cols, rows)
			switch {
			case errors.Is(err, agentgw.ErrNotLocal):
				return nil, terminals.ErrNotLocal
			case errors.Is(err, agentgw.ErrNoStreams):
				return nil, terminals.ErrNoStreams
			case err != nil:
				return nil, err
			}
			return p, nil
		},
		Charge: func(ctx context.Context, p terminals.Principal, hostID string) error {
			return ops.Charge(ctx, p.ID, p.APIKeyID, hostID, billing.RuleShellSession)
		},
	})
	h.l1gate = l1gate.New(h.store.L1Gate, keys, ops, h.Dispatch, h.coord, cfg.L1RatePerMin, log)
	h.server = httpapi.New(httpapi.Config{
		Accounts: h.Accounts, Admins: adminConsole{Service: h.Admins, audit: h.store.Audit, dashboard: h.Dashboard},
		APIKeys: h.APIKeys, Hosts: h.Hosts, Billing: h.Billing, Operations: operationsAndJobs{Service: ops, jobs: h.Jobs}, Terminals: h.Terminals,
		Agents: agents{hosts: h.Hosts, charge: ops, dispatch: h.Dispatch, live: h.live, gw: h.gw, upgrades: h.Upgrades, versions: h.Versions,
			l1config: h.L1Config, l1charged: l1config.NewCharged(h.L1Config, h.Hosts, ops), l1gate: h.l1gate},
		Deliveries: webhooksAPI{Service: deliveries.NewService(h.store.Deliveries, func(ctx context.Context, userID, hostID string) (string, error) {
			host, err := h.Hosts.Get(ctx, userID, hostID)
			return host.ID, err
		}, h.Deliveries), UserService: deliveries.NewUserService(h.store.Deliveries, h.Deliveries), Secrets: h.WebhookSecrets,
			scheduleService: h.Schedules},
		Installs: installs{downloads: &installer.Downloads{Hosts: h.Hosts, Exe: exe}, dist: dist, oneLine: &installer.OneLine{Hosts: h.Hosts, Downloads: dist, Log: log,
			Limit: coord.Limiter{Coord: h.coord, Prefix: "install:rate:", Limit: int64(cfg.InstallRatePerMin), Window: time.Minute}}},
		Options: httpapi.Options{
			Payments:       httpapi.Payments{Dummy: cfg.PaymentDummy, EPay: cfg.EPay, PublicURL: cfg.PublicURL.String()},
			Console:        console.Files(),
			Requests:       h.Metrics,
			AllowedOrigins: cfg.Origins(),
			RequireTLS:     cfg.PublicURL.Scheme == "https",
			Ready:          h.readyChecks(),
			ReadyDownloads: downloadsReady(dist),
			TrustedProxies: cfg.TrustedProxies,
			Version:        Version,
			Limits:         rateLimits(cfg.RateLimits, h.coord),
			BodyTimeout:    cfg.BodyTimeout,
		},
		Log: log,
	})
	h.instrument()
	return h, nil
}

// rateLimits are the configured abuse limits, counted in coordination.
func rateLimits(l httpapi.RateLimits, c coord.Coord) httpapi.RateLimits {
	l.Counter = c
	return l
}

func openCoord(ctx context.Context, cfg Config, m *metrics.Metrics) (coord.Coord, error) {
	if cfg.RedisURL == "" {
		return inproc.New(), nil
	}
	c, err := coordredis.Open(ctx, cfg.RedisURL, coordredis.WithPrefix(cfg.RedisPrefix), coordredis.WithRoundTrip(m.RedisRoundTrip))
	if err != nil {
		return nil, err // not a nil *Coord in a non-nil interface
	}
	return c, nil
}

// initBillingMode applies HOSTGATE_BILLING_MODE to a new installation and
// says, in the log, what became of it.
func (h *Hub) initBillingMode(ctx context.Context) error {
	if h.cfg.BillingMode == "" {
		return nil
	}
	mode, set, err := h.Billing.InitMode(ctx, h.cfg.BillingMode)
	switch {
	case err != nil:
		return fmt.Errorf("billing mode: %w", err)
	case set:
		h.log.Info("billing mode set from HOSTGATE_BILLING_MODE on this new installation", "mode", mode)
	default:
		h.log.Info("HOSTGATE_BILLING_MODE ignored: this installation already has a billing mode; an owner or finance admin changes it with step-up (POST /v1/admin/billing/mode)",
			"mode", mode, "HOSTGATE_BILLING_MODE", h.cfg.BillingMode)
	}
	return nil
}

// instrument connects the services to the metrics.
func (h *Hub) instrument() {
	m := h.Metrics
	h.Dispatch.Observe(m)
	h.Billing.Observe(m)
	h.Deliveries.Observer = m
	m.DBPools(h.store.PoolStats)
	m.Gauge("agents_connected", "Agents connected to this instance.", func() float64 { return float64(h.Dispatch.LocalCount()) })
	m.Gauge("terminals_open", "Terminals held by this instance.", func() float64 { return float64(h.Terminals.Len()) })
	m.CountGauge("agents_online", "Agents connected to any instance (coordination's presence).", h.Dispatch.CountOnline)
	m.CountGauge("webhook_queue_depth", "Webhook deliveries pending or retrying, cluster-wide.", h.store.Deliveries.CountUnfinishedDeliveries)
}

func (h *Hub) readyChecks() []httpapi.ReadyCheck {
	pg := httpapi.ReadyCheck{Field: "pg", Ping: h.store.Ping}
	if h.cfg.DatabaseURL == "" {
		pg.Embedded = h.store.Name()
	}
	rd := httpapi.ReadyCheck{Field: "redis", Ping: h.coord.Ping}
	if h.cfg.RedisURL == "" {
		rd.Embedded = h.coord.Name()
	}
	return []httpapi.ReadyCheck{pg, rd}
}

// Handler is the hub's HTTP handler.
func (h *Hub) Handler() http.Handler { return h.server }

// Server exposes the HTTP server for route-level tests.
func (h *Hub) Server() *httpapi.Server { return h.server }

// Admission exposes the agent handshake limiter, for its counters.
func (h *Hub) Admission() *agentgw.Admission { return h.admit }

// Gateway exposes the agent gateway: terminals on the agents this
// instance holds (OpenPTY).
func (h *Hub) Gateway() *agentgw.Gateway { return h.gw }

// Store exposes the store for tests and the admin CLI.
func (h *Hub) Store() store.Store { return h.store }

// scanInterval is the delivery worker's scan period: the spec's 5 s,
// shortened by the test-only schedule scale (to at least 10 ms) so that
// scaled retries are not held back by the scan.
func scanInterval(scale float64) time.Duration {
	if scale <= 0 || scale >= 1 {
		return deliveries.DefaultInterval
	}
	return max(time.Duration(float64(deliveries.DefaultInterval)*scale), 10*time.Millisecond)
}

// AgentTokenTTL is the lifetime of an agent token; agents renew it by
// challenge-response after two thirds of it.
const AgentTokenTTL = 15 * time.Minute

// background starts the loops every instance runs: command routing and
// presence, liveness batching, API-key last-use batching, recharge
// expiry, the upgrade sweep, L1 nonce and login-lockout pruning, the
// webhook delivery worker, the dashboard's fleet sampler and the
// schedules' firing loop. It returns once routing is subscribed, and a
// function that waits for all to stop.
//
// The loops that take new work (jobs' claims, schedules' firing) stop when
// intake ends; the rest (routing, agents, flushes) run until ctx ends.
// drained waits for the first kind: the jobs' runs in flight have then
// been answered or given up (jobs.Config.Drain).
func (h *Hub) background(ctx, intake context.Context) (drained, wait func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	intake, cancelIntake := context.WithCancel(intake)
	var wg, intakeWG sync.WaitGroup
	ready := make(chan struct{})
	errc := make(chan error, 3)
	logErr := func(what string) func(error) {
		return func(err error) { h.log.WarnContext(ctx, what+" failed", "err", err) }
	}
	wg.Go(func() {
		if err := h.Dispatch.Run(ctx, ready); err != nil {
			errc <- fmt.Errorf("dispatcher: %w", err)
		}
	})
	wg.Go(func() { h.live.Run(ctx, hosts.FlushInterval, logErr("liveness flush")) })
	wg.Go(func() { h.Hosts.RunMetrics(ctx, hosts.MetricsFlushInterval, logErr("metrics flush")) })
	wg.Go(func() { h.Hosts.RunEvents(ctx, hosts.EventFlushInterval, logErr("host events flush")) })
	wg.Go(func() { h.APIKeys.Run(ctx, 30*time.Second, logErr("api key flush")) })
	wg.Go(func() { h.Billing.RunExpiry(ctx, time.Minute, logErr("recharge expiry")) })
	wg.Go(func() { periodic.Run(ctx, time.Minute, h.Upgrades.Sweep, logErr("upgrade sweep")) })
	wg.Go(func() { periodic.Run(ctx, time.Minute, h.l1gate.PruneNonces, logErr("l1 nonce prune")) })
	wg.Go(func() { periodic.Run(ctx, 5*time.Minute, h.pruneLockouts, logErr("login lockout prune")) })
	wg.Go(func() { h.Deliveries.Run(ctx) })
	intakeWG.Go(func() { _ = h.Jobs.Run(intake) })
	wg.Go(func() { h.Dashboard.Run(ctx, logErr("fleet sample")) })
	intakeWG.Go(func() { h.Schedules.Run(intake, h.cfg.ScheduleInterval, logErr("schedule firing")) })
	termReady := make(chan struct{})
	wg.Go(func() {
		if err := h.Terminals.Run(ctx, termReady); err != nil {
			errc <- fmt.Errorf("terminals: %w", err)
		}
	})
	forgetsReady := make(chan struct{})
	wg.Go(func() {
		if err := h.forgets.Run(ctx, forgetsReady); err != nil {
			errc <- fmt.Errorf("cache invalidation: %w", err)
		}
	})
	for _, r := range []chan struct{}{ready, termReady, forgetsReady} {
		select {
		case <-r:
		case err := <-errc:
			cancelIntake()
			intakeWG.Wait()
			cancel()
			wg.Wait()
			return nil, nil, fmt.Errorf("start routing: %w", err)
		}
	}
	drained = func() { intakeWG.Wait(); cancelIntake() }
	return drained, func() { drained(); cancel(); wg.Wait() }, nil
}

// pruneLockouts deletes login counts and locks that have run out.
func (h *Hub) pruneLockouts(ctx context.Context) error {
	var errs []error
	for _, g := range h.lockouts {
		errs = append(errs, g.Prune(ctx))
	}
	return errors.Join(errs...)
}

// Serve answers HTTP on ln until ctx ends, then lets requests in flight
// finish for the shutdown grace period.
//
// The stop is ordered: new work ends at once (new connections, job claims,
// schedules), requests and job runs in flight get the grace, and only then
// are the agents let go and routing stopped, so that what was in flight
// can still reach its agent, here or on another instance.
func (h *Hub) Serve(ctx context.Context, ln net.Listener) error {
	bgCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	drained, wait, err := h.background(bgCtx, ctx)
	if err != nil {
		stop()
		return err
	}
	defer func() { drained(); stop(); wait() }()
	h.publishFirstVersion(ctx)
	srv := &http.Server{
		Handler: h.server,
		// A client that sends nothing, or its headers a byte at a time
		// (the agent socket's upgrade request included), is cut after
		// HOSTGATE_HTTP_HEADER_TIMEOUT; the body has its own deadline
		// (httpapi's bodyDeadline). No ReadTimeout or WriteTimeout: they
		// would cut the SSE streams and WebSockets.
		ReadHeaderTimeout: cmp.Or(h.cfg.HeaderTimeout, 10*time.Second),
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if h.cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(h.cfg.TLSCert, h.cfg.TLSKey)
		if err != nil {
			return &SettingError{Setting: "HOSTGATE_TLS_CERT", Err: err,
				Problem: fmt.Sprintf("cannot load the key pair: %v", err), Fix: "check HOSTGATE_TLS_CERT and HOSTGATE_TLS_KEY"}
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	if h.cfg.MetricsAddr != "" {
		stopMetrics, err := h.serveMetrics(ctx)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	h.announce(ctx, h.out, ln)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Requests in flight get the grace period; new connections are refused.
	h.log.Info("hostgate stopping", "grace", h.cfg.ShutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), h.cfg.ShutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}

// serveMetrics answers GET /metrics on the metrics address until the
// returned function is called.
func (h *Hub) serveMetrics(ctx context.Context) (stop func(), err error) {
	ln, err := net.Listen("tcp", h.cfg.MetricsAddr)
	if err != nil {
		return nil, &SettingError{Setting: "HOSTGATE_METRICS_ADDR", Err: err,
			Problem: fmt.Sprintf("cannot listen on %s: %v", h.cfg.MetricsAddr, rootCause(err)), Fix: "choose another address or unset it"}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h.Metrics.Handler())
	// Profiles, on the same private listener: what docs/performance.md
	// measures with, and what an operator reaches for first.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			h.log.Error("metrics listener failed", "err", err)
		}
	}()
	h.log.Info("metrics listening", "addr", ln.Addr().String())
	return func() { _ = srv.Close(); <-done }, nil
}

// Close releases the store and coordination.
func (h *Hub) Close() error {
	if h.stopBG != nil {
		h.stopBG()
	}
	var errs []error
	for _, c := range []io.Closer{h.coord, h.store} {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Run listens on the configured address, opens the hub and serves until
// ctx ends. The address comes first, so that a taken port stops the start
// before anything is written to the store. Once it serves, Run tells out
// (a terminal; nil for none) where, in words.
func Run(ctx context.Context, cfg Config, log *slog.Logger, out io.Writer) error {
	coordredis.SetLogger(log)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return listenError(cfg.Addr, err)
	}
	h, err := Open(ctx, cfg, log)
	if err != nil {
		ln.Close()
		return err
	}
	log.Info("hostgate listening", "addr", ln.Addr().String(), "public_url", cfg.PublicURL.String(),
		"store", h.store.Name(), "coordination", h.coord.Name(), "agent_downloads", downloadsReady(h.dist))
	h.out = out
	err = h.Serve(ctx, ln)
	if cerr := h.Close(); cerr != nil {
		log.Warn("closing the store and coordination", "err", cerr)
	}
	if err != nil {
		log.Error("hostgate stopped", "err", err)
		return err
	}
	log.Info("hostgate stopped")
	return nil
}
