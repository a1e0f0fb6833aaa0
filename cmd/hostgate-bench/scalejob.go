package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"hostgate/internal/loadtest"
)

// The scale-out job step (issue 26 item 8): the fleet is tagged in calls
// of scaleTagBatch hosts (the most POST /v1/api/hosts/tags takes) and the
// job names its hosts by that tag, since a job body is capped at 1 MiB
// (about 25,000 host ids). Results are read back scaleResultsPage at a
// time (the paged envelope's most), scaleResultsParallel pages at once,
// spread over the instances.
const (
	scaleTag             = "bench=scale"
	scaleTagBatch        = 1000
	scaleTagParallel     = 2
	scaleResultsPage     = 200
	scaleResultsParallel = 4
)

// scaleJobResult is one item of GET /v1/api/jobs/{id}/results, as far as
// the bench reads it.
type scaleJobResult struct {
	HostID     string     `json:"host_id"`
	State      string     `json:"state"`
	Error      string     `json:"error"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// scaleJobState is the job object, as far as the bench reads it.
type scaleJobState struct {
	ID         string         `json:"id"`
	State      string         `json:"state"`
	HostCount  int            `json:"host_count"`
	Totals     map[string]int `json:"totals"`
	CreatedAt  time.Time      `json:"created_at"`
	FinishedAt *time.Time     `json:"finished_at"`
}

// hubLoad is what one instance used over a window: its CPU (cores, from
// /proc/<pid>/stat utime+stime) and its resident memory.
type hubLoad struct {
	ticks0 int64
	t0     time.Time
	s      *sampler // peak RSS (and peak CPU) while the window is open
}

func startLoad(h *hubProc) *hubLoad {
	pid := h.cmd.Process.Pid
	return &hubLoad{ticks0: cpuTicks(pid), t0: time.Now(), s: sample(pid)}
}

// end closes the window: average cores over it, peak cores over 200 ms
// and peak RSS in KiB.
func (l *hubLoad) end(h *hubProc) (avg, peak float64, rss int64) {
	ticks, t := cpuTicks(h.cmd.Process.Pid), time.Now()
	peak, rss = l.s.end()
	return float64(ticks-l.ticks0) / clockTicks / t.Sub(l.t0).Seconds(), peak, rss
}

// pgCounters are the bench database's pg_stat_database counters.
type pgCounters struct {
	at      time.Time
	commits int64 // xact_commit: every committed transaction, reads included
	written int64 // tup_inserted + tup_updated + tup_deleted
}

func readPGCounters(ctx context.Context, db *sql.DB, name string) (pgCounters, error) {
	c := pgCounters{at: time.Now()}
	err := db.QueryRowContext(ctx, `SELECT xact_commit, tup_inserted + tup_updated + tup_deleted
		FROM pg_stat_database WHERE datname = $1`, name).Scan(&c.commits, &c.written)
	return c, err
}

// rates are per second between two readings.
func (c pgCounters) rates(from pgCounters) (commits, written float64) {
	s := c.at.Sub(from.at).Seconds()
	return float64(c.commits-from.commits) / s, float64(c.written-from.written) / s
}

// scaleJob is the scale-out scenario's job step: with every agent of
// files connected to hubs, it tags the whole fleet, measures an idle
// window (each instance's CPU and RSS, the database's writes: the
// floors), creates one job of echo hi over the tag through the first
// instance, follows it to its end while measuring the same figures, then
// reads every result back and checks that each host of the fleet has
// exactly one. A failed check is returned as problem after the figures
// are recorded; err is a step that could not run.
func (b *bench) scaleJob(ctx context.Context, be *backend, hubs []*hubProc, files []string, acct account, cmdP50 time.Duration) (problem, err error) {
	var ids []string
	for _, f := range files {
		part, err := credHostIDs(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, part...)
	}
	n, k := len(ids), len(hubs)
	label := fmt.Sprintf("scale-out job: echo hi over %d agents, %d hubs, concurrency %d", n, k, b.scaleJobConcurrency)

	// Tag the fleet, through every instance in turn.
	start := time.Now()
	var g errgroup.Group
	g.SetLimit(scaleTagParallel)
	key, value, _ := strings.Cut(scaleTag, "=")
	for i := 0; i*scaleTagBatch < n; i++ {
		batch := ids[i*scaleTagBatch : min(n, (i+1)*scaleTagBatch)]
		h := hubs[i%k]
		g.Go(func() error {
			var out struct{ Updated int }
			if err := call("POST", h.url+"/v1/api/hosts/tags", acct.key,
				map[string]any{"host_ids": batch, "add": map[string]string{key: value}}, &out); err != nil {
				return err
			}
			if out.Updated != len(batch) {
				return fmt.Errorf("tagging %d hosts updated %d", len(batch), out.Updated)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("tag the fleet: %w", err)
	}
	tagged := time.Since(start)
	b.add(row{scenario: label, backend: be.name, metric: fmt.Sprintf("fleet tagged (POST hosts/tags, %d a call, %d at once)", scaleTagBatch, scaleTagParallel),
		value: float64(n) / tagged.Seconds(), unit: "hosts/s", better: "higher"})

	db, err := sql.Open("pgx", pgAdminURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	dbName := be.db

	// The floors: the same figures over an idle window of the same fleet.
	idle := 10 * time.Second
	if n >= 20000 {
		idle = 30 * time.Second // liveness and metrics come in cycles of up to 90 s
	}
	loads := make([]*hubLoad, k)
	defer func() { // the samplers of a window a failure left open
		for i, l := range loads {
			if l != nil {
				l.end(hubs[i])
			}
		}
	}()
	for i, h := range hubs {
		loads[i] = startLoad(h)
	}
	pg0, err := readPGCounters(ctx, db, dbName)
	if err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(idle):
	}
	pg1, err := readPGCounters(ctx, db, dbName)
	if err != nil {
		return nil, err
	}
	floorKey := func(what string) string { return "scale job floor " + what }
	for i, h := range hubs {
		avg, _, rss := loads[i].end(h)
		loads[i] = nil
		b.floors[floorKey(fmt.Sprintf("cpu %d", i))] = avg * 100
		b.floors[floorKey(fmt.Sprintf("rss %d", i))] = float64(rss) / 1024
	}
	idleCommits, idleWritten := pg1.rates(pg0)
	b.floors[floorKey("commits")], b.floors[floorKey("written")] = idleCommits, idleWritten
	b.floors[floorKey("command p50")] = ms(cmdP50)

	// The job, created through the first instance.
	op := map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c 'echo hi'"}}
	body := map[string]any{"name": "bench scale-out", "target": map[string]any{"tags": []string{scaleTag}},
		"operation": op, "concurrency": b.scaleJobConcurrency}
	for i, h := range hubs {
		loads[i] = startLoad(h)
	}
	pgStart, err := readPGCounters(ctx, db, dbName)
	if err != nil {
		return nil, err
	}
	var job scaleJobState
	// Creating resolves the tag and records a run per host in one unit of
	// work: seconds at 100,000 hosts, more than set-up calls are given.
	if err := callClient(&http.Client{Timeout: 10 * time.Minute}, "POST", hubs[0].url+"/v1/api/jobs", acct.key, body, &job); err != nil {
		return nil, err
	}
	created := time.Since(pgStart.at)
	limit := 10*time.Minute + time.Duration(n)*10*time.Millisecond // 100,000 hosts: 27 min
	poll := 250 * time.Millisecond
	if n >= 20000 {
		poll = time.Second
	}
	for job.FinishedAt == nil && err == nil {
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case time.Since(pgStart.at) > limit:
			err = fmt.Errorf("the job did not finish within %v: %v", limit, job.Totals)
		default:
			time.Sleep(poll)
			err = call("GET", hubs[0].url+"/v1/api/jobs/"+job.ID, acct.key, nil, &job)
		}
	}
	seen := time.Since(pgStart.at)
	pgEnd, perr := readPGCounters(ctx, db, dbName)
	avgs, peaks, rsss := make([]float64, k), make([]float64, k), make([]int64, k)
	for i, h := range hubs {
		avgs[i], peaks[i], rsss[i] = loads[i].end(h)
		loads[i] = nil
	}
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, perr
	}
	fmt.Fprintf(os.Stderr, "  scale-out job %s: %s after %v, totals %v\n", job.ID, job.State, seen.Round(time.Millisecond), job.Totals)

	// Every result, read back.
	start = time.Now()
	pages := (job.HostCount + scaleResultsPage - 1) / scaleResultsPage
	got := make([][]scaleJobResult, pages)
	var mu sync.Mutex
	totals := make([]int, pages)
	g = errgroup.Group{}
	g.SetLimit(scaleResultsParallel)
	for p := range pages {
		h := hubs[p%k]
		g.Go(func() error {
			var page struct {
				Items []scaleJobResult `json:"items"`
				Total int              `json:"total"`
			}
			u := fmt.Sprintf("%s/v1/api/jobs/%s/results?limit=%d&offset=%d", h.url, job.ID, scaleResultsPage, p*scaleResultsPage)
			if err := call("GET", u, acct.key, nil, &page); err != nil {
				return err
			}
			mu.Lock()
			got[p], totals[p] = page.Items, page.Total
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read the results: %w", err)
	}
	fmt.Fprintf(os.Stderr, "  scale-out job: %d pages of results read in %v\n", pages, time.Since(start).Round(time.Millisecond))

	// The checks: each host of the fleet exactly once, the states adding
	// up to host_count and to the job's totals, nothing left running.
	var problems []string
	perHost := make(map[string]int, n)
	byState := map[string]int{}
	errs := map[string]int{}
	var runs []time.Duration
	var last time.Time
	for p, items := range got {
		if totals[p] != job.HostCount {
			problems = append(problems, fmt.Sprintf("page %d: total %d, host_count %d", p, totals[p], job.HostCount))
		}
		for _, r := range items {
			perHost[r.HostID]++
			byState[r.State]++
			if r.Error != "" {
				errs[r.Error]++
			}
			if r.StartedAt != nil && r.FinishedAt != nil {
				runs = append(runs, r.FinishedAt.Sub(*r.StartedAt))
			}
			if r.FinishedAt != nil && r.FinishedAt.After(last) {
				last = *r.FinishedAt
			}
		}
	}
	once, sum := 0, 0
	for _, id := range ids {
		if perHost[id] == 1 {
			once++
		}
	}
	for _, c := range byState {
		sum += c
	}
	if job.HostCount != n {
		problems = append(problems, fmt.Sprintf("host_count %d for a fleet of %d", job.HostCount, n))
	}
	if once != n || len(perHost) != n {
		problems = append(problems, fmt.Sprintf("%d of %d hosts have exactly one result (%d distinct hosts in the results)", once, n, len(perHost)))
	}
	if sum != job.HostCount {
		problems = append(problems, fmt.Sprintf("results by state %v add up to %d, host_count %d", byState, sum, job.HostCount))
	}
	for _, s := range []string{"queued", "running", "succeeded", "failed", "skipped", "expired", "canceled"} {
		if byState[s] != job.Totals[s] {
			problems = append(problems, fmt.Sprintf("%d results %s, the job's totals say %d", byState[s], s, job.Totals[s]))
		}
	}
	if byState["queued"]+byState["running"] > 0 {
		problems = append(problems, fmt.Sprintf("%d runs still queued or running after finished_at", byState["queued"]+byState["running"]))
	}
	if len(errs) > 0 {
		fmt.Fprintf(os.Stderr, "  scale-out job: run errors %v\n", errs)
	}
	toLast := last.Sub(job.CreatedAt)

	b.add(row{scenario: label, backend: be.name, metric: "job created (tag resolved, a run recorded per host)", value: created.Seconds(), unit: "s", better: "lower"})
	b.add(row{scenario: label, backend: be.name, metric: "hosts with exactly one result", value: 100 * float64(once) / float64(max(n, 1)), unit: "%"})
	b.add(row{scenario: label, backend: be.name, metric: "succeeded", value: 100 * float64(byState["succeeded"]) / float64(max(n, 1)), unit: "%"})
	b.add(row{scenario: label, backend: be.name, metric: "create to last result", value: toLast.Seconds(), unit: "s", better: "lower"})
	b.add(row{scenario: label, backend: be.name, metric: "runs per second", value: float64(sum) / toLast.Seconds(), unit: "/s", better: "higher"})
	b.add(row{scenario: label, backend: be.name, metric: "per-host run p50 (started_at to finished_at)", value: ms(loadtest.Percentile(runs, 50)),
		unit: "ms", floor: floorKey("command p50"), better: "lower"})
	b.add(row{scenario: label, backend: be.name, metric: "per-host run p95", value: ms(loadtest.Percentile(runs, 95)),
		unit: "ms", better: "lower"})
	for i := range hubs {
		who := fmt.Sprintf("instance %d", i+1)
		if i == 0 {
			who += " (created the job)"
		}
		b.add(row{scenario: label, backend: be.name, metric: who + " CPU, job vs idle", value: avgs[i] * 100, unit: "% of a core",
			floor: floorKey(fmt.Sprintf("cpu %d", i)), better: "lower"})
		b.add(row{scenario: label, backend: be.name, metric: who + " peak CPU (200 ms)", value: peaks[i] * 100, unit: "% of a core"})
		b.add(row{scenario: label, backend: be.name, metric: who + " peak RSS, job vs idle", value: float64(rsss[i]) / 1024, unit: "MiB",
			floor: floorKey(fmt.Sprintf("rss %d", i)), better: "lower"})
	}
	commits, written := pgEnd.rates(pgStart)
	b.add(row{scenario: label, backend: be.name, metric: "database transactions (xact_commit), job vs idle", value: commits, unit: "/s",
		floor: floorKey("commits")})
	b.add(row{scenario: label, backend: be.name, metric: "database rows written (tup_inserted+updated+deleted), job vs idle", value: written, unit: "/s",
		floor: floorKey("written")})
	if len(problems) > 0 {
		return errors.New("scale-out job: " + strings.Join(problems, "; ")), nil
	}
	return nil, nil
}
