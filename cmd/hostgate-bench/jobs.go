package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Job bench sizes: one job of echo hi over jobHosts simulated agents, at
// the job's default concurrency.
const (
	jobHosts       = 10000
	jobConcurrency = 50
)

// jobsScenario: a job of `echo hi` over 10,000 simulated agents against
// the floor of the same 10,000 single-host calls (POST
// /v1/api/hosts/{id}/process/shell) made by a client at the job's
// concurrency (docs/jobs.md); the ratio's target is at most 1.5. Then the
// hub's memory.
func (b *bench) jobsScenario(ctx context.Context) error {
	return b.onEachBackend(func(be *backend) error {
		h, err := b.startHub(ctx, be)
		if err != nil {
			return err
		}
		defer h.stop()
		acct, err := b.newAccount(h)
		if err != nil {
			return err
		}
		creds := filepath.Join(b.work, "jobs-"+be.name+".jsonl")
		if err := b.provision(ctx, h.env, jobHosts, acct.userID, creds); err != nil {
			return err
		}
		ids, err := credHostIDs(creds)
		if err != nil {
			return err
		}
		fl, err := b.startFleet(ctx, creds, 20*time.Minute, "--ramp", "2000")
		if err != nil {
			return err
		}
		defer fl.stop()
		if _, err := waitFleets(ctx, 5*time.Minute, fl); err != nil {
			return err
		}
		op := map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c 'echo hi'"}}

		// The floor: the same calls, one host each, jobConcurrency at once.
		start := time.Now()
		var next atomic.Int64
		var failed atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		client := &http.Client{Timeout: time.Minute}
		for range jobConcurrency {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= len(ids) || ctx.Err() != nil {
						return
					}
					if err := callWith(client, "POST", h.url+"/v1/api/hosts/"+ids[i]+"/process/shell", acct.key, op, nil); err != nil {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			})
		}
		wg.Wait()
		floor := time.Since(start)
		if n := failed.Load(); n > 0 {
			fmt.Fprintf(os.Stderr, "  jobs floor: %d errors, first: %v\n", n, firstErr.Load())
		}
		key := "jobs " + be.name
		b.floors[key] = floor.Seconds()
		b.add(row{scenario: fmt.Sprintf("%d single-host calls at %d at once (floor)", len(ids), jobConcurrency), backend: be.name,
			metric: "wall time", value: floor.Seconds(), unit: "s", better: "lower"})

		// The job.
		var job struct {
			ID string `json:"id"`
		}
		start = time.Now()
		body := map[string]any{"target": map[string]any{"host_ids": ids}, "operation": op, "concurrency": jobConcurrency}
		if err := call("POST", h.url+"/v1/api/jobs", acct.key, body, &job); err != nil {
			return err
		}
		if b.profile != "" {
			go func() { _ = b.saveProfile(h, "job-"+be.name, 10*time.Second) }()
		}
		var state struct {
			Totals     map[string]int `json:"totals"`
			FinishedAt *time.Time     `json:"finished_at"`
		}
		for state.FinishedAt == nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if time.Since(start) > 10*time.Minute {
				return errors.New("the job did not finish within 10 minutes")
			}
			time.Sleep(100 * time.Millisecond)
			if err := call("GET", h.url+"/v1/api/jobs/"+job.ID, acct.key, nil, &state); err != nil {
				return err
			}
		}
		took := time.Since(start)
		if state.Totals["succeeded"] != len(ids) {
			fmt.Fprintf(os.Stderr, "  jobs %s: totals %v\n", be.name, state.Totals)
		}
		b.add(row{scenario: fmt.Sprintf("job of echo hi over %d agents, concurrency %d", len(ids), jobConcurrency), backend: be.name,
			metric: "wall time", value: took.Seconds(), unit: "s", floor: key, better: "lower"})
		b.add(row{scenario: fmt.Sprintf("job of echo hi over %d agents", len(ids)), backend: be.name,
			metric: "hub RSS after", value: float64(rssKiB(h.cmd.Process.Pid)) / 1024, unit: "MiB"})
		return nil
	})
}

// callWith is call with its own client.
func callWith(c *http.Client, method, url, token string, in, out any) error {
	return callClient(c, method, url, token, in, out)
}

// credHostIDs reads the host ids of a credentials file of hostgate-fleet
// provision (one JSON object a line).
func credHostIDs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct {
			HostID string `json:"host_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, err
		}
		ids = append(ids, c.HostID)
	}
	return ids, sc.Err()
}
