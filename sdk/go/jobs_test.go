package hostgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// jobsHub is a fake hub of the job, tag, filter and schedule routes: it
// records each request and answers from answer.
type jobsHub struct {
	mu     sync.Mutex
	reqs   []string // "METHOD path?query body"
	answer func(r *http.Request, body string) (int, string)
	srv    *httptest.Server
}

func newJobsHub(t *testing.T, answer func(r *http.Request, body string) (int, string)) (*jobsHub, *Client) {
	h := &jobsHub{answer: answer}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.reqs = append(h.reqs, strings.TrimSpace(r.Method+" "+r.URL.RequestURI()+" "+string(b)))
		h.mu.Unlock()
		status, out := 200, "{}"
		if h.answer != nil {
			status, out = h.answer(r, string(b))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, out)
	}))
	t.Cleanup(h.srv.Close)
	return h, New(h.srv.URL, "ak_x.y")
}

func (h *jobsHub) last() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reqs[len(h.reqs)-1]
}

func TestJobRequests(t *testing.T) {
	h, c := newJobsHub(t, nil)
	ctx := context.Background()
	pct := 20
	cases := []struct {
		call func() error
		want string
	}{
		{func() error {
			_, err := c.CreateJob(ctx, JobRequest{Target: JobTarget{Tags: []string{"env=prod"}}, Operation: ShellOperation("/bin/sh", "-c uptime", 30),
				Offline: "queue", ExpiresInS: 600, Concurrency: 5, Waves: &JobWaves{Size: 10, PauseS: 30, StopIfFailedPct: &pct}})
			return err
		}, `POST /v1/api/jobs {"target":{"tags":["env=prod"]},"operation":{"controls":8192,"path":"/bin/sh","data":{"args":"-c uptime","timeout_s":30}},"offline":"queue","expires_in_s":600,"concurrency":5,"waves":{"size":10,"pause_s":30,"stop_if_failed_pct":20}}`},
		{func() error {
			_, err := c.DryRunJob(ctx, JobRequest{Target: JobTarget{HostIDs: []string{"h1"}}, Operation: JobOperation{Controls: CtlSystemInfo}})
			return err
		}, `POST /v1/api/jobs {"target":{"host_ids":["h1"]},"operation":{"controls":16777216},"dry_run":true}`},
		{func() error { _, err := c.GetJob(ctx, "j/1"); return err }, `GET /v1/api/jobs/j%2F1`},
		{func() error { _, err := c.ListJobs(ctx, "running", 10, 20); return err }, `GET /v1/api/jobs?limit=10&offset=20&state=running`},
		{func() error { _, err := c.ListJobs(ctx, "", 0, 0); return err }, `GET /v1/api/jobs`},
		{func() error { _, err := c.ListJobs(ctx, "running", 10, 0, "AQx"); return err }, `GET /v1/api/jobs?cursor=AQx&limit=10&state=running`},
		{func() error { _, err := c.ListJobResults(ctx, "j1", "", 5, 0, "AQy"); return err }, `GET /v1/api/jobs/j1/results?cursor=AQy&limit=5`},
		{func() error { _, err := c.ScheduleRuns(ctx, "s1", 3, 0, "AQz"); return err }, `GET /v1/api/schedules/s1/runs?cursor=AQz&limit=3`},
		{func() error { _, err := c.ListUserWebhookDeliveries(ctx, 5, 0, "AQw"); return err }, `GET /v1/api/webhook-deliveries?cursor=AQw&limit=5`},
		{func() error { _, err := c.SearchHosts(ctx, FilterQuery{Status: "online"}, "", 2, 0, "AQv"); return err }, `GET /v1/api/hosts?cursor=AQv&limit=2&status=online`},
		{func() error { _, err := c.CancelJob(ctx, "j1"); return err }, `POST /v1/api/jobs/j1/cancel`},
		{func() error { _, err := c.RetryJob(ctx, "j1", nil); return err }, `POST /v1/api/jobs/j1/retry`},
		{func() error { _, err := c.RetryJob(ctx, "j1", []string{"failed", "expired"}); return err }, `POST /v1/api/jobs/j1/retry {"states":["failed","expired"]}`},
		{func() error { _, err := c.ListJobResults(ctx, "j1", "failed", 5, 0); return err }, `GET /v1/api/jobs/j1/results?limit=5&state=failed`},
		{func() error { _, err := c.JobOutput(ctx, "j1", "h1"); return err }, `GET /v1/api/jobs/j1/results/h1/output`},
		{func() error { _, err := c.SetTags(ctx, "h1", map[string]string{"env": "prod", "role": ""}); return err }, `PUT /v1/api/hosts/h1/tags {"tags":{"env":"prod","role":""}}`},
		{func() error { _, err := c.SetTags(ctx, "h1", nil); return err }, `PUT /v1/api/hosts/h1/tags {"tags":{}}`},
		{func() error {
			_, err := c.UpdateTags(ctx, []string{"h1", "h2"}, map[string]string{"env": "prod"}, []string{"old"})
			return err
		}, `POST /v1/api/hosts/tags {"add":{"env":"prod"},"host_ids":["h1","h2"],"remove":["old"]}`},
		{func() error {
			on := true
			_, err := c.SearchHosts(ctx, FilterQuery{Tags: []string{"env=prod", "role"}, Online: &on, OS: "linux"}, "f1", 0, 10)
			return err
		}, `GET /v1/api/hosts?filter_id=f1&limit=50&offset=10&online=true&os=linux&tag=env%3Dprod&tag=role`},
		{func() error { _, err := c.GetFilter(ctx, "f1"); return err }, `GET /v1/api/filters/f1`},
		{func() error {
			_, err := c.CreateFilter(ctx, "prod", FilterQuery{Tags: []string{"env=prod"}, Status: "active"})
			return err
		}, `POST /v1/api/filters {"name":"prod","query":{"status":"active","tags":["env=prod"]}}`},
		{func() error { _, err := c.UpdateFilter(ctx, "f1", "renamed", nil); return err }, `PATCH /v1/api/filters/f1 {"name":"renamed"}`},
		{func() error { return c.DeleteFilter(ctx, "f1") }, `DELETE /v1/api/filters/f1`},
		{func() error {
			_, err := c.CreateSchedule(ctx, ScheduleRequest{Name: "nightly", Cron: "0 3 * * *", Timezone: "Europe/Berlin",
				Job: JobRequest{Target: JobTarget{FilterID: "f1"}, Operation: ShellOperation("/bin/sh", "-c true", 0)}})
			return err
		}, `POST /v1/api/schedules {"name":"nightly","job":{"target":{"filter_id":"f1"},"operation":{"controls":8192,"path":"/bin/sh","data":{"args":"-c true"}}},"cron":"0 3 * * *","timezone":"Europe/Berlin"}`},
		{func() error { _, err := c.GetSchedule(ctx, "s1"); return err }, `GET /v1/api/schedules/s1`},
		{func() error {
			_, err := c.UpdateSchedule(ctx, "s1", ScheduleUpdate{Cron: "*/5 * * * *", Timezone: "UTC"})
			return err
		}, `PATCH /v1/api/schedules/s1 {"cron":"*/5 * * * *","timezone":"UTC"}`},
		{func() error { _, err := c.PauseSchedule(ctx, "s1"); return err }, `POST /v1/api/schedules/s1/pause`},
		{func() error { _, err := c.ResumeSchedule(ctx, "s1"); return err }, `POST /v1/api/schedules/s1/resume`},
		{func() error { return c.DeleteSchedule(ctx, "s1") }, `DELETE /v1/api/schedules/s1`},
		{func() error { _, err := c.ScheduleRuns(ctx, "s1", 3, 0); return err }, `GET /v1/api/schedules/s1/runs?limit=3`},
		{func() error { _, err := c.GetWebhookSecret(ctx); return err }, `GET /v1/api/webhook-secret`},
		{func() error { _, err := c.RotateWebhookSecret(ctx); return err }, `POST /v1/api/webhook-secret/rotate`},
		{func() error { _, err := c.ListUserWebhookDeliveries(ctx, 5, 10); return err }, `GET /v1/api/webhook-deliveries?limit=5&offset=10`},
		{func() error { _, err := c.ListUserWebhookDeliveries(ctx, 0, 0); return err }, `GET /v1/api/webhook-deliveries`},
		{func() error { _, err := c.RetryUserWebhookDelivery(ctx, "d/1"); return err }, `POST /v1/api/webhook-deliveries/d%2F1/retry`},
	}
	for _, tc := range cases {
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.want, err)
		}
		if got := h.last(); got != tc.want {
			t.Errorf("sent  %s\nwant  %s", got, tc.want)
		}
	}
}

// pagedAnswer serves n items, {"i": k}, in pages as the hub does.
func pagedAnswer(n int) func(r *http.Request, _ string) (int, string) {
	return func(r *http.Request, _ string) (int, string) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		var items []string
		for i := offset; i < min(n, offset+limit); i++ {
			items = append(items, fmt.Sprintf(`{"host_id":"h%d","key":"k%d"}`, i, i))
		}
		return 200, fmt.Sprintf(`{"items":[%s],"total":%d,"limit":%d,"offset":%d}`, strings.Join(items, ","), n, limit, offset)
	}
}

// cursorAnswer serves n items in pages by cursor as the hub does: a
// next_cursor while items follow, none on the last page.
func cursorAnswer(n int) func(r *http.Request, _ string) (int, string) {
	return func(r *http.Request, _ string) (int, string) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from := 0
		if c := r.URL.Query().Get("cursor"); c != "" {
			from, _ = strconv.Atoi(strings.TrimPrefix(c, "after-"))
			from++
		}
		var items []string
		for i := from; i < min(n, from+limit); i++ {
			items = append(items, fmt.Sprintf(`{"id":"h%d","host_id":"h%d"}`, i, i))
		}
		next := ""
		if from+limit < n {
			next = fmt.Sprintf(`,"next_cursor":"after-%d"`, from+limit-1)
		}
		return 200, fmt.Sprintf(`{"items":[%s],"total":%d,"limit":%d,"offset":0%s}`, strings.Join(items, ","), n, limit, next)
	}
}

// TestIteratorsFollowCursors: AllHosts and JobResults walk a list that
// answers next_cursor by it, each item once, and stop on the page without.
func TestIteratorsFollowCursors(t *testing.T) {
	h, c := newJobsHub(t, cursorAnswer(401))
	var ids []string
	for hst, err := range c.AllHosts(context.Background(), FilterQuery{Status: "online"}, "") {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, hst.ID)
	}
	if len(ids) != 401 || ids[0] != "h0" || ids[200] != "h200" || ids[400] != "h400" {
		t.Fatalf("%d hosts: %v…", len(ids), ids[:min(3, len(ids))])
	}
	h.mu.Lock()
	reqs := strings.Join(h.reqs, "\n")
	h.mu.Unlock()
	if want := "GET /v1/api/hosts?limit=200&status=online\nGET /v1/api/hosts?cursor=after-199&limit=200&status=online\nGET /v1/api/hosts?cursor=after-399&limit=200&status=online"; reqs != want {
		t.Fatalf("requests\n%s\nwant\n%s", reqs, want)
	}
	_, c = newJobsHub(t, cursorAnswer(400))
	n := 0
	for _, err := range c.JobResults(context.Background(), "j1", "") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 400 {
		t.Fatalf("%d results, want 400", n)
	}
}

func TestJobResultsIteratesOverPages(t *testing.T) {
	h, c := newJobsHub(t, pagedAnswer(450))
	var ids []string
	for r, err := range c.JobResults(context.Background(), "j1", "failed") {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.HostID)
	}
	if len(ids) != 450 || ids[0] != "h0" || ids[449] != "h449" {
		t.Fatalf("%d results, first %v", len(ids), ids[:1])
	}
	h.mu.Lock()
	reqs := strings.Join(h.reqs, "\n")
	h.mu.Unlock()
	if want := "GET /v1/api/jobs/j1/results?limit=200&state=failed\nGET /v1/api/jobs/j1/results?limit=200&offset=200&state=failed\nGET /v1/api/jobs/j1/results?limit=200&offset=400&state=failed"; reqs != want {
		t.Fatalf("requests\n%s\nwant\n%s", reqs, want)
	}

	// Breaking out stops fetching; an error is yielded and ends it.
	_, c = newJobsHub(t, func(*http.Request, string) (int, string) {
		return 404, `{"error":"not_found","message":"job not found"}`
	})
	n := 0
	for _, err := range c.JobResults(context.Background(), "nope", "") {
		n++
		if !IsNotFound(err) {
			t.Fatalf("err %v", err)
		}
	}
	if n != 1 {
		t.Fatalf("%d yields", n)
	}

	_, c = newJobsHub(t, pagedAnswer(3))
	tags, err := c.ListTags(context.Background())
	if err != nil || len(tags) != 3 || tags[2].Key != "k2" {
		t.Fatalf("tags %+v %v", tags, err)
	}
}

func TestWaitJob(t *testing.T) {
	defer func(old [2]time.Duration) { jobPollInterval = old }(jobPollInterval)
	jobPollInterval = [2]time.Duration{time.Millisecond, 5 * time.Millisecond}
	polls := 0
	var mu sync.Mutex
	_, c := newJobsHub(t, func(*http.Request, string) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if polls++; polls < 3 {
			return 200, `{"id":"j1","state":"running","host_count":2,"totals":{"running":2}}`
		}
		return 200, `{"id":"j1","state":"finished","host_count":2,"totals":{"succeeded":2},"finished_at":"2026-01-01T00:00:00Z"}`
	})
	j, err := c.WaitJob(context.Background(), "j1", time.Minute)
	if err != nil || !j.Final() || !j.Succeeded() || polls != 3 {
		t.Fatalf("%+v %v after %d polls", j, err, polls)
	}

	// A canceled job whose runs are still running is not final yet.
	if (Job{State: "canceled"}).Final() {
		t.Fatal("canceled without finished_at is final")
	}

	_, c = newJobsHub(t, func(*http.Request, string) (int, string) {
		return 200, `{"id":"j2","state":"running","host_count":1,"totals":{"running":1}}`
	})
	j, err = c.WaitJob(context.Background(), "j2", 30*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || j.ID != "j2" || j.State != "running" {
		t.Fatalf("timeout: %+v %v", j, err)
	}
}

func TestJobDecodes(t *testing.T) {
	_, c := newJobsHub(t, func(*http.Request, string) (int, string) {
		return 201, `{"id":"j1","name":"n","state":"running","host_count":3,"totals":{"queued":1,"running":1,"succeeded":1,"failed":0,"skipped":0,"expired":0,"canceled":0},
		"target":{"tags":["env=prod"]},"operation":{"controls":8192,"path":"/bin/sh","data":{"args":"-c true"}},"offline":"skip","concurrency":50,
		"expires_at":"2026-01-01T01:00:00Z","waves":null,"wave":1,"stop_reason":"","notify_url":"","retry_of":null,"schedule_id":null,"charged":1.5,
		"created_at":"2026-01-01T00:00:00Z","finished_at":null}`
	})
	j, err := c.CreateJob(context.Background(), JobRequest{})
	if err != nil || j.HostCount != 3 || j.Totals.Queued != 1 || j.Charged != 1.5 || j.Target.Tags[0] != "env=prod" ||
		string(j.Operation.Data) != `{"args":"-c true"}` || j.Final() || j.FinishedAt != nil {
		t.Fatalf("%+v %v", j, err)
	}
	b, _ := json.Marshal(j)
	if !strings.Contains(string(b), `"totals":{"queued":1,`) {
		t.Fatalf("re-encoded %s", b)
	}
}

// The job.finished vector, shared with the Python and TypeScript SDKs'
// tests (a Format A envelope signed with the user's webhook secret).
const (
	jobFinishedSecret   = "whsec_3f9a1c7e5b2d4086a1e3c5b7d9f02468"
	jobFinishedDelivery = "5b0e4c2a-9f1d-4e8b-a3c7-6d2f1e0b9a84"
	jobFinishedBody     = `{"id":"5b0e4c2a-9f1d-4e8b-a3c7-6d2f1e0b9a84","type":"job.finished","created_at":"2026-01-01T12:00:00Z","data":{"id":"7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f","name":"uptime","state":"finished","host_count":2,"totals":{"queued":0,"running":0,"succeeded":1,"failed":1,"skipped":0,"expired":0,"canceled":0},"charged":2,"created_at":"2026-01-01T11:59:00Z","finished_at":"2026-01-01T12:00:00Z"}}`
	jobFinishedSig      = "t=1767268830,v1=c98b0d6706720d2a6d997373df9c233dbcc8b765c9f261a5447f0522ffde09ac"
)

func jobFinishedHeader() http.Header {
	return http.Header{
		"Content-Type":        {"application/json"},
		"X-Gateway-Event":     {"job.finished"},
		"X-Gateway-Delivery":  {jobFinishedDelivery},
		"X-Gateway-Signature": {jobFinishedSig},
	}
}

func TestVerifyJobFinished(t *testing.T) {
	if got := "t=1767268830,v1=" + independentMAC(jobFinishedSecret, goldenT, jobFinishedBody); got != jobFinishedSig {
		t.Fatalf("vector signature %s", got)
	}
	ev, err := VerifyWebhook(jobFinishedHeader(), []byte(jobFinishedBody), jobFinishedSecret, clockAt(goldenT+10))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Format != "A" || ev.Event != WebhookEventJobFinished || ev.DeliveryID != jobFinishedDelivery || ev.HostID != "" || ev.NewSecretKey != "" {
		t.Fatalf("event %+v", ev)
	}
	j, err := ev.Job()
	if err != nil || j.ID != "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f" || j.Totals.Succeeded != 1 || j.Totals.Failed != 1 || !j.Final() || j.Succeeded() {
		t.Fatalf("job %+v %v", j, err)
	}

	for name, c := range map[string]struct {
		header func(http.Header)
		body   string
		secret string
		reason string
	}{
		"tampered":          {nil, jobFinishedBody + " ", jobFinishedSecret, "signature"},
		"wrong secret":      {nil, jobFinishedBody, "whsec_other", "signature"},
		"event mismatch":    {func(h http.Header) { h.Set("X-Gateway-Event", "job.started") }, jobFinishedBody, jobFinishedSecret, "malformed"},
		"delivery mismatch": {func(h http.Header) { h.Set("X-Gateway-Delivery", "other") }, jobFinishedBody, jobFinishedSecret, "malformed"},
	} {
		h := jobFinishedHeader()
		if c.header != nil {
			c.header(h)
		}
		_, err := VerifyWebhook(h, []byte(c.body), c.secret, clockAt(goldenT))
		ve, ok := errors.AsType[*WebhookVerificationError](err)
		if !ok || ve.Reason != c.reason || !errors.Is(err, ErrWebhookVerification) {
			t.Errorf("%s: %v, want %s", name, err, c.reason)
		}
	}
	if _, err := VerifyWebhook(jobFinishedHeader(), []byte(jobFinishedBody), jobFinishedSecret, clockAt(goldenT+301)); err == nil {
		t.Error("stale accepted")
	}
	// A host event has no job.
	ev, err = VerifyWebhook(goldenHeaderA(), []byte(goldenBodyA), goldenOldSecret, clockAt(goldenT))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Job(); err == nil {
		t.Error("a host event decoded as a job")
	}
}
