package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

const (
	jobID    = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
	hostID2  = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	filterID = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
)

// jobsFake answers the job, tag, filter, schedule and webhook-secret
// routes: each GET of the job gives the next of polls (the last again
// when they run out).
type jobsFake struct {
	mu      sync.Mutex
	polls   []map[string]any
	results []map[string]any
	bodies  map[string]map[string]any // "METHOD path" → body sent
}

func jobObject(state string, succeeded, failed, running int, final bool) map[string]any {
	j := map[string]any{"id": jobID, "name": "", "state": state, "host_count": 2,
		"totals":    map[string]int{"succeeded": succeeded, "failed": failed, "running": running, "queued": 2 - succeeded - failed - running},
		"target":    map[string]any{"tags": []string{"env=prod"}},
		"operation": map[string]any{"controls": 8192, "path": "uptime", "data": map[string]any{"args": ""}},
		"offline":   "skip", "concurrency": 50, "expires_at": "2026-01-01T01:00:00Z", "waves": nil, "wave": 1,
		"stop_reason": "", "notify_url": "", "retry_of": nil, "schedule_id": nil, "charged": succeeded + failed,
		"created_at": "2026-01-01T00:00:00Z", "finished_at": nil}
	if final {
		j["finished_at"] = "2026-01-01T00:01:00Z"
	}
	return j
}

func withJobs(t *testing.T, f *fakeHub, jf *jobsFake) {
	jf.bodies = map[string]map[string]any{}
	f.set(func() {
		f.routes = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
			jf.mu.Lock()
			defer jf.mu.Unlock()
			jf.bodies[r.Method+" "+r.URL.Path] = body
			p := r.URL.Path
			switch {
			case r.Method == "POST" && p == "/v1/api/jobs" && body["dry_run"] == true:
				writeJSON(w, 200, map[string]any{"host_count": 2, "host_ids": []string{hostID, hostID2}, "host_ids_truncated": false, "max_cost": 2})
			case r.Method == "POST" && (p == "/v1/api/jobs" || p == "/v1/api/jobs/"+jobID+"/retry"):
				writeJSON(w, 201, jf.polls[0])
			case r.Method == "GET" && p == "/v1/api/jobs/"+jobID:
				j := jf.polls[0]
				if len(jf.polls) > 1 {
					jf.polls = jf.polls[1:]
				}
				writeJSON(w, 200, j)
			case r.Method == "POST" && p == "/v1/api/jobs/"+jobID+"/cancel":
				writeJSON(w, 200, jobObject("canceled", 0, 0, 0, true))
			case p == "/v1/api/jobs/"+jobID+"/results":
				writeJSON(w, 200, map[string]any{"items": jf.results, "total": len(jf.results), "limit": 200, "offset": 0})
			case p == "/v1/api/jobs/"+jobID+"/results/"+hostID+"/output":
				writeJSON(w, 200, map[string]any{"host_id": hostID, "exit_code": 0, "stdout": "full out\n", "stderr": "full err\n"})
			case r.Method == "GET" && p == "/v1/api/jobs":
				writeJSON(w, 200, map[string]any{"items": []any{jobObject("finished", 2, 0, 0, true)}, "total": 3, "limit": 1, "offset": 0})
			case r.Method == "PUT" && p == "/v1/api/hosts/"+hostID+"/tags":
				writeJSON(w, 200, map[string]any{"host_id": hostID, "tags": body["tags"]})
			case p == "/v1/api/hosts/tags":
				writeJSON(w, 200, map[string]any{"updated": len(body["host_ids"].([]any))})
			case p == "/v1/api/tags":
				writeJSON(w, 200, map[string]any{"items": []any{map[string]any{"key": "env", "value": "prod", "host_count": 2}}, "total": 1})
			case r.Method == "GET" && p == "/v1/api/filters":
				writeJSON(w, 200, map[string]any{"items": []any{map[string]any{"id": filterID, "name": "prod", "query": map[string]any{"tags": []string{"env=prod"}}}}, "total": 1})
			case r.Method == "POST" && p == "/v1/api/filters":
				writeJSON(w, 201, map[string]any{"id": filterID, "name": body["name"], "query": body["query"]})
			case r.Method == "DELETE" && strings.HasPrefix(p, "/v1/api/filters/"), r.Method == "DELETE" && strings.HasPrefix(p, "/v1/api/schedules/"):
				w.WriteHeader(204)
			case r.Method == "POST" && p == "/v1/api/schedules":
				writeJSON(w, 201, map[string]any{"id": "s1", "name": body["name"], "job": body["job"], "cron": body["cron"], "timezone": body["timezone"],
					"paused": false, "next_run_at": "2026-01-02T02:00:00Z"})
			case strings.HasPrefix(p, "/v1/api/schedules/s1/"):
				if strings.HasSuffix(p, "/runs") {
					writeJSON(w, 200, map[string]any{"items": []any{map[string]any{"at": "2026-01-01T02:00:00Z", "job_id": jobID, "error": "", "message": ""}}, "total": 1})
				} else {
					writeJSON(w, 200, map[string]any{"id": "s1", "name": "n", "cron": "0 3 * * *", "timezone": "UTC", "paused": strings.HasSuffix(p, "/pause")})
				}
			case p == "/v1/api/webhook-secret/rotate":
				writeJSON(w, 200, map[string]any{"secret": "whsec_new", "created_at": "2026-01-01T00:00:00Z"})
			default:
				return false
			}
			return true
		}
	})
}

func (jf *jobsFake) sent(call string) map[string]any {
	jf.mu.Lock()
	defer jf.mu.Unlock()
	return jf.bodies[call]
}

func TestCLIJobsRunFollow(t *testing.T) {
	f := newFakeHub(t)
	jf := &jobsFake{
		polls: []map[string]any{jobObject("running", 0, 0, 2, false), jobObject("running", 1, 0, 1, false), jobObject("finished", 2, 0, 0, true)},
		results: []map[string]any{
			{"host_id": hostID, "host_name": "web-1", "state": "succeeded", "exit_code": 0, "stdout": " 12:00 up 3 days\n", "stderr": ""},
			{"host_id": hostID2, "host_name": "web-2", "state": "succeeded", "exit_code": 0, "stdout": "", "stderr": "only err\n"},
		},
	}
	withJobs(t, f, jf)
	r := f.cli(t, "jobs", "run", "--tag", "env=prod", "--tag", "role", "--offline", "queue", "--expires", "10m", "--concurrency", "5",
		"--wave-size", "1", "--wave-pause", "30s", "--stop-if-failed", "20", "--follow", "--interval", "1ms", "--", "uptime", "-p")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	body := jf.sent("POST /v1/api/jobs")
	want := `{"concurrency":5,"expires_in_s":600,"offline":"queue","operation":{"controls":8192,"data":{"args":"-p"},"path":"uptime"},"target":{"tags":["env=prod","role"]},"waves":{"pause_s":30,"size":1,"stop_if_failed_pct":20}}`
	if got := jsonString(body); got != want {
		t.Fatalf("sent %s\nwant %s", got, want)
	}
	// Plain count lines (stderr is not a terminal), one per change.
	for _, line := range []string{"running 0/2 done: 0 succeeded, 0 failed, 0 skipped, 0 expired, 0 canceled; 2 running, 0 queued\n",
		"running 1/2 done: 1 succeeded", "finished 2/2 done: 2 succeeded"} {
		if strings.Count(r.stderr, line) != 1 {
			t.Errorf("stderr lacks %q once:\n%s", line, r.stderr)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "HOST ") || !strings.Contains(lines[1], "12:00 up 3 days") ||
		!strings.Contains(lines[2], "only err") || !strings.Contains(lines[1], " succeeded ") {
		t.Fatalf("results table:\n%s", r.stdout)
	}

	// One host failed: exit 3, and --json gives the job and results.
	jf.mu.Lock()
	jf.polls = []map[string]any{jobObject("finished", 1, 1, 0, true)}
	jf.results[1] = map[string]any{"host_id": hostID2, "state": "failed", "exit_code": 2, "error": "nonzero_exit"}
	jf.mu.Unlock()
	r = f.cli(t, "--json", "jobs", "run", "--host", hostName, "--host", hostID2, "--follow", "--", "/bin/sh", "-c", "exit $((RANDOM%2))")
	var out struct {
		Job     map[string]any   `json:"job"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != exitJobIncomplete || len(out.Results) != 2 || out.Job["id"] != jobID {
		t.Fatalf("exit %d %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	body = jf.sent("POST /v1/api/jobs")
	if jsonString(body["target"]) != `{"host_ids":["`+hostID+`","`+hostID2+`"]}` ||
		jsonString(body["operation"]) != `{"controls":8192,"data":{"args":"-c 'exit $((RANDOM%2))'"},"path":"/bin/sh"}` {
		t.Fatalf("sent %s", jsonString(body))
	}
	if r.stderr != "" {
		t.Fatalf("--json stderr %q", r.stderr)
	}

	// On a terminal the count line is rewritten in place.
	jf.mu.Lock()
	jf.polls = []map[string]any{jobObject("running", 0, 0, 2, false), jobObject("finished", 2, 0, 0, true)}
	jf.results[1] = jf.results[0]
	jf.mu.Unlock()
	e, o, eb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": testKey}, "")
	e.stderrTerminal = func() bool { return true }
	r = runEnv(t, e, o, eb, "jobs", "run", "--filter", "prod", "--follow", "--interval", "1ms", "--", "true")
	if r.code != 0 || !strings.Contains(r.stderr, "\r\x1b[Krunning 0/2") || !strings.Contains(r.stderr, "\r\x1b[Kfinished 2/2") {
		t.Fatalf("tty: exit %d %q", r.code, r.stderr)
	}
	if jsonString(jf.sent("POST /v1/api/jobs")["target"]) != `{"filter_id":"`+filterID+`"}` {
		t.Fatalf("filter by name: %v", jf.sent("POST /v1/api/jobs"))
	}
}

func TestCLIJobsRunWithoutFollow(t *testing.T) {
	f := newFakeHub(t)
	jf := &jobsFake{polls: []map[string]any{jobObject("running", 0, 0, 2, false)}}
	withJobs(t, f, jf)
	r := f.cli(t, "jobs", "run", "--tag", "env=prod", "--raw", `{"controls":16777216}`)
	if r.code != 0 || !strings.Contains(r.stdout, "id:") || !strings.Contains(r.stdout, jobID) {
		t.Fatalf("exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := jsonString(jf.sent("POST /v1/api/jobs")["operation"]); got != `{"controls":16777216}` {
		t.Fatalf("raw operation %s", got)
	}
	r = f.cli(t, "--json", "jobs", "run", "--tag", "env=prod", "--dry-run", "--", "uptime")
	var d map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || r.code != 0 || d["host_count"] != 2.0 || d["max_cost"] != 2.0 {
		t.Fatalf("dry run: %d %s", r.code, r.stdout)
	}
	r = f.cli(t, "jobs", "run", "--tag", "env=prod", "--dry-run", "--", "uptime")
	if !strings.HasPrefix(r.stdout, "2 hosts; it can cost at most 2 tokens\n"+hostID) {
		t.Fatalf("dry run: %s", r.stdout)
	}
}

func TestCLIJobsUsageErrors(t *testing.T) {
	f := newFakeHub(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs"}, "jobs: missing subcommand"},
		{[]string{"jobs", "run", "--", "uptime"}, "--tag, --host or --filter"},
		{[]string{"jobs", "run", "--tag", "a", "--host", "b", "--", "uptime"}, "(one kind)"},
		{[]string{"jobs", "run", "--tag", "a"}, "missing PROGRAM"},
		{[]string{"jobs", "run", "--tag", "a", "--raw", "{}", "--", "x"}, "not both"},
		{[]string{"jobs", "run", "--tag", "a", "--raw", `{"controls":1,"bogus":2}`}, "--raw is the operation"},
		{[]string{"jobs", "run", "--tag", "a", "--offline", "wait", "--", "x"}, "skip or queue"},
		{[]string{"jobs", "run", "--tag", "a", "--expires", "10s", "--", "x"}, "--expires"},
		{[]string{"jobs", "run", "--tag", "a", "--stop-if-failed", "5", "--", "x"}, "need --wave-size"},
		{[]string{"jobs", "run", "--tag", "a", "--concurrency", "0", "--", "x"}, "--concurrency"},
		{[]string{"jobs", "show"}, "usage: hostgate-cli jobs show JOB"},
		{[]string{"jobs", "list", "--limit", "500"}, "--limit must be 1-200"},
		{[]string{"tags", "add", "env=prod"}, "at least one --host"},
		{[]string{"filters", "create", "x", "--online", "maybe"}, "yes or no"},
		{[]string{"schedules", "create", "n", "--tag", "a", "--", "x"}, "--cron or --at"},
		{[]string{"schedules", "create", "n", "--at", "tomorrow", "--tag", "a", "--", "x"}, "RFC 3339"},
		{[]string{"webhook-secret", "frob"}, `unknown subcommand "frob"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := f.cli(t, c.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, c.want)
			}
		})
	}
}

func TestCLIJobsCommands(t *testing.T) {
	f := newFakeHub(t)
	jf := &jobsFake{
		polls:   []map[string]any{jobObject("finished", 1, 1, 0, true)},
		results: []map[string]any{{"host_id": hostID, "state": "failed", "exit_code": 1, "error": "nonzero_exit", "stdout": "héllo wörld " + strings.Repeat("é", 80)}},
	}
	withJobs(t, f, jf)
	r := f.cli(t, "jobs", "list", "--state", "finished", "--limit", "1")
	if r.code != 0 || !strings.Contains(r.stdout, jobID) || !strings.Contains(r.stderr, "1 of 3 jobs shown; --offset 1 for more") {
		t.Fatalf("list: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = f.cli(t, "--json", "jobs", "list")
	var page map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &page); err != nil || page["total"] != 3.0 {
		t.Fatalf("list --json: %s", r.stdout)
	}
	r = f.cli(t, "jobs", "show", jobID)
	if r.code != 0 || !strings.Contains(r.stdout, "finished 2/2 done: 1 succeeded, 1 failed") || !strings.Contains(r.stdout, "tags env=prod") {
		t.Fatalf("show: %s", r.stdout)
	}
	r = f.cli(t, "jobs", "wait", jobID)
	if r.code != exitJobIncomplete || !strings.Contains(r.stderr, "1 of 2 hosts succeeded") || !strings.Contains(r.stdout, "nonzero_exit") {
		t.Fatalf("wait: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "héllo wörld éé") || !strings.Contains(r.stdout, "...") {
		t.Fatalf("output cell: %s", r.stdout)
	}
	r = f.cli(t, "--json", "jobs", "cancel", jobID)
	if r.code != 0 || !strings.Contains(r.stdout, `"state": "canceled"`) {
		t.Fatalf("cancel: %s", r.stdout)
	}
	r = f.cli(t, "--json", "jobs", "retry", jobID, "--state", "failed", "--state", "expired")
	if r.code != 0 || jsonString(jf.sent("POST /v1/api/jobs/"+jobID+"/retry")) != `{"states":["failed","expired"]}` {
		t.Fatalf("retry: %d %s", r.code, r.stdout)
	}
	r = f.cli(t, "--json", "jobs", "results", jobID, "--state", "failed")
	var rs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rs); err != nil || len(rs) != 1 || rs[0]["error"] != "nonzero_exit" {
		t.Fatalf("results: %s", r.stdout)
	}
	r = f.cli(t, "jobs", "output", jobID, hostName)
	if r.code != 0 || r.stdout != "full out\n" || r.stderr != "full err\n" {
		t.Fatalf("output: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestCLITagsFiltersSchedules(t *testing.T) {
	f := newFakeHub(t)
	jf := &jobsFake{}
	withJobs(t, f, jf)
	r := f.cli(t, "tags", "set", hostName, "env=prod", "role")
	if r.code != 0 || r.stdout != hostID+" env=prod role=\n" {
		t.Fatalf("tags set: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = f.cli(t, "--json", "tags", "add", "env=prod", "tier=web", "--host", hostName, "--host", hostID2)
	if r.code != 0 || !strings.Contains(r.stdout, `"updated": 2`) ||
		jsonString(jf.sent("POST /v1/api/hosts/tags")) != `{"add":{"env":"prod","tier":"web"},"host_ids":["`+hostID+`","`+hostID2+`"]}` {
		t.Fatalf("tags add: %s %v", r.stdout, jf.sent("POST /v1/api/hosts/tags"))
	}
	r = f.cli(t, "tags", "remove", "tier", "--host", hostID)
	if r.code != 0 || jsonString(jf.sent("POST /v1/api/hosts/tags")) != `{"host_ids":["`+hostID+`"],"remove":["tier"]}` {
		t.Fatalf("tags remove: %s", r.stderr)
	}
	r = f.cli(t, "tags", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "env  prod   2") {
		t.Fatalf("tags list: %q", r.stdout)
	}

	r = f.cli(t, "filters", "create", "prod-web", "--tag", "env=prod", "--online", "yes", "--os", "linux")
	if r.code != 0 || jsonString(jf.sent("POST /v1/api/filters")) != `{"name":"prod-web","query":{"online":true,"os":"linux","tags":["env=prod"]}}` ||
		!strings.Contains(r.stdout, "--tag env=prod --os linux --online yes") {
		t.Fatalf("filters create: %s %v", r.stdout, jf.sent("POST /v1/api/filters"))
	}
	r = f.cli(t, "filters", "list")
	if r.code != 0 || !strings.Contains(r.stdout, filterID) {
		t.Fatalf("filters list: %s", r.stdout)
	}
	r = f.cli(t, "filters", "delete", "prod")
	if r.code != 0 || r.stdout != "deleted filter "+filterID+"\n" {
		t.Fatalf("filters delete: %q %q", r.stdout, r.stderr)
	}

	r = f.cli(t, "schedules", "create", "nightly", "--cron", "0 3 * * *", "--timezone", "Europe/Berlin", "--tag", "env=prod", "--offline", "queue", "--", "apt-get", "-qq", "update")
	want := `{"cron":"0 3 * * *","job":{"offline":"queue","operation":{"controls":8192,"data":{"args":"-qq update"},"path":"apt-get"},"target":{"tags":["env=prod"]}},"name":"nightly","timezone":"Europe/Berlin"}`
	if r.code != 0 || jsonString(jf.sent("POST /v1/api/schedules")) != want || !strings.Contains(r.stdout, "0 3 * * * (Europe/Berlin)") {
		t.Fatalf("schedules create: %d %s %s\n%s", r.code, r.stdout, r.stderr, jsonString(jf.sent("POST /v1/api/schedules")))
	}
	r = f.cli(t, "schedules", "pause", "s1")
	if r.code != 0 || !strings.Contains(r.stdout, "paused:       yes") {
		t.Fatalf("pause: %q", r.stdout)
	}
	r = f.cli(t, "schedules", "runs", "s1")
	if r.code != 0 || !strings.Contains(r.stdout, jobID) {
		t.Fatalf("runs: %s", r.stdout)
	}
	r = f.cli(t, "schedules", "delete", "s1")
	if r.code != 0 || r.stdout != "deleted schedule s1\n" {
		t.Fatalf("delete: %q", r.stdout)
	}
	// Several host names are looked up in one listing.
	f.set(func() { f.calls = nil })
	if r := f.cli(t, "tags", "add", "x=y", "--host", hostName, "--host", hostName, "--host", hostID2); r.code != 0 {
		t.Fatalf("tags add by names: %d %s", r.code, r.stderr)
	}
	f.mu.Lock()
	lists := 0
	for _, c := range f.calls {
		if c == "GET /v1/api/hosts" {
			lists++
		}
	}
	f.mu.Unlock()
	if lists != 1 {
		t.Fatalf("%d host listings for two names", lists)
	}

	r = f.cli(t, "webhook-secret", "rotate")
	if r.code != 0 || r.stdout != "whsec_new\n" || !strings.Contains(r.stderr, "shown only this once") {
		t.Fatalf("rotate: %q %q", r.stdout, r.stderr)
	}
}

func TestCLIHostsListFilters(t *testing.T) {
	f := newFakeHub(t)
	var query string
	f.set(func() {
		f.routes = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
			switch {
			case r.URL.Path == "/v1/api/filters":
				writeJSON(w, 200, map[string]any{"items": []any{map[string]any{"id": filterID, "name": "prod"}}, "total": 1})
			case r.URL.Path == "/v1/api/hosts" && r.URL.RawQuery != "":
				f.mu.Lock()
				query = r.URL.RawQuery
				f.mu.Unlock()
				writeJSON(w, 200, map[string]any{"items": []any{f.host()}, "total": 1, "limit": 200, "offset": 0})
			default:
				return false
			}
			return true
		}
	})
	r := f.cli(t, "hosts", "list", "--tag", "env=prod", "--filter", "prod", "--online", "yes")
	f.mu.Lock()
	got := query
	f.mu.Unlock()
	if r.code != 0 || !strings.Contains(r.stdout, hostName) || got != "filter_id="+filterID+"&limit=200&online=true&tag=env%3Dprod" {
		t.Fatalf("exit %d %s %s; query %q", r.code, r.stdout, r.stderr, got)
	}
	if r := f.cli(t, "hosts", "list", "--online", "maybe"); r.code != exitUsage {
		t.Fatalf("--online maybe: %d", r.code)
	}
}
