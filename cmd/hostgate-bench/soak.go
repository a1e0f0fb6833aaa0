package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hostgate/internal/soak"
)

// The soak (docs/reliability.md, "The soak"): one hub under a steady mix of
// every kind of traffic for a long time, its resources sampled every
// soakEvery, and a verdict of growth or none (internal/soak).
//
//	go run ./cmd/hostgate-bench soak [-d 30m] [-out build/soak] [-pg]
const (
	soakEvery       = 10 * time.Second
	soakIdleAgents  = 1000 // held for the whole run; the jobs' targets
	soakChurnAgents = 100  // per churning fleet; two of them, half a cycle apart
	soakChurnUp     = 40 * time.Second
	soakHookHosts   = 20
	soakVersionA    = "9.8.0"
	soakVersionB    = "9.8.1"
)

// soakCounts counts each kind of traffic's successes and failures.
type soakCounts struct {
	mu  sync.Mutex
	ok  map[string]int64
	bad map[string]int64
	// first failure of each kind, for the report
	first map[string]string
}

func (c *soakCounts) note(kind string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.ok[kind]++
		return
	}
	c.bad[kind]++
	if _, ok := c.first[kind]; !ok {
		c.first[kind] = err.Error()
	}
}

func soakMain(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("hostgate-bench soak", flag.ContinueOnError)
	dur := fs.Duration("d", 30*time.Minute, "length of the loaded run (at least 3m)")
	warmup := fs.Duration("warmup", 0, "start of the steady part (default: a sixth of -d)")
	outDir := fs.String("out", "build/soak", "directory for soak.json, soak.png and soak.md")
	pg := fs.Bool("pg", pgReachable(), "PostgreSQL + Redis (127.0.0.1:5432, 127.0.0.1:6379) instead of the embedded SQLite")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dur < 3*time.Minute {
		return errors.New("-d must be at least 3m")
	}
	if *warmup == 0 {
		*warmup = *dur / 6
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	b := &bench{floors: map[string]float64{}, out: out}
	var err error
	if b.work, err = os.MkdirTemp("", "hostgate-soak-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.work)
	logFile, err := os.Create(filepath.Join(*outDir, "soak.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	b.log, b.logName = logFile, logFile.Name()
	b.bins = filepath.Join(b.work, "bin")
	fmt.Fprintln(os.Stderr, "building binaries…")
	if err := soakBuild(ctx, b.bins); err != nil {
		return err
	}
	be, err := b.newBackend(*pg)
	if err != nil {
		return err
	}
	defer be.close()
	be.env["HOSTGATE_PAYMENT_DUMMY"] = "1"
	s := &soakRun{b: b, be: be, dur: *dur, warmup: *warmup, outDir: *outDir,
		counts: &soakCounts{ok: map[string]int64{}, bad: map[string]int64{}, first: map[string]string{}}}
	return s.run(ctx)
}

// soakBuild builds the hub, the fleet simulator and the agent twice, as
// the two versions the upgrade loop swaps between.
func soakBuild(ctx context.Context, bins string) error {
	steps := [][]string{{"build", "-o", bins + "/", "./cmd/hostgate", "./cmd/hostgate-fleet"}}
	for _, v := range []string{soakVersionA, soakVersionB} {
		steps = append(steps, []string{"build", "-ldflags", "-X hostgate/internal/agent.Version=" + v,
			"-o", filepath.Join(bins, "agent-"+v, "hostgate-agent"), "./cmd/hostgate-agent"})
	}
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go %s: %w (run from the repository root)", strings.Join(args, " "), err)
		}
	}
	return nil
}

type soakRun struct {
	b              *bench
	be             *backend
	dur, warmup    time.Duration
	outDir         string
	h              *hubProc
	acct           account
	tokens         sync.Mutex
	access, admin  string // the user's and the admin's access tokens, renewed by renewTokens
	counts         *soakCounts
	samples        []soak.Sample
	pgdb           *sql.DB
	worker, upHost string // hosts of the two real agents
	workerAgent    *proc
	upAgent        *proc
	upExe          string
	idleIDs        []string
	rc             *receiver
	hooks          []hookHost
	hookIDs        []string // deliveries queued
	hookMu         sync.Mutex
	hookTarget     string       // the receiver's URL
	motd           string       // the small file the command loop reads
	paidTokens     atomic.Int64 // tokens credited by the payment loop
}

func (s *soakRun) run(ctx context.Context) error {
	b := s.b
	var err error
	if s.h, err = b.startHub(ctx, s.be); err != nil {
		return err
	}
	defer func() { s.h.stop() }()
	if s.acct, err = b.newAccount(s.h); err != nil {
		return err
	}
	if err := s.renewTokens(); err != nil {
		return err
	}
	if s.be.scaled {
		if s.pgdb, err = sql.Open("pgx", pgAdminURL); err != nil {
			return err
		}
		defer s.pgdb.Close()
	}
	fmt.Fprintln(os.Stderr, "setting up: real agents, fleets, webhook receiver…")
	if err := s.setup(ctx); err != nil {
		return err
	}
	defer s.workerAgent.stop()
	defer s.upAgent.stop()

	runCtx, cancel := context.WithTimeout(ctx, s.dur)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	fleetDone := s.churn(runCtx, &wg)
	idle, err := b.startFleet(ctx, s.creds("idle"), s.dur+10*time.Minute, "--ramp", "500")
	if err != nil {
		return err
	}
	defer idle.stop()
	if _, err := waitFleets(ctx, 5*time.Minute, idle); err != nil {
		return err
	}
	go every(runCtx, 5*time.Minute, func() {
		if err := s.renewTokens(); err != nil {
			s.counts.note("sign-in", err)
		}
	})
	for _, loop := range []func(context.Context){s.commands, s.commands, s.jobs, s.terminals, s.webhooks, s.payments, s.upgrades, s.lists} {
		wg.Go(func() { loop(runCtx) })
	}
	fmt.Fprintf(os.Stderr, "soak: %v of mixed load, sampled every %v, warm-up %v; output in %s\n", s.dur, soakEvery, s.warmup, s.outDir)
	tick := time.NewTicker(soakEvery)
	s.sample(ctx, start)
	for runCtx.Err() == nil {
		select {
		case <-runCtx.Done():
		case <-tick.C:
			s.sample(ctx, start)
			if len(s.samples)%6 == 0 {
				s.progress()
			}
		}
	}
	tick.Stop()
	wg.Wait()
	<-fleetDone
	if ctx.Err() != nil {
		return ctx.Err()
	}
	checks := s.check(ctx)
	return s.report(checks)
}

// renewTokens signs the user and the admin in again: access tokens live
// 15 minutes (docs/accounts.md), the run longer.
func (s *soakRun) renewTokens() error {
	var user struct {
		AccessToken string `json:"access_token"`
	}
	if err := call("POST", s.h.url+"/v1/public/auth/login", "", map[string]string{"email": s.acct.email, "password": accountPassword}, &user); err != nil {
		return err
	}
	admin, err := adminLogin(s.h)
	if err != nil {
		return err
	}
	s.tokens.Lock()
	s.access, s.admin = user.AccessToken, admin
	s.tokens.Unlock()
	return nil
}

// userToken and adminToken are the access tokens to use now.
func (s *soakRun) userToken() string {
	s.tokens.Lock()
	defer s.tokens.Unlock()
	return s.access
}

func (s *soakRun) adminToken() string {
	s.tokens.Lock()
	defer s.tokens.Unlock()
	return s.admin
}

// creds is the credentials file of one of the run's fleets.
func (s *soakRun) creds(name string) string {
	return filepath.Join(s.b.work, "soak-"+name+".jsonl")
}

func (s *soakRun) setup(ctx context.Context) error {
	b, h := s.b, s.h
	// The fleets: the idle one, and two that come and go.
	for name, n := range map[string]int{"idle": soakIdleAgents, "churn-a": soakChurnAgents, "churn-b": soakChurnAgents} {
		if err := b.provision(ctx, h.env, n, s.acct.userID, s.creds(name)); err != nil {
			return err
		}
	}
	var err error
	if s.idleIDs, err = credHostIDs(s.creds("idle")); err != nil {
		return err
	}
	// The real agents: one serves commands and terminals, the other is
	// upgraded back and forth between two builds, from its own copy of
	// the executable.
	if s.worker, s.workerAgent, err = b.agentFor(ctx, h, s.acct.key, "soak-worker", filepath.Join(b.bins, "agent-"+soakVersionA, "hostgate-agent")); err != nil {
		return err
	}
	s.upExe = filepath.Join(b.work, "upgraded", "hostgate-agent")
	if err := os.MkdirAll(filepath.Dir(s.upExe), 0o755); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(b.bins, "agent-"+soakVersionA, "hostgate-agent"), s.upExe); err != nil {
		return err
	}
	if s.upHost, s.upAgent, err = b.agentFor(ctx, h, s.acct.key, "soak-upgraded", s.upExe); err != nil {
		return err
	}
	// The two agent builds, served on loopback and published.
	files := httptest.NewServer(http.FileServer(http.Dir(b.bins)))
	go func() { <-ctx.Done(); files.Close() }()
	for _, v := range []string{soakVersionA, soakVersionB} {
		exe := filepath.Join(b.bins, "agent-"+v, "hostgate-agent")
		sum, size, err := fileSum(exe)
		if err != nil {
			return err
		}
		if err := call("POST", h.url+"/v1/admin/gateway-versions", s.adminToken(), map[string]any{"version": v,
			"exe_url": files.URL + "/agent-" + v + "/hostgate-agent", "exe_sha256": sum, "exe_size_bytes": size}, nil); err != nil {
			return err
		}
	}
	// The webhook receiver and the hosts whose L1 settings are written.
	s.rc = &receiver{secrets: map[string]string{}, arrived: map[string]time.Time{}, waits: map[string]chan struct{}{}}
	srv := httpServer(s.rc)
	go func() { <-ctx.Done(); srv.Close() }()
	if s.hooks, err = createHosts(h, s.acct.key, soakHookHosts, s.rc); err != nil {
		return err
	}
	s.hookTarget = srv.URL + "/l1"
	s.motd = filepath.Join(b.work, "motd.txt")
	return os.WriteFile(s.motd, []byte("hello from the soak\n"), 0o600)
}

// every runs f each period until ctx ends.
func every(ctx context.Context, period time.Duration, f func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		f()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// churn runs the two churning fleets: each connects its agents, holds
// them soakChurnUp, lets them all go and starts again, the second half a
// cycle after the first. The channel closes when both have stopped.
func (s *soakRun) churn(ctx context.Context, wg *sync.WaitGroup) <-chan struct{} {
	done := make(chan struct{})
	var fw sync.WaitGroup
	for i, name := range []string{"churn-a", "churn-b"} {
		fw.Go(func() {
			if i == 1 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(soakChurnUp / 2):
				}
			}
			for ctx.Err() == nil {
				fl, err := s.b.startFleet(ctx, s.creds(name), soakChurnUp)
				if err != nil {
					s.counts.note("fleet cycle", err)
					return
				}
				_, err = waitFleets(ctx, soakChurnUp, fl)
				<-fl.done
				if ctx.Err() == nil {
					s.counts.note("fleet cycle", err)
				}
			}
		})
	}
	go func() { fw.Wait(); close(done) }()
	return done
}

// commands calls the worker agent: a file read and `echo hi`, each about
// ten times a second per loop.
func (s *soakRun) commands(ctx context.Context) {
	read := map[string]any{"controls": 32, "path": s.motd}
	shell := map[string]any{"controls": 8192, "path": "echo", "data": map[string]any{"args": "hi", "timeout_s": 10}}
	client := &http.Client{Timeout: 30 * time.Second}
	base := s.h.url + "/v1/api/hosts/" + s.worker
	every(ctx, 100*time.Millisecond, func() {
		s.counts.note("file read", callWith(client, "POST", base+"/files/text", s.acct.key, read, nil))
		var out json.RawMessage
		err := callWith(client, "POST", base+"/process/shell", s.acct.key, shell, &out)
		if err == nil && !strings.Contains(string(out), "hi") {
			err = fmt.Errorf("echo hi answered %s", out)
		}
		s.counts.note("echo hi", err)
	})
}

// jobs runs one job of `echo hi` over the idle fleet at a time, a new
// one each minute, and checks each ended with every host succeeded.
func (s *soakRun) jobs(ctx context.Context) {
	op := map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c 'echo hi'"}}
	every(ctx, time.Minute, func() {
		var job struct {
			ID string `json:"id"`
		}
		body := map[string]any{"target": map[string]any{"host_ids": s.idleIDs}, "operation": op, "concurrency": 50}
		if err := call("POST", s.h.url+"/v1/api/jobs", s.acct.key, body, &job); err != nil {
			s.counts.note("job", err)
			return
		}
		var state struct {
			Totals     map[string]int `json:"totals"`
			FinishedAt *time.Time     `json:"finished_at"`
		}
		deadline := time.Now().Add(5 * time.Minute)
		for state.FinishedAt == nil {
			if time.Now().After(deadline) {
				s.counts.note("job", fmt.Errorf("job %s unfinished after 5 min: %v", job.ID, state.Totals))
				return
			}
			time.Sleep(500 * time.Millisecond)
			if err := call("GET", s.h.url+"/v1/api/jobs/"+job.ID, s.acct.key, nil, &state); err != nil {
				s.counts.note("job", err)
				return
			}
		}
		var err error
		if state.Totals["succeeded"] != len(s.idleIDs) {
			err = fmt.Errorf("job %s: %v of %d hosts", job.ID, state.Totals, len(s.idleIDs))
		}
		s.counts.note("job", err)
	})
}

// terminals opens a terminal on the worker agent every 3 s, runs a line
// in it and closes it.
func (s *soakRun) terminals(ctx context.Context) {
	n := 0
	every(ctx, 3*time.Second, func() {
		n++
		c := &customer{key: s.acct.key, hostID: s.worker, access: s.userToken()}
		t, err := openTerminal(s.h, c)
		if err != nil {
			s.counts.note("terminal", err)
			return
		}
		defer t.close()
		mark := fmt.Sprintf("soak-%d", n)
		if err := t.send("echo " + mark + "-$((1+1))\n"); err != nil {
			s.counts.note("terminal", err)
			return
		}
		s.counts.note("terminal", t.expect(mark+"-2", termWait))
	})
}

// webhooks writes a host's L1 settings twice a second, each write
// queueing a signed delivery to the receiver.
func (s *soakRun) webhooks(ctx context.Context) {
	w := newL1Writer(s.h.url, "", s.hookTarget)
	i := 0
	every(ctx, 500*time.Millisecond, func() {
		w.token = s.userToken()
		id, err := w.write(s.hooks[i%len(s.hooks)])
		i++
		s.counts.note("webhook write", err)
		if err == nil {
			s.hookMu.Lock()
			s.hookIDs = append(s.hookIDs, id)
			s.hookMu.Unlock()
		}
	})
}

// payments opens a 1 CNY order every 5 s and has it notified twice; the
// second notification must not credit again.
func (s *soakRun) payments(ctx context.Context) {
	every(ctx, 5*time.Second, func() {
		var order struct {
			OrderNo string `json:"order_no"`
			Tokens  int64  `json:"tokens"`
		}
		if err := call("POST", s.h.url+"/v1/user/billing/recharge", s.userToken(), map[string]any{"amount_cny": 1}, &order); err != nil {
			s.counts.note("payment", err)
			return
		}
		for range 2 {
			if err := call("POST", s.h.url+"/v1/public/webhooks/payment/dummy", "", map[string]any{"order_no": order.OrderNo, "amount_cny": 1}, nil); err != nil {
				s.counts.note("payment", err)
				return
			}
		}
		s.paidTokens.Add(order.Tokens)
		s.counts.note("payment", nil)
	})
}

// upgrades moves the upgraded agent to the other build every two
// minutes and waits for the upgrade to be done.
func (s *soakRun) upgrades(ctx context.Context) {
	next := soakVersionB
	every(ctx, 2*time.Minute, func() {
		var res struct{ OK bool }
		if err := call("POST", s.h.url+"/v1/admin/hosts/"+s.upHost+"/push-upgrade", s.adminToken(), map[string]string{"version": next}, &res); err != nil || !res.OK {
			s.counts.note("upgrade", cmpErr(err, "push not ok"))
			return
		}
		deadline := time.Now().Add(90 * time.Second)
		for {
			var v struct {
				WSConnected bool `json:"ws_connected"`
				Host        struct {
					InstalledVersion string `json:"installed_version"`
				} `json:"host"`
				Upgrade *struct {
					State string `json:"state"`
				} `json:"upgrade"`
			}
			err := call("GET", s.h.url+"/v1/admin/hosts/"+s.upHost, s.adminToken(), nil, &v)
			if err == nil && v.WSConnected && v.Host.InstalledVersion == next && v.Upgrade != nil && v.Upgrade.State == "done" {
				break
			}
			if time.Now().After(deadline) {
				s.counts.note("upgrade", fmt.Errorf("to %s: not done after 90 s (%+v, %v)", next, v, err))
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
		s.counts.note("upgrade", nil)
		if next == soakVersionB {
			next = soakVersionA
		} else {
			next = soakVersionB
		}
	})
}

// lists reads the console's host lists, the user's and the admin's, once
// a second each.
func (s *soakRun) lists(ctx context.Context) {
	every(ctx, time.Second, func() {
		s.counts.note("host list", call("GET", s.h.url+"/v1/user/hosts?limit=50&offset=500", s.userToken(), nil, nil))
		s.counts.note("admin host list", call("GET", s.h.url+"/v1/admin/hosts?limit=50&q=soak", s.adminToken(), nil, nil))
	})
}

func cmpErr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// The metrics sampled and judged, with the growth each may show between
// the first and the last third of the steady part.
var soakMetrics = []soak.Metric{
	{Name: "rss", Title: "hub resident memory", Unit: "MiB", Abs: 16, Rel: 0.10},
	{Name: "heap", Title: "hub Go heap in use", Unit: "MiB", Abs: 8, Rel: 0.10},
	{Name: "goroutines", Title: "hub goroutines", Abs: 50, Rel: 0.05},
	{Name: "fds", Title: "hub open files", Abs: 20, Rel: 0.05},
	{Name: "pool", Title: "hub database pool, open", Abs: 2},
	{Name: "pg_backends", Title: "PostgreSQL backends of the hub's database", Abs: 3},
	{Name: "redis_conns", Title: "hub connections to Redis", Abs: 3},
	{Name: "agents", Title: "agents connected", Load: true},
}

// sample reads the hub's resources once.
func (s *soakRun) sample(ctx context.Context, start time.Time) {
	pid := s.h.cmd.Process.Pid
	v := map[string]float64{"rss": float64(rssKiB(pid)) / 1024}
	m, err := scrape(s.h.metrics + "/metrics")
	if err == nil {
		v["heap"] = m["go_memstats_heap_inuse_bytes"] / (1 << 20)
		v["goroutines"] = m["go_goroutines"]
		v["fds"] = m["process_open_fds"]
		v["pool"] = m["hostgate_db_connections_open"]
		v["agents"] = m["hostgate_agents_connected"]
	}
	if s.pgdb != nil {
		var n int
		if s.pgdb.QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", s.be.db).Scan(&n) == nil {
			v["pg_backends"] = float64(n)
		}
		v["redis_conns"] = float64(socketsTo(pid, 6379))
	}
	s.samples = append(s.samples, soak.Sample{At: time.Since(start), Values: v})
}

// scrape reads a Prometheus text page into name → value, summing the
// series of one name over their labels.
func scrape(url string) (map[string]float64, error) {
	resp, err := setupClient.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		name := line[:sp]
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		if f, err := strconv.ParseFloat(line[sp+1:], 64); err == nil {
			out[name] += f
		}
	}
	return out, sc.Err()
}

// socketsTo counts pid's TCP sockets connected to port on any address:
// the socket inodes among its open files, looked up in /proc/net/tcp{,6}.
func socketsTo(pid, port int) int {
	inodes := map[string]bool{}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	want := fmt.Sprintf(":%04X", port)
	n := 0
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(l)
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) >= 10 && strings.HasSuffix(f[2], want) && f[3] == "01" && inodes[f[9]] {
				n++
			}
		}
	}
	return n
}

// progress prints the last sample and the traffic so far.
func (s *soakRun) progress() {
	last := s.samples[len(s.samples)-1]
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	fmt.Fprintf(os.Stderr, "  %5.1f min: RSS %.0f MiB, heap %.0f MiB, %v goroutines, %v files, %v agents; ok %v, failed %v\n",
		last.At.Minutes(), last.Values["rss"], last.Values["heap"], last.Values["goroutines"], last.Values["fds"], last.Values["agents"], s.counts.ok, s.counts.bad)
}

// check verifies, after the load, that nothing was lost or doubled: every
// queued webhook delivery arrived and verified, every payment credited
// once and the ledger agrees with the balance, the host lists' agents
// all still connected.
func (s *soakRun) check(ctx context.Context) []string {
	var problems []string
	s.hookMu.Lock()
	ids := s.hookIDs
	s.hookMu.Unlock()
	if _, err := s.rc.waitAll(ids, time.Now().Add(2*time.Minute)); err != nil {
		problems = append(problems, fmt.Sprintf("webhooks: %v", err))
	}
	if err := s.rc.failure(); err != nil {
		problems = append(problems, fmt.Sprintf("webhooks: %v", err))
	}
	var lc struct {
		Balance    int64 `json:"balance"`
		EventsSum  int64 `json:"events_sum"`
		Consistent bool  `json:"consistent"`
	}
	if err := call("GET", s.h.url+"/v1/admin/users/"+s.acct.userID+"/ledger-check", s.adminToken(), nil, &lc); err != nil {
		problems = append(problems, fmt.Sprintf("ledger check: %v", err))
	} else if !lc.Consistent {
		problems = append(problems, fmt.Sprintf("ledger check: balance %d, events sum %d", lc.Balance, lc.EventsSum))
	}
	var rech struct {
		Total int `json:"total"`
	}
	if err := call("GET", s.h.url+"/v1/admin/recharges?status=paid&user_id="+s.acct.userID+"&limit=1", s.adminToken(), nil, &rech); err != nil {
		problems = append(problems, fmt.Sprintf("recharges: %v", err))
	} else if paid := s.counts.ok["payment"]; int64(rech.Total) != paid {
		problems = append(problems, fmt.Sprintf("payments: %d orders paid, %d paid by the loop", rech.Total, paid))
	}
	for kind, n := range s.counts.bad {
		if n > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d of %d failed; first: %s", kind, n, n+s.counts.ok[kind], s.counts.first[kind]))
		}
	}
	_ = ctx
	return problems
}

// report judges the samples, writes soak.json, soak.png and soak.md, and
// prints the table; it fails on growth or on a problem.
func (s *soakRun) report(problems []string) error {
	metrics := soakMetrics
	if !s.be.scaled {
		metrics = nil
		for _, m := range soakMetrics {
			if m.Name != "pg_backends" && m.Name != "redis_conns" {
				metrics = append(metrics, m)
			}
		}
	}
	findings, err := soak.Judge(s.samples, metrics, s.warmup)
	if err != nil {
		return err
	}
	grew := soak.Grew(findings)
	verdict := "no growth"
	if grew {
		verdict = "GROWTH"
	}
	title := fmt.Sprintf("hostgate soak, %s, %s, %v (warm-up %v): %s — green: early median, orange: late median",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), s.be.name, s.dur, s.warmup, verdict)
	png, err := os.Create(filepath.Join(s.outDir, "soak.png"))
	if err != nil {
		return err
	}
	if err := soak.Plot(png, title, s.samples, findings, s.warmup); err != nil {
		png.Close()
		return err
	}
	if err := png.Close(); err != nil {
		return err
	}
	raw, _ := json.MarshalIndent(map[string]any{"backend": s.be.name, "duration_s": s.dur.Seconds(), "warmup_s": s.warmup.Seconds(),
		"samples": s.samples, "findings": findings, "ok": s.counts.ok, "failed": s.counts.bad, "problems": problems, "verdict": verdict}, "", " ")
	if err := os.WriteFile(filepath.Join(s.outDir, "soak.json"), raw, 0o644); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "%s\n\n", title)
	fmt.Fprintln(&md, "| metric | early | late | growth | allowed | peak | slope per hour | verdict |")
	fmt.Fprintln(&md, "|---|---|---|---|---|---|---|---|")
	for _, f := range findings {
		v := "steady"
		switch {
		case f.Metric.Load:
			v = "the load, not judged"
		case f.Grew:
			v = "**grew**"
		}
		fmt.Fprintf(&md, "| %s (%s) | %s | %s | %+.3g | %s | %s | %+.3g | %s |\n", f.Metric.Title, cmpUnit(f.Metric.Unit),
			format(f.Early), format(f.Late), f.Growth, format(f.Allowed), format(f.Peak), f.PerHour, v)
	}
	fmt.Fprintln(&md, "\n| traffic | succeeded | failed |")
	fmt.Fprintln(&md, "|---|---|---|")
	for _, k := range sortedKeys(s.counts.ok, s.counts.bad) {
		fmt.Fprintf(&md, "| %s | %d | %d |\n", k, s.counts.ok[k], s.counts.bad[k])
	}
	if len(problems) > 0 {
		fmt.Fprintln(&md, "\nProblems:")
		for _, p := range problems {
			fmt.Fprintf(&md, "- %s\n", p)
		}
	}
	if err := os.WriteFile(filepath.Join(s.outDir, "soak.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprint(s.b.out, md.String())
	switch {
	case grew:
		return fmt.Errorf("soak: growth (see %s)", filepath.Join(s.outDir, "soak.png"))
	case len(problems) > 0:
		return fmt.Errorf("soak: %d problems", len(problems))
	}
	return nil
}

func cmpUnit(u string) string {
	if u == "" {
		return "count"
	}
	return u
}

func sortedKeys(ms ...map[string]int64) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

func fileSum(path string) (string, int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), int64(len(b)), nil
}
