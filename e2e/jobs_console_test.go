package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"hostgate/internal/eventually"
)

// TestJobsConsole drives the console's tags and jobs pages (issue 26) with a
// real hub, real agents and Chromium, on both backends: tag two connected
// hosts from the hosts list's selection, tag a third (never connected) one
// from its row, filter the list by a tag and save the filter, run a command
// on the tag from the list, read the dry-run preview (host count, the most
// it can cost), confirm, and watch the results arrive host by host with
// their output; then run a failing command on a selection (one connected
// host, one offline), see it fail and skip, and retry the failed host;
// create a schedule, pause and resume it and open its history.
// Screenshots at 1366×800 and 390×844, in English and Chinese.
func TestJobsConsole(t *testing.T) {
	chromiumPath(t)
	requireConsoleBuilt(t)
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "scaled"}[scaled], func(t *testing.T) {
			jobsConsoleFlow(t, scaled)
		})
	}
}

// rowCount is the JavaScript number of rendered rows of a test id.
func rowCount(id string) string {
	return fmt.Sprintf(`document.querySelectorAll(%q).length`, tid(id))
}

func jobsConsoleFlow(t *testing.T, scaled bool) {
	began := time.Now()
	step := func(s string) { t.Logf("%6.1fs  %s", time.Since(began).Seconds(), s) }

	env := NewEnv(t, scaled)
	h := env.StartHub()
	requireHubServesConsole(t, h)

	// A user with three hosts: two with a running agent, one never installed.
	email := fmt.Sprintf("jobs-%s@example.com", randHex(6))
	const password = "jobs console password"
	var auth struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	if s := call(t, "POST", h.URL+"/v1/public/auth/register", "", map[string]string{"email": email, "password": password}, &auth); s != 200 {
		t.Fatalf("register: %d", s)
	}
	var key struct{ Secret string }
	if s := call(t, "POST", h.URL+"/v1/user/api-keys", auth.AccessToken, map[string]string{"name": "e2e"}, &key); s != 200 {
		t.Fatalf("create key: %d", s)
	}
	cust := Customer{t: t, UserID: auth.User.ID, Token: auth.AccessToken, Key: key.Secret}
	cust.Fund(h, 1000)
	web1 := cust.CreateHost(h, "web-1")
	web2 := cust.CreateHost(h, "web-2")
	db := cust.CreateHost(h, "db-1")
	env.StartAgent(web1, t.TempDir())
	env.StartAgent(web2, t.TempDir())
	eventually.True(t, 30*time.Second, "both agents connected", func() bool {
		return cust.Connected(h, web1.HostID) && cust.Connected(h, web2.HostID)
	})
	step("hub, user and two agents up")

	b := NewBrowser(t, h.URL, 240*time.Second)
	b.Open("/signin")
	b.Type("signin-email", email)
	b.Type("signin-password", password)
	b.Click("signin-submit")
	b.WaitPath(`^/hosts`, 15*time.Second)
	b.Poll(15*time.Second, "three host rows", rowCount("host-row")+` === 3`, rowCount("host-row"))
	row := func(id string) string { return fmt.Sprintf(`[data-testid="host-row"][data-host-id=%q]`, id) }

	// 1. Tag the two connected hosts at once: select them, "Add tags".
	b.ClickSel(row(web1.HostID) + ` .ant-checkbox-input`)
	b.ClickSel(row(web2.HostID) + ` .ant-checkbox-input`)
	b.WaitVisible("hosts-selection", 5*time.Second)
	b.Click("hosts-add-tags")
	b.TypeSel(tid("tags-bulk-input")+` input`, "env=e2e")
	b.run(5*time.Second, "enter the tag", chromedp.KeyEvent(kb.Enter))
	b.ClickSel(".ant-modal-title") // closes the Select's dropdown, which covers the dialog's buttons
	b.Click("tags-bulk-submit")
	tagged := func(hostID, tag string) string {
		return fmt.Sprintf(`!!document.querySelector('%s [data-testid="host-tag"][data-tag=%q]')`, row(hostID), tag)
	}
	b.Poll(15*time.Second, "env=e2e on web-1 and web-2", tagged(web1.HostID, "env=e2e")+` && `+tagged(web2.HostID, "env=e2e"), "")
	step("tagged two hosts from the selection")

	// 2. Tag the third host from its row.
	b.ClickSel(row(db.HostID) + ` [data-testid="host-edit-tags"]`)
	b.TypeSel(tid("tags-input")+` input`, "role=db")
	b.run(5*time.Second, "enter the tag", chromedp.KeyEvent(kb.Enter))
	b.ClickSel(".ant-modal-title")
	b.Click("tags-save")
	b.Poll(15*time.Second, "role=db on db-1", tagged(db.HostID, "role=db"), "")
	var tags struct {
		Items []struct {
			Key, Value string
			HostCount  int `json:"host_count"`
		}
	}
	call(t, "GET", h.URL+"/v1/user/tags", cust.Token, nil, &tags)
	if len(tags.Items) != 2 {
		t.Errorf("GET /v1/user/tags: %+v, want env=e2e (2) and role=db (1)", tags.Items)
	}

	// 3. Filter by the tag (kept in the URL) and save the filter.
	b.Choose("hosts-tag-filter", "env=e2e")
	b.run(5*time.Second, "close the dropdown", chromedp.KeyEvent(kb.Escape))
	b.Poll(15*time.Second, "two rows for env=e2e", rowCount("host-row")+` === 2`, rowCount("host-row"))
	if q := b.evalString(`location.search`); !strings.Contains(q, "tag=env%3De2e") {
		t.Errorf("the tag filter is not in the URL: %q", q)
	}
	b.Click("saved-filter-save")
	b.Type("saved-filter-name", "e2e web")
	b.Click("saved-filter-submit")
	b.Poll(10*time.Second, "the saved filter picked", `(document.querySelector('[data-testid="saved-filter-select"]')?.textContent ?? '').includes('e2e web')`, "")
	b.Shot("hosts-tags")
	step("filtered by tag and saved the filter")

	// 4. Run a command on the tag from the list: preview, confirm, results.
	b.Click("hosts-run-tags")
	b.WaitPath(`^/jobs/new`, 10*time.Second)
	b.Poll(10*time.Second, "the tag target", `(document.querySelector('[data-testid="job-target-tags"]')?.textContent ?? '').includes('env=e2e')`, "")
	b.Type("job-command", "echo hello from $(hostname) && echo warn >&2")
	b.Type("job-name", "e2e hello")
	b.Click("job-preview")
	b.WaitVisible("job-preview-panel", 15*time.Second)
	if n := b.Attr(tid("job-preview-hosts"), "data-count"); n != "2" {
		t.Errorf("preview host count %q, want 2", n)
	}
	cost, err := strconv.ParseFloat(b.Attr(tid("job-preview-cost"), "data-tokens"), 64)
	if err != nil || cost < 0 {
		t.Errorf("preview max cost %q: %v", b.Attr(tid("job-preview-cost"), "data-tokens"), err)
	}
	b.Shot("job-preview")
	balanceBefore := cust.Balance(h)
	b.Click("job-confirm")
	b.WaitPath(`^/jobs/[0-9a-f-]{36}$`, 15*time.Second)
	b.WaitAttr(tid("job-state"), "data-state", "finished", 60*time.Second)
	b.WaitAttr(`[data-testid="job-count"][data-state="succeeded"]`, "data-count", "2", 10*time.Second)
	b.WaitAttr(tid("job-progress"), "data-percent", "100", 10*time.Second)
	b.Poll(15*time.Second, "two succeeded result rows",
		`document.querySelectorAll('[data-testid="job-result-row"][data-state="succeeded"]').length === 2`, rowCount("job-result-row"))
	if spent := balanceBefore - cust.Balance(h); spent > cost+1e-9 {
		t.Errorf("the job cost %v, more than the preview's %v", spent, cost)
	}
	// Each host's output in its row, then the whole output.
	b.ClickSel(`[data-testid="job-result-row"] .ant-table-row-expand-icon`)
	b.Poll(10*time.Second, "the output excerpt", `(document.querySelector('[data-testid="job-result-output"]')?.textContent ?? '').includes('hello from')`,
		`document.querySelector('[data-testid="job-result-output"]')?.textContent`)
	b.Click("job-full-output")
	b.Poll(10*time.Second, "the full output", `(document.querySelector('[data-testid="job-full-output-panel"]')?.textContent ?? '').includes('warn')`,
		`document.querySelector('[data-testid="job-full-output-panel"]')?.textContent`)
	b.Shot("job-detail")
	firstJob := b.Path()
	step("ran on the tag: preview, two results, output")

	// 5. Run on a selection: a failing command on web-1 (fails) and db-1
	// (offline: skipped); retry the failed host.
	b.Open("/hosts")
	b.Poll(15*time.Second, "three host rows", rowCount("host-row")+` === 3`, rowCount("host-row"))
	b.ClickSel(row(web1.HostID) + ` .ant-checkbox-input`)
	b.ClickSel(row(db.HostID) + ` .ant-checkbox-input`)
	b.Click("hosts-run-selected")
	b.WaitPath(`^/jobs/new`, 10*time.Second)
	if q := b.evalString(`location.search`); strings.Count(q, "host=") != 2 {
		t.Errorf("run on selected: %q, want two host= params", q)
	}
	b.Type("job-command", "echo failing; exit 3")
	b.Click("job-preview")
	b.WaitVisible("job-preview-panel", 15*time.Second)
	if n := b.Attr(tid("job-preview-hosts"), "data-count"); n != "2" {
		t.Errorf("preview host count %q, want 2", n)
	}
	b.Click("job-confirm")
	b.WaitPath(`^/jobs/[0-9a-f-]{36}$`, 15*time.Second)
	b.WaitAttr(tid("job-state"), "data-state", "finished", 60*time.Second)
	b.WaitAttr(`[data-testid="job-count"][data-state="failed"]`, "data-count", "1", 10*time.Second)
	b.WaitAttr(`[data-testid="job-count"][data-state="skipped"]`, "data-count", "1", 10*time.Second)
	b.Choose("job-results-state-filter", "Failed")
	b.Poll(10*time.Second, "only the failed row", `document.querySelectorAll('[data-testid="job-result-row"]').length === 1 && !!document.querySelector('[data-testid="job-result-row"][data-state="failed"]')`, rowCount("job-result-row"))
	if q := b.evalString(`location.search`); !strings.Contains(q, "rstate=failed") {
		t.Errorf("the results filter is not in the URL: %q", q)
	}
	b.Shot("job-failed")
	failedJob := b.Path()
	b.Click("job-retry-failed")
	b.Poll(15*time.Second, "the retry's page", fmt.Sprintf(`location.pathname !== %q && /^\/jobs\/[0-9a-f-]{36}$/.test(location.pathname)`, failedJob), `location.pathname`)
	b.WaitAttr(tid("job-state"), "data-state", "finished", 60*time.Second)
	b.WaitAttr(`[data-testid="job-count"][data-state="failed"]`, "data-count", "1", 10*time.Second)
	step("ran on a selection, retried the failed host")

	// 6. The jobs list, newest first, with the state filter in the URL.
	b.Open("/jobs")
	b.Poll(15*time.Second, "three jobs", rowCount("job-row")+` === 3`, rowCount("job-row"))
	b.Choose("jobs-state-filter", "Finished")
	b.Poll(10*time.Second, "the state filter in the URL", `location.search.includes('state=finished')`, `location.search`)
	b.Shot("jobs")

	// 7. A schedule: every five minutes, on the tag; pause, resume, history.
	b.Open("/schedules")
	b.WaitVisible("schedules-table", 15*time.Second)
	b.Click("schedule-create")
	b.WaitPath(`^/schedules/new$`, 10*time.Second)
	b.Type("schedule-name", "e2e every five")
	b.Type("schedule-cron", "*/5 * * * *")
	b.ClickSel(tid("job-target-kind") + ` input[value="tags"]`)
	b.Choose("job-target-tags", "env=e2e")
	b.run(5*time.Second, "close the dropdown", chromedp.KeyEvent(kb.Escape))
	b.Poll(5*time.Second, "the tag target", `(document.querySelector('[data-testid="job-target-tags"]')?.textContent ?? '').includes('env=e2e')`, "")
	b.Type("job-command", "uptime")
	b.Shot("schedule-new")
	b.Click("schedule-submit")
	b.WaitPath(`^/schedules$`, 15*time.Second)
	b.Poll(15*time.Second, "the schedule's row with its next run", rowCount("schedule-row")+` === 1 && !!document.querySelector('[data-testid="schedule-next"]')`, rowCount("schedule-row"))
	b.Click("schedule-pause")
	b.WaitAttr(tid("schedule-row"), "data-paused", "true", 10*time.Second)
	b.Click("schedule-resume")
	b.WaitAttr(tid("schedule-row"), "data-paused", "false", 10*time.Second)
	b.Shot("schedules")
	b.Click("schedule-history")
	b.WaitVisible("schedule-runs-table", 10*time.Second)
	b.ClickSel(".ant-modal-close")
	b.Poll(10*time.Second, "the history closed", `!document.querySelector('[data-testid="schedule-runs-table"]')`, "")
	step("created, paused and resumed a schedule")

	// 8. The same pages in Chinese.
	b.Click("lang-switch")
	b.Poll(10*time.Second, "<html lang=zh-CN>", `document.documentElement.lang === 'zh-CN'`, `document.documentElement.lang`)
	b.Open(firstJob)
	b.WaitAttr(tid("job-state"), "data-state", "finished", 15*time.Second)
	b.Shot("job-detail-zh")
	b.Open("/jobs/new?tag=env%3De2e")
	b.WaitVisible("job-command", 10*time.Second)
	b.Shot("job-new-zh")
	b.Open("/hosts?tag=env%3De2e")
	b.Poll(15*time.Second, "two rows for env=e2e", rowCount("host-row")+` === 2`, rowCount("host-row"))
	b.Shot("hosts-tags-zh")
	b.Open("/jobs")
	b.Poll(15*time.Second, "three jobs", rowCount("job-row")+` === 3`, rowCount("job-row"))
	b.Shot("jobs-zh")
	b.Open("/schedules")
	b.WaitVisible("schedule-row", 15*time.Second)
	b.Shot("schedules-zh")
	step("screenshots in Chinese")
}
