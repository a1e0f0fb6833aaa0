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
