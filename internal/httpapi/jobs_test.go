package httpapi_test

import (
	"fmt"
	"testing"
	"time"

	"hostgate/internal/hubtest"
)

type jobView struct {
	ID         string         `json:"id"`
	State      string         `json:"state"`
	HostCount  int            `json:"host_count"`
	Totals     map[string]int `json:"totals"`
	StopReason string         `json:"stop_reason"`
	RetryOf    *string        `json:"retry_of"`
	Charged    float64        `json:"charged"`
	FinishedAt *time.Time     `json:"finished_at"`
}

type jobResult struct {
	HostID   string  `json:"host_id"`
	State    string  `json:"state"`
	ExitCode *int    `json:"exit_code"`
	Stdout   string  `json:"stdout"`
	Error    string  `json:"error"`
	Charged  float64 `json:"charged"`
}

// waitJob polls the job until cond holds (or fails the test after 20 s).
func waitJob(t *testing.T, c *hubtest.Client, prefix, id string, cond func(jobView) bool) jobView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var j jobView
		c.Do("GET", prefix+"/jobs/"+id, nil).Want(t, 200, "").JSON(t, &j)
		if cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s never reached the condition: %+v", id, j)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func jobBalance(t *testing.T, h *hubtest.Hub, user string) float64 {
	t.Helper()
	b, err := h.Billing.Balance(t.Context(), user)
	if err != nil {
		t.Fatal(err)
	}
	return b.Tokens()
}

func shellOp(cmd string) map[string]any {
	return map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c '" + cmd + "'"}}
}

// TestJobsAPI runs a job over two connected hosts and an offline one, and
// checks what the job API refuses: nothing is recorded or charged then.
func TestJobsAPI(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		c := h.Client(t).As(key)
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
			map[string]any{"tokens": 20, "reason": "jobs"}).Want(t, 200, "")
		a := h.ConnectAgent(t, u.User.ID, nil)
		b := h.ConnectAgent(t, u.User.ID, nil)
		off, _, err := h.Hosts.Create(t.Context(), u.User.ID, "off", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		targets := map[string]any{"host_ids": []string{a, b, off.ID}}

		// Refusals: nothing recorded, nothing charged.
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": targets, "operation": map[string]any{"controls": 0}}).Want(t, 400, "invalid_body")
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": targets, "operation": map[string]any{"controls": 8192, "path": "/bin/sh", "data": 5}}).
			Want(t, 400, "invalid_body")
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": targets, "operation": shellOp("true"), "concurrency": 5000}).Want(t, 400, "invalid_body")
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": map[string]any{}, "operation": shellOp("true")}).Want(t, 400, "invalid_body")
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": targets, "operation": shellOp("true"), "notify_url": "https://example.com/x"}).
			Want(t, 400, "webhook_secret_missing")
		other := h.Register(t)
		otherKey := apiKey(t, h, other.AccessToken)
		h.Client(t).As(otherKey).Do("POST", "/v1/api/jobs", map[string]any{"target": targets, "operation": shellOp("true")}).
			Want(t, 404, "not_found")
		var dry struct {
			HostCount int      `json:"host_count"`
			HostIDs   []string `json:"host_ids"`
			MaxCost   float64  `json:"max_cost"`
		}
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": targets, "operation": shellOp("true"), "dry_run": true}).
			Want(t, 200, "").JSON(t, &dry)
		if dry.HostCount != 3 || len(dry.HostIDs) != 3 || dry.MaxCost != 15 {
			t.Fatalf("dry run = %+v, want 3 hosts at 5 tokens", dry)
		}
		var list struct{ Total int }
		c.Do("GET", "/v1/api/jobs", nil).Want(t, 200, "").JSON(t, &list)
		if list.Total != 0 || jobBalance(t, h, u.User.ID) != 20 {
			t.Fatalf("refusals recorded %d jobs or charged (balance %v)", list.Total, jobBalance(t, h, u.User.ID))
		}

		// The job: two succeed, the offline host is skipped; 5 tokens each.
		var j jobView
		c.Do("POST", "/v1/api/jobs", map[string]any{"name": "hi", "target": targets, "operation": shellOp("echo hi")}).
			Want(t, 201, "").JSON(t, &j)
		if j.State != "running" || j.HostCount != 3 {
			t.Fatalf("created %+v", j)
		}
		j = waitJob(t, c, "/v1/api", j.ID, func(j jobView) bool { return j.FinishedAt != nil })
		if j.State != "finished" || j.Totals["succeeded"] != 2 || j.Totals["skipped"] != 1 || j.Charged != 10 {
			t.Fatalf("finished job %+v", j)
		}
		if got := jobBalance(t, h, u.User.ID); got != 10 {
			t.Fatalf("balance %v, want 10 (two runs of 5)", got)
		}
		var res struct {
			Items []jobResult
			Total int
		}
		h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/jobs/"+j.ID+"/results", nil).Want(t, 200, "").JSON(t, &res)
		if res.Total != 3 || len(res.Items) != 3 {
			t.Fatalf("results %+v", res)
		}
		for _, r := range res.Items {
			switch r.HostID {
			case off.ID:
				if r.State != "skipped" || r.Error != "host_offline" || r.Charged != 0 {
					t.Fatalf("offline host's run %+v", r)
				}
			default:
				if r.State != "succeeded" || r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout != "hi\n" || r.Charged != 5 {
					t.Fatalf("run %+v", r)
				}
			}
		}
		var out struct {
			Stdout string `json:"stdout"`
		}
		c.Do("GET", "/v1/api/jobs/"+j.ID+"/results/"+a+"/output", nil).Want(t, 200, "").JSON(t, &out)
		if out.Stdout != "hi\n" {
			t.Fatalf("output %+v", out)
		}
		c.Do("GET", "/v1/api/jobs/"+j.ID+"/results/"+off.ID+"/output", nil).Want(t, 404, "not_found")
		c.Do("POST", "/v1/api/jobs/"+j.ID+"/cancel", nil).Want(t, 409, "job_finished")

		// Another user sees none of it.
		oc := h.Client(t).As(otherKey)
		for _, p := range []string{"", "/results", "/results/" + a + "/output"} {
			oc.Do("GET", "/v1/api/jobs/"+j.ID+p, nil).Want(t, 404, "not_found")
		}
		oc.Do("POST", "/v1/api/jobs/"+j.ID+"/cancel", nil).Want(t, 404, "not_found")
		oc.Do("POST", "/v1/api/jobs/"+j.ID+"/retry", nil).Want(t, 404, "not_found")
		oc.Do("GET", "/v1/api/jobs/"+j.ID+"/events", nil).Want(t, 404, "not_found")

		// A non-zero exit fails the run; retry of the failed ones.
		var f jobView
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": map[string]any{"host_ids": []string{a}}, "operation": shellOp("exit 3")}).
			Want(t, 201, "").JSON(t, &f)
		f = waitJob(t, c, "/v1/api", f.ID, func(j jobView) bool { return j.FinishedAt != nil })
		c.Do("GET", "/v1/api/jobs/"+f.ID+"/results?state=failed", nil).Want(t, 200, "").JSON(t, &res)
		if f.Totals["failed"] != 1 || len(res.Items) != 1 || res.Items[0].Error != "nonzero_exit" || *res.Items[0].ExitCode != 3 {
			t.Fatalf("failed job %+v results %+v", f, res)
		}
		var r jobView
		c.Do("POST", "/v1/api/jobs/"+f.ID+"/retry", map[string]any{"states": []string{"failed"}}).Want(t, 201, "").JSON(t, &r)
		if r.RetryOf == nil || *r.RetryOf != f.ID || r.HostCount != 1 {
			t.Fatalf("retry %+v", r)
		}
		c.Do("POST", "/v1/api/jobs/"+j.ID+"/retry", map[string]any{"states": []string{"expired"}}).Want(t, 400, "empty_target")
		waitJob(t, c, "/v1/api", r.ID, func(j jobView) bool { return j.FinishedAt != nil })

		// Cancel stops a run queued for an offline host; nothing charged.
		before := jobBalance(t, h, u.User.ID)
		var q jobView
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/jobs", map[string]any{"target": map[string]any{"host_ids": []string{off.ID}},
			"operation": shellOp("true"), "offline": "queue"}).Want(t, 201, "").JSON(t, &q)
		time.Sleep(300 * time.Millisecond) // let a driver park it
		c.Do("POST", "/v1/api/jobs/"+q.ID+"/cancel", nil).Want(t, 200, "").JSON(t, &q)
		if q.State != "canceled" || q.Totals["canceled"] != 1 || q.FinishedAt == nil || q.StopReason != "canceled" {
			t.Fatalf("canceled job %+v", q)
		}
		c.Do("POST", "/v1/api/jobs/"+q.ID+"/cancel", nil).Want(t, 200, "")
		if got := jobBalance(t, h, u.User.ID); got != before {
			t.Fatalf("cancel charged: %v → %v", before, got)
		}
		c.Do("GET", "/v1/api/jobs?state=canceled", nil).Want(t, 200, "").JSON(t, &list)
		if list.Total != 1 {
			t.Fatalf("canceled jobs %d", list.Total)
		}
		_ = fmt.Sprint()
	})
}

// TestJobsQueueAndWaves: a run queued for an offline host runs once the
// host connects (charged once), another expires uncharged; a wave whose
// failures pass the threshold stops the job.
func TestJobsQueueAndWaves(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		c := h.Client(t).As(key)
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
			map[string]any{"tokens": 100, "reason": "jobs"}).Want(t, 200, "")
		on := h.ConnectAgent(t, u.User.ID, nil)
		late, creds, err := h.Hosts.Create(t.Context(), u.User.ID, "late", nil, true)
		if err != nil {
			t.Fatal(err)
		}
		never, _, err := h.Hosts.Create(t.Context(), u.User.ID, "never", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		var j jobView
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": map[string]any{"host_ids": []string{on, late.ID, never.ID}},
			"operation": shellOp("echo hi"), "offline": "queue", "expires_in_s": 60}).Want(t, 201, "").JSON(t, &j)
		waitJob(t, c, "/v1/api", j.ID, func(j jobView) bool { return j.Totals["succeeded"] == 1 && j.Totals["queued"] == 2 })
		h.RunAgent(t, *creds, nil)
		j = waitJob(t, c, "/v1/api", j.ID, func(j jobView) bool { return j.Totals["succeeded"] == 2 })
		if j.Totals["queued"] != 1 || j.Charged != 10 || jobBalance(t, h, u.User.ID) != 90 {
			t.Fatalf("after the late host: %+v, balance %v", j, jobBalance(t, h, u.User.ID))
		}

		// Failures over the threshold after the first wave stop the job.
		var w jobView
		c.Do("POST", "/v1/api/jobs", map[string]any{"target": map[string]any{"host_ids": []string{on, late.ID, never.ID}},
			"operation": shellOp("exit 1"), "waves": map[string]any{"size": 1, "stop_if_failed_pct": 0}}).Want(t, 201, "").JSON(t, &w)
		w = waitJob(t, c, "/v1/api", w.ID, func(j jobView) bool { return j.FinishedAt != nil })
		if w.State != "finished" || w.StopReason != "failure_threshold" || w.Totals["failed"] != 1 || w.Totals["canceled"] != 2 || w.Charged != 5 {
			t.Fatalf("threshold job %+v", w)
		}
		var res struct{ Items []jobResult }
		c.Do("GET", "/v1/api/jobs/"+w.ID+"/results?state=canceled", nil).Want(t, 200, "").JSON(t, &res)
		if len(res.Items) != 2 || res.Items[0].Error != "job_stopped" {
			t.Fatalf("stopped runs %+v", res.Items)
		}
	})
}
