package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// capacityScenario measures the per-agent and per-command slopes of the
// 1,000,000-agent capacity model (docs/performance.md, "Capacity for
// 1,000,000 agents"): two hub instances on one PostgreSQL and a Redis of
// their own (a private redis-server, so that its command counters hold
// only the hubs' commands), b.capacityAgents simulated agents on the
// first. It reads, over an idle window and then over a window of charged
// commands sent through the second instance to agents on the first (the
// case of a hub of many, where most commands arrive at an instance that
// does not hold the agent):
//   - each instance's CPU, and the first's resident memory per agent;
//   - the database's transactions and rows written (pg_stat_database);
//   - Redis's commands processed (INFO stats).
//
// The idle rates divided by the agents are the per-agent slopes; the
// command window's rates less the idle ones, divided by the commands, are
// the per-command costs.
func (b *bench) capacityScenario(ctx context.Context) error {
	if !b.pg {
		fmt.Fprintln(os.Stderr, "  capacity: skipped (needs -pg)")
		return nil
	}
	rdb, stopRedis, err := b.privateRedis(ctx)
	if err != nil {
		return err
	}
	defer stopRedis()
	be, err := b.newBackend(true)
	if err != nil {
		return err
	}
	defer be.close()
	be.env["HOSTGATE_REDIS_URL"] = rdb.url
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
	db, err := sql.Open("pgx", pgAdminURL)
	if err != nil {
		return err
	}
	defer db.Close()
	dbName := be.db

	acct, err := b.newAccount(a)
	if err != nil {
		return err
	}
	n := b.capacityAgents
	creds := filepath.Join(b.work, "capacity.jsonl")
	if err := b.provision(ctx, a.env, n, acct.userID, creds); err != nil {
		return err
	}
	ids, err := credHostIDs(creds)
	if err != nil {
		return err
	}
	base := settledRSS(a)
	fl, err := b.startFleet(ctx, creds, 30*time.Minute, "--ramp", "2000")
	if err != nil {
		return err
	}
	defer fl.stop()
	if _, err := waitFleets(ctx, 5*time.Minute, fl); err != nil {
		return err
	}
	// Liveness and metrics come in cycles of up to 90 s: let the first
	// ones pass, then measure over two of them.
	fmt.Fprintln(os.Stderr, "  capacity: fleet connected; settling 60 s, then 180 s idle")
	if err := sleepCtx(ctx, 60*time.Second); err != nil {
		return err
	}
	stats0, err := rdb.commandStats(ctx)
	if err != nil {
		return err
	}
	idle, err := b.capacityWindow(ctx, db, dbName, rdb, []*hubProc{a, other}, 180*time.Second, nil)
	if err != nil {
		return err
	}
	stats1, err := rdb.commandStats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "  capacity: Redis commands per 1,000 idle agents a second, by command: %s\n", statsRate(stats0, stats1, idle.secs, n))
	rss := settledRSS(a)
	var calls atomic.Int64
	load := func(ctx context.Context) {
		op := map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c 'echo hi'"}}
		client := &http.Client{Timeout: 30 * time.Second}
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; ctx.Err() == nil; i += 8 {
					if callWith(client, "POST", other.url+"/v1/api/hosts/"+ids[i%len(ids)]+"/process/shell", acct.key, op, nil) == nil {
						calls.Add(1)
					}
				}
			})
		}
		wg.Wait()
	}
	fmt.Fprintln(os.Stderr, "  capacity: 90 s of commands through the second instance")
	busy, err := b.capacityWindow(ctx, db, dbName, rdb, []*hubProc{a, other}, 90*time.Second, load)
	if err != nil {
		return err
	}
	label := fmt.Sprintf("capacity slopes, %d agents", n)
	k := float64(n) / 1000
	add := func(metric string, v float64, unit string) {
		b.add(row{scenario: label, backend: be.name, metric: metric, value: v, unit: unit, better: "lower"})
	}
	add("hub RSS per idle agent", float64(rss-base)/float64(n), "KiB")
	add("hub CPU per 1,000 idle agents", idle.cpu[0]*100/k, "% of a core")
	add("database transactions per 1,000 idle agents", idle.commits/k, "/s")
	add("database rows written per 1,000 idle agents", idle.rows/k, "/s")
	add("Redis commands per 1,000 idle agents", idle.redis/k, "/s")
	c := float64(calls.Load())
	if c == 0 {
		return errors.New("no command succeeded in the command window")
	}
	rate := c / busy.secs
	b.add(row{scenario: label, backend: be.name, metric: "commands through the other instance", value: rate, unit: "/s", better: "higher"})
	add("CPU per command, instance receiving the call", (busy.cpu[1]-idle.cpu[1])/rate*1000, "ms")
	add("CPU per command, instance holding the agent", (busy.cpu[0]-idle.cpu[0])/rate*1000, "ms")
	add("database transactions per command", (busy.commits-idle.commits)/rate, "")
	add("database rows written per command", (busy.rows-idle.rows)/rate, "")
	add("Redis commands per command", (busy.redis-idle.redis)/rate, "")
	return nil
}

// capWindow is what one measuring window read: per-second rates.
type capWindow struct {
	secs          float64
	cpu           []float64 // cores, per instance
	commits, rows float64
	redis         float64
}

// capacityWindow measures d while load (if any) runs.
func (b *bench) capacityWindow(ctx context.Context, db *sql.DB, dbName string, rdb *privRedis, hubs []*hubProc, d time.Duration, load func(context.Context)) (capWindow, error) {
	var w capWindow
	pg0, err := readPGCounters(ctx, db, dbName)
	if err != nil {
		return w, err
	}
	r0, err := rdb.commands(ctx)
	if err != nil {
		return w, err
	}
	ticks := make([]int64, len(hubs))
	for i, h := range hubs {
		ticks[i] = cpuTicks(h.cmd.Process.Pid)
	}
	start := time.Now()
	if load != nil {
		lctx, cancel := context.WithTimeout(ctx, d)
		load(lctx)
		cancel()
	} else if err := sleepCtx(ctx, d); err != nil {
		return w, err
	}
	w.secs = time.Since(start).Seconds()
	for i, h := range hubs {
		w.cpu = append(w.cpu, float64(cpuTicks(h.cmd.Process.Pid)-ticks[i])/clockTicks/w.secs)
	}
	// PostgreSQL publishes a backend's counts at most once a second.
	if err := sleepCtx(ctx, 1500*time.Millisecond); err != nil {
		return w, err
	}
	pg1, err := readPGCounters(ctx, db, dbName)
	if err != nil {
		return w, err
	}
	r1, err := rdb.commands(ctx)
	if err != nil {
		return w, err
	}
	w.commits = float64(pg1.commits-pg0.commits) / w.secs
	w.rows = float64(pg1.written-pg0.written) / w.secs
	w.redis = float64(r1-r0) / w.secs
	return w, nil
}

// privRedis is a redis-server of the bench's own.
type privRedis struct {
	url    string
	client *redis.Client
}

// commands is the server's total_commands_processed, less the INFO calls
// the bench made itself.
func (r *privRedis) commands(ctx context.Context) (int64, error) {
	info, err := r.client.Info(ctx, "stats").Result()
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "total_commands_processed:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("redis INFO has no total_commands_processed")
}

// commandStats is the server's calls per command (INFO commandstats).
func (r *privRedis) commandStats(ctx context.Context) (map[string]int64, error) {
	info, err := r.client.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, l := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(l), ":calls=")
		if !ok {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		if n, err := strconv.ParseInt(calls, 10, 64); err == nil {
			out[strings.TrimPrefix(name, "cmdstat_")] = n
		}
	}
	return out, nil
}

// statsRate is the calls per second per 1,000 agents of each command
// between two readings, largest first.
func statsRate(from, to map[string]int64, secs float64, agents int) string {
	type rate struct {
		name string
		v    float64
	}
	var rs []rate
	for name, n := range to {
		if d := n - from[name]; d > 0 && name != "info" {
			rs = append(rs, rate{name, float64(d) / secs / (float64(agents) / 1000)})
		}
	}
	slices.SortFunc(rs, func(a, b rate) int { return cmp.Compare(b.v, a.v) })
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %.3g", r.name, r.v)
	}
	return strings.Join(parts, ", ")
}

func (b *bench) privateRedis(ctx context.Context) (*privRedis, func(), error) {
	addr := freeAddr()
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	dir, err := os.MkdirTemp(b.work, "redis-")
	if err != nil {
		return nil, nil, err
	}
	p, err := startProc(ctx, "redis-server", nil, b.log, "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir)
	if err != nil {
		return nil, nil, fmt.Errorf("redis-server: %w", err)
	}
	r := &privRedis{url: "redis://" + addr + "/0", client: redis.NewClient(&redis.Options{Addr: addr})}
	stop := func() { r.client.Close(); p.stop() }
	deadline := time.Now().Add(10 * time.Second)
	for r.client.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			stop()
			return nil, nil, errors.New("private redis-server not answering within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r, stop, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
