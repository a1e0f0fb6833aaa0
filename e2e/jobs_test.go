//go:build linux

package e2e

import (
	"net/url"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

type e2eJob struct {
	ID         string         `json:"id"`
	State      string         `json:"state"`
	Totals     map[string]int `json:"totals"`
	StopReason string         `json:"stop_reason"`
	Charged    float64        `json:"charged"`
	FinishedAt *time.Time     `json:"finished_at"`
}

func shellJob(hostIDs []string, cmd string) map[string]any {
	return map[string]any{"target": map[string]any{"host_ids": hostIDs},
		"operation": map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c '" + cmd + "'"}}}
}

func createJob(t *testing.T, h *Hub, c Customer, body map[string]any) e2eJob {
	t.Helper()
	var j e2eJob
	if s := call(t, "POST", h.URL+"/v1/api/jobs", c.Key, body, &j); s != 201 {
		t.Fatalf("create job: %d", s)
	}
	return j
}

func waitJob(t *testing.T, h *Hub, c Customer, id, what string, cond func(e2eJob) bool) e2eJob {
	t.Helper()
	var j e2eJob
	eventually.True(t, 30*time.Second, what, func() bool {
		call(t, "GET", h.URL+"/v1/api/jobs/"+id, c.Key, nil, &j)
		return cond(j)
	})
	return j
}

// chargesByHost counts the customer's charge events per host.
func chargesByHost(t *testing.T, h *Hub, c Customer) map[string]int {
	t.Helper()
	var out struct {
		Items []struct {
			Kind   string `json:"kind"`
			HostID string `json:"host_id"`
		}
	}
	call(t, "GET", h.URL+"/v1/user/billing/events?limit=200", c.Token, nil, &out)
	n := map[string]int{}
	for _, e := range out.Items {
		if e.Kind == "charge" {
			n[e.HostID]++
		}
	}
	return n
}

// TestJobs runs jobs with real hub and agent processes on both engines:
// five hosts, two offline, offline=queue and a short expiry: three succeed
// at once, one comes online within the expiry and runs, one expires; each
// run is charged exactly once and the expired one nothing. A wave over its
// failure threshold stops a job; cancel stops queued runs.
func TestJobs(t *testing.T) {
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[scaled], func(t *testing.T) {
			e := NewEnv(t, scaled)
			e.env["HOSTGATE_JOB_EXPIRY_SCALE"] = "0.1" // expires_in_s 60 → 6 s
			h := e.StartHub()
			c := NewCustomer(t, h)
			c.Fund(h, 100)
			var creds []Credentials
			var ids []string
			for i := range 5 {
				cr := c.CreateHost(h, "job-host-"+string(rune('a'+i)))
				creds, ids = append(creds, cr), append(ids, cr.HostID)
			}
			for _, cr := range creds[:3] {
				e.StartAgent(cr, t.TempDir())
			}
			for _, id := range ids[:3] {
				eventually.True(t, 30*time.Second, "agent connected", func() bool { return c.Connected(h, id) })
			}

			body := shellJob(ids, "echo hi")
			body["offline"], body["expires_in_s"] = "queue", 60
			j := createJob(t, h, c, body)
			waitJob(t, h, c, j.ID, "three runs succeed", func(j e2eJob) bool { return j.Totals["succeeded"] == 3 && j.Totals["queued"] == 2 })
			e.StartAgent(creds[3], t.TempDir())
			j = waitJob(t, h, c, j.ID, "the job ends", func(j e2eJob) bool { return j.FinishedAt != nil })
			if j.State != "finished" || j.Totals["succeeded"] != 4 || j.Totals["expired"] != 1 || j.Charged != 20 {
				t.Fatalf("job %+v: want 4 succeeded (the late host too), 1 expired, 20 tokens", j)
			}
			charges := chargesByHost(t, h, c)
			for _, id := range ids[:4] {
				if charges[id] != 1 {
					t.Errorf("host %s charged %d times, want once", id, charges[id])
				}
			}
			if charges[ids[4]] != 0 || c.Balance(h) != 80 {
				t.Fatalf("expired host charged %d times; balance %v, want 80", charges[ids[4]], c.Balance(h))
			}

			// A failure threshold stops a job after its first wave.
			body = shellJob(ids[:4], "exit 1")
			body["waves"] = map[string]any{"size": 1, "stop_if_failed_pct": 0}
			w := createJob(t, h, c, body)
			w = waitJob(t, h, c, w.ID, "the threshold job ends", func(j e2eJob) bool { return j.FinishedAt != nil })
			if w.StopReason != "failure_threshold" || w.Totals["failed"] != 1 || w.Totals["canceled"] != 3 || w.Charged != 5 {
				t.Fatalf("threshold job %+v", w)
			}

			// Cancel ends the run queued for the offline host, uncharged.
			before := c.Balance(h)
			body = shellJob(ids[4:], "echo hi")
			body["offline"] = "queue"
			q := createJob(t, h, c, body)
			var canceled e2eJob
			if s := call(t, "POST", h.URL+"/v1/api/jobs/"+q.ID+"/cancel", c.Key, nil, &canceled); s != 200 {
				t.Fatalf("cancel: %d", s)
			}
			if canceled.State != "canceled" || canceled.Totals["canceled"] != 1 || canceled.FinishedAt == nil || c.Balance(h) != before {
				t.Fatalf("canceled job %+v, balance %v → %v", canceled, before, c.Balance(h))
			}
		})
	}
}

// TestJobsAcrossInstances: on PostgreSQL and Redis, a job created on hub A
// over a host whose agent is connected to hub B runs, once.
func TestJobsAcrossInstances(t *testing.T) {
	e := NewEnv(t, true)
	a := e.StartHub()
	b := e.StartHub()
	c := NewCustomer(t, a)
	c.Fund(a, 20)
	cr := c.CreateHost(b, "on-b")
	if u, _ := url.Parse(cr.WSURL); u.Host != b.addr {
		t.Fatalf("credentials point at %s, want hub B %s", u.Host, b.addr)
	}
	e.StartAgent(cr, t.TempDir())
	eventually.True(t, 30*time.Second, "agent connected to B", func() bool { return c.Connected(b, cr.HostID) })
	j := createJob(t, a, c, shellJob([]string{cr.HostID}, "echo hi"))
	j = waitJob(t, a, c, j.ID, "the job ends", func(j e2eJob) bool { return j.FinishedAt != nil })
	if j.Totals["succeeded"] != 1 || j.Charged != 5 || chargesByHost(t, a, c)[cr.HostID] != 1 {
		t.Fatalf("job %+v", j)
	}
}

type e2eScheduleRun struct {
	At      time.Time `json:"at"`
	FiredAt time.Time `json:"fired_at"`
	JobID   *string   `json:"job_id"`
	Error   string    `json:"error"`
}

// scheduleRuns lists a schedule's history (newest first) through h.
func scheduleRuns(t *testing.T, h *Hub, c Customer, id string) []e2eScheduleRun {
	t.Helper()
	var out struct{ Items []e2eScheduleRun }
	if s := call(t, "GET", h.URL+"/v1/api/schedules/"+id+"/runs?limit=200", c.Key, nil, &out); s != 200 {
		t.Fatalf("schedule runs: %d", s)
	}
	return out.Items
}

// scheduledJobs is the set of the customer's jobs started by schedule id.
func scheduledJobs(t *testing.T, h *Hub, c Customer, id string) map[string]bool {
	t.Helper()
	var out struct {
		Items []struct {
			e2eJob
			ScheduleID *string `json:"schedule_id"`
		}
	}
	if s := call(t, "GET", h.URL+"/v1/api/jobs?limit=200", c.Key, nil, &out); s != 200 {
		t.Fatalf("jobs: %d", s)
	}
	jobs := map[string]bool{}
	for _, j := range out.Items {
		if j.ScheduleID != nil && *j.ScheduleID == id {
			jobs[j.ID] = true
		}
	}
	return jobs
}

// TestSchedulesAcrossInstances: three hub processes on one PostgreSQL and
// Redis, each looking for due schedules every 200 ms. A schedule for every
// minute starts exactly one job a minute, whichever instance claims it; a
// one-off starts once; after all three instances restart the minute
// schedule goes on, still once a minute, and every run is charged once.
func TestSchedulesAcrossInstances(t *testing.T) {
	t.Parallel() // it waits for two minute boundaries
	e := NewEnv(t, true)
	e.env["HOSTGATE_SCHEDULE_INTERVAL"] = "200ms"
	hubs := []*Hub{e.StartHub(), e.StartHub(), e.StartHub()}
	c := NewCustomer(t, hubs[0])
	c.Fund(hubs[0], 100)
	cr := c.CreateHost(hubs[1], "scheduled")
	e.StartAgent(cr, t.TempDir())
	eventually.True(t, 30*time.Second, "agent connected", func() bool { return c.Connected(hubs[2], cr.HostID) })

	var every, once struct{ ID string }
	job := shellJob([]string{cr.HostID}, "echo hi")
	if s := call(t, "POST", hubs[0].URL+"/v1/api/schedules", c.Key,
		map[string]any{"name": "every minute", "cron": "* * * * *", "timezone": "UTC", "job": job}, &every); s != 201 {
		t.Fatalf("create cron schedule: %d", s)
	}
	at := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	if s := call(t, "POST", hubs[1].URL+"/v1/api/schedules", c.Key,
		map[string]any{"name": "once", "at": at, "job": job}, &once); s != 201 {
		t.Fatalf("create one-off schedule: %d", s)
	}

	// checkRuns waits for want runs of the minute schedule and checks each
	// started one job, at a distinct minute, and no other job exists.
	checkRuns := func(want int, what string) {
		t.Helper()
		var runs []e2eScheduleRun
		eventually.True(t, 90*time.Second, what, func() bool {
			runs = scheduleRuns(t, hubs[want%3], c, every.ID)
			started := len(runs) >= want
			for _, r := range runs { // the claim is recorded first, the job it starts next
				started = started && (r.JobID != nil || r.Error != "")
			}
			return started
		})
		seen := map[time.Time]bool{}
		for _, r := range runs {
			if r.JobID == nil || r.Error != "" || r.At.Second() != 0 || seen[r.At] {
				t.Fatalf("run %+v of %+v: want one job per minute", r, runs)
			}
			seen[r.At] = true
		}
		if jobs := scheduledJobs(t, hubs[0], c, every.ID); len(jobs) != len(runs) {
			t.Fatalf("%d jobs for %d runs %+v", len(jobs), len(runs), runs)
		}
	}
	checkRuns(1, "the first minute fires")
	if runs := scheduleRuns(t, hubs[2], c, once.ID); len(runs) != 1 || runs[0].JobID == nil {
		t.Fatalf("one-off runs %+v, want exactly one with a job", runs)
	}

	// The restart comes once the first minute's job has ended: a run in
	// flight when the instance holding its agent stops ends failed with a
	// clear code by design (docs/jobs.md, "Offline queue"), and the
	// stop's drain of runs in flight is internal/jobs'
	// TestStopDrainsRunsInFlight. What this part checks is that the
	// schedule goes on, once a minute, across the restart of every instance.
	eventually.True(t, 60*time.Second, "the first minute's job ended", func() bool {
		for id := range scheduledJobs(t, hubs[0], c, every.ID) {
			var j e2eJob
			call(t, "GET", hubs[0].URL+"/v1/api/jobs/"+id, c.Key, nil, &j)
			if j.FinishedAt == nil {
				return false
			}
		}
		return true
	})
	for i, h := range hubs {
		hubs[i] = h.Restart()
	}
	checkRuns(2, "the minute after the restart fires")

	// Paused, the schedule's history is final: every run claimed has started
	// its job, each job ran its host once and was charged once, and the
	// one-off's job too.
	if s := call(t, "POST", hubs[0].URL+"/v1/api/schedules/"+every.ID+"/pause", c.Key, nil, nil); s != 200 {
		t.Fatalf("pause: %d", s)
	}
	var runs []e2eScheduleRun
	jobs := map[string]e2eJob{}
	eventually.True(t, 60*time.Second, "every scheduled job ended", func() bool {
		runs = scheduleRuns(t, hubs[0], c, every.ID)
		for _, r := range append(runs, scheduleRuns(t, hubs[0], c, once.ID)...) {
			if r.JobID == nil {
				return false
			}
			var j e2eJob
			call(t, "GET", hubs[0].URL+"/v1/api/jobs/"+*r.JobID, c.Key, nil, &j)
			if j.FinishedAt == nil {
				return false
			}
			jobs[j.ID] = j
		}
		return true
	})
	for _, j := range jobs {
		if j.Totals["succeeded"] != 1 || j.Charged != 5 {
			var res struct{ Items []map[string]any }
			call(t, "GET", hubs[0].URL+"/v1/api/jobs/"+j.ID+"/results", c.Key, nil, &res)
			t.Fatalf("scheduled job %+v (results %v): want its one run succeeded, charged once", j, res.Items)
		}
	}
	if n := len(scheduledJobs(t, hubs[0], c, every.ID)); n != len(runs) {
		t.Fatalf("%d jobs for %d runs", n, len(runs))
	}
	if n := chargesByHost(t, hubs[0], c)[cr.HostID]; n != len(runs)+1 {
		t.Fatalf("%d charges for %d runs of the minute schedule and one one-off", n, len(runs))
	}
}
