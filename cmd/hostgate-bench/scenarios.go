package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"hostgate/internal/hosts"
	"hostgate/internal/loadtest"
)

// apiScenarios: a charged command through the client API (API-key check,
// charge, dispatch to a real agent process, answer), on SQLite and, with
// -pg, on PostgreSQL + Redis. The read of a small file is compared with the
// WebSocket floor, `echo hi` through process/shell with the exec floor.
func (b *bench) apiScenarios(ctx context.Context) error {
	file := filepath.Join(b.work, "motd.txt")
	if err := os.WriteFile(file, []byte("hello from the bench\n"), 0o600); err != nil {
		return err
	}
	return b.onEachCustomer(ctx, func(be *backend, h *hubProc, c *customer) error { return b.apiOn(ctx, be, h, c, file) })
}

func (b *bench) backends() []bool {
	if b.pg {
		return []bool{false, true}
	}
	return []bool{false}
}

// onEachCustomer runs f on each backend with a hub and a customer whose
// agent is connected to it, stopped afterwards.
func (b *bench) onEachCustomer(ctx context.Context, f func(*backend, *hubProc, *customer) error) error {
	return b.onEachBackend(func(be *backend) error {
		h, err := b.startHub(ctx, be)
		if err != nil {
			return err
		}
		defer h.stop()
		c, err := b.newCustomer(ctx, h)
		if err != nil {
			return err
		}
		defer c.agent.stop()
		return f(be, h, c)
	})
}

// onEachBackend runs f on a fresh SQLite backend and, with -pg, on a fresh
// PostgreSQL + Redis one, dropping each afterwards.
func (b *bench) onEachBackend(f func(*backend) error) error {
	for _, scaled := range b.backends() {
		be, err := b.newBackend(scaled)
		if err != nil {
			return err
		}
		err = f(be)
		be.close()
		if err != nil {
			return fmt.Errorf("%s: %w", be.name, err)
		}
	}
	return nil
}

func (b *bench) apiOn(ctx context.Context, be *backend, h *hubProc, c *customer, file string) error {
	kctx := context.WithValue(ctx, tokenKey{}, c.key)
	read, _ := json.Marshal(map[string]any{"controls": 32, "path": file})
	b.measure(kctx, "api read file", be.name, "floor_ws", h.url+"/v1/api/hosts/"+c.hostID+"/files/text", read)
	if b.profile != "" {
		for _, callers := range []int{1, 16} {
			name := fmt.Sprintf("api-read-%s-c%d", be.name, callers)
			if err := b.cpuProfile(kctx, h, name, callers, h.url+"/v1/api/hosts/"+c.hostID+"/files/text", read); err != nil {
				return err
			}
		}
	}
	shell, _ := json.Marshal(map[string]any{"controls": 8192, "path": "echo", "data": map[string]any{"args": "hi", "timeout_s": 10}})
	b.measure(kctx, "api shell echo hi", be.name, "floor_exec", h.url+"/v1/api/hosts/"+c.hostID+"/process/shell", shell)
	return nil
}

// crossScenario: two hub instances on one PostgreSQL + Redis, the agent on
// the first, the calls through the second; compared with the same call
// through the first, measured here too.
func (b *bench) crossScenario(ctx context.Context) error {
	if !b.pg {
		fmt.Fprintln(os.Stderr, "  cross: skipped (needs -pg)")
		return nil
	}
	be, err := b.newBackend(true)
	if err != nil {
		return err
	}
	defer be.close()
	a, err := b.startHub(ctx, be)
	if err != nil {
		return err
	}
	defer a.stop()
	other, err := b.startHub(ctx, be)
	if err != nil {
		return err
	}
	defer other.stop()
	c, err := b.newCustomer(ctx, a)
	if err != nil {
		return err
	}
	defer c.agent.stop()
	file := filepath.Join(b.work, "motd.txt")
	_ = os.WriteFile(file, []byte("hello from the bench\n"), 0o600)
	kctx := context.WithValue(ctx, tokenKey{}, c.key)
	read, _ := json.Marshal(map[string]any{"controls": 32, "path": file})
	path := "/v1/api/hosts/" + c.hostID + "/files/text"
	b.measure(kctx, "floor same-instance read", be.name, "floor_same-instance read", a.url+path, read)
	b.measure(kctx, "api read via other instance", be.name, "floor_same-instance read", other.url+path, read)
	return nil
}

// fleetScenarios: an idle fleet of n simulated agents on one hub process
// (SQLite): the time for the whole fleet to connect, then, after it has
// settled, the hub's resident memory per agent and its CPU while idle.
// Under the largest fleet the hub is restarted: the reconnect storm. With
// -pg the largest fleet runs again on PostgreSQL + Redis.
func (b *bench) fleetScenarios(ctx context.Context) error {
	for i, n := range b.fleet {
		if err := b.idleFleet(ctx, n, i == len(b.fleet)-1, false); err != nil {
			return err
		}
	}
	if b.pg && len(b.fleet) > 0 {
		return b.idleFleet(ctx, b.fleet[len(b.fleet)-1], true, true)
	}
	return nil
}

// idleWindow is how long idle CPU is measured.
const idleWindow = hosts.FlushInterval

func (b *bench) idleFleet(ctx context.Context, n int, storm, scaled bool) error {
	be, err := b.newBackend(scaled)
	if err != nil {
		return err
	}
	defer be.close()
	env := hubEnv(be, freeAddr())
	creds := filepath.Join(b.work, fmt.Sprintf("fleet-%d.jsonl", n))
	if err := b.provision(ctx, env, n, "", creds); err != nil {
		return err
	}
	h, err := b.startHubAt(ctx, env)
	if err != nil {
		return err
	}
	defer func() {
		if h != nil { // nil when a restart failed
			h.stop()
		}
	}()
	base := settledRSS(h)
	fl, err := b.startFleet(ctx, creds, 20*time.Minute, "--ramp", "2000")
	if err != nil {
		return err
	}
	defer fl.stop()
	if _, err := waitFleets(ctx, 5*time.Minute, fl); err != nil {
		return err
	}
	_, connectMs := fl.stats()
	time.Sleep(10 * time.Second) // the connect burst's garbage collected and returned
	// Idle work comes in cycles: heartbeats every 25 s, metrics every 60 s
	// (written every 5 s), the liveness flush every 90 s. A 90 s window
	// holds one liveness flush, whatever its phase.
	// With -profile the window is also profiled (the sampling costs the
	// hub a little CPU of its own).
	cpu0, t0 := cpuTicks(h.cmd.Process.Pid), time.Now()
	if b.profile != "" {
		if err := b.saveProfile(h, fmt.Sprintf("idle-%d", n), idleWindow); err != nil {
			return err
		}
	} else {
		time.Sleep(idleWindow)
	}
	cpu1, t1 := cpuTicks(h.cmd.Process.Pid), time.Now()
	rss := settledRSS(h)
	label := fmt.Sprintf("idle fleet %d", n)
	b.add(row{scenario: label, backend: be.name, metric: "connect time", value: float64(connectMs) / 1000, unit: "s"})
	b.add(row{scenario: label, backend: be.name, metric: "hub RSS per agent", value: float64(rss-base) / float64(n), unit: "KiB"})
	cores := float64(cpu1-cpu0) / clockTicks / t1.Sub(t0).Seconds()
	b.add(row{scenario: label, backend: be.name, metric: "idle CPU per 20k agents", value: cores * 100 * 20000 / float64(n), unit: "% of a core"})
	if !storm {
		return nil
	}
	h, st, err := b.restartUnder(ctx, h, fl)
	if err != nil {
		return err
	}
	b.addStorm(fmt.Sprintf("reconnect storm: hub restarted, %d agents", n), be.name, st)
	return nil
}

// rssKiB is a process's resident memory.
func rssKiB(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// cpuTicks is a process's user + system time in clock ticks.
func cpuTicks(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

// cpuProfile takes a 5-second CPU profile of the hub while callers
// make the call, into the profile directory. At one caller it shows what
// a call costs the hub, at sixteen what throughput does.
func (b *bench) cpuProfile(ctx context.Context, h *hubProc, name string, callers int, url string, body []byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go loadtest.Run(ctx, callers, 10*time.Second, 0, b.poster(url, body))
	return b.saveProfile(h, name, 5*time.Second)
}

// saveProfile takes a CPU profile of the hub over d into the profile
// directory as name.pprof.
func (b *bench) saveProfile(h *hubProc, name string, d time.Duration) error {
	if err := os.MkdirAll(b.profile, 0o755); err != nil {
		return err
	}
	c := http.Client{Timeout: d + time.Minute}
	resp, err := c.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", h.metrics, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(filepath.Join(b.profile, name+".pprof"))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	fmt.Fprintf(os.Stderr, "  profile: %s\n", f.Name())
	return err
}
