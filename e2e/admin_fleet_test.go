//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/eventually"

	"github.com/chromedp/chromedp"
)

// TestAdminFleet drives the admin console's users and hosts pages in a real
// browser against real hub and agent processes, on both backends: with 300
// hosts over 100 users seeded through the API and one real agent, an owner
// admin finds that agent's host by part of its owner's email, sees its
// metrics, events and flapping count, opens its terminal and runs a command,
// pushes an upgrade to a published version and sees the upgrade's state,
// bans and unbans it; finds the owner by part of the email, suspends and
// resumes the account; the audit log holds the terminal opening and the
// push; a viewer admin sees the same pages without any write control.
// Screenshots of each page at laptop and phone width, English and Chinese.
func TestAdminFleet(t *testing.T) {
	chromiumPath(t)
	requireConsoleBuilt(t)
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "scaled"}[scaled], func(t *testing.T) {
			adminFleetFlow(t, scaled)
		})
	}
}

const (
	fleetUsers        = 100
	fleetHostsPerUser = 3
)

// fleetSeed is what seedFleet made.
type fleetSeed struct {
	run         string // a random word in every seeded email
	targetEmail string
	targetUser  string // id
	targetToken string // the target user's access token
	creds       Credentials
}

// seedFleet registers fleetUsers users with fleetHostsPerUser hosts each
// through the public and user APIs, several at a time. One of them, the
// target, has an email no other shares a part of; its first host comes
// with install credentials.
func seedFleet(t *testing.T, h *Hub) fleetSeed {
	t.Helper()
	s := fleetSeed{run: randHex(4)}
	target := fleetUsers / 3
	s.targetEmail = fmt.Sprintf("ops-%s-kestrel@example.com", s.run)
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := make(chan int)
	errs := make(chan string, fleetUsers)
	for range 6 {
		wg.Go(func() {
			for i := range jobs {
				email := fmt.Sprintf("fleet-%s-u%03d@example.com", s.run, i)
				if i == target {
					email = s.targetEmail
				}
				var auth struct {
					AccessToken string `json:"access_token"`
					User        struct{ ID string }
				}
				if st := call(t, "POST", h.URL+"/v1/public/auth/register", "", map[string]string{"email": email, "password": "fleet e2e password"}, &auth); st != 200 {
					errs <- fmt.Sprintf("register %s: %d", email, st)
					continue
				}
				for j := range fleetHostsPerUser {
					body := map[string]any{"name": fmt.Sprintf("node-%03d-%d", i, j)}
					var out struct {
						Credentials Credentials `json:"credentials"`
					}
					if i == target && j == 0 {
						body["name"] = "kestrel-gw"
						body["with_credentials"] = true
					}
					if st := call(t, "POST", h.URL+"/v1/user/hosts", auth.AccessToken, body, &out); st != 200 && st != 201 {
						errs <- fmt.Sprintf("create host for %s: %d", email, st)
						continue
					}
					if i == target && j == 0 {
						mu.Lock()
						s.creds = out.Credentials
						mu.Unlock()
					}
				}
				if i == target {
					mu.Lock()
					s.targetUser, s.targetToken = auth.User.ID, auth.AccessToken
					mu.Unlock()
				}
			}
		})
	}
	for i := range fleetUsers {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if t.Failed() || s.creds.HostID == "" {
		t.Fatalf("seeding failed (target host %q)", s.creds.HostID)
	}
	return s
}

// auditHas reports whether the audit log holds action on target id.
func auditHas(t *testing.T, h *Hub, token, action, targetID string) bool {
	var out struct {
		Items []struct {
			Action   string `json:"action"`
			TargetID string `json:"target_id"`
		} `json:"items"`
	}
	if st := call(t, "GET", h.URL+"/v1/admin/audit-logs?limit=200&action="+action, token, nil, &out); st != 200 {
		t.Fatalf("audit log: %d", st)
	}
	for _, e := range out.Items {
		if e.Action == action && e.TargetID == targetID {
			return true
		}
	}
	return false
}

// createAdmin makes an admin with `hostgate admin create` against the hub's stores.
func createAdmin(t *testing.T, e *Env, username, password, role string) {
	t.Helper()
	bin, _ := binaries(t)
	cmd := exec.Command(bin, "admin", "create", "--username", username, "--password", password, "--role", role)
	cmd.Env = os.Environ()
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hostgate admin create %s: %v\n%s", role, err, out)
	}
}

// adminSignIn signs an admin in on the console's sign-in page.
func adminSignIn(b *Browser, username, password string) {
	b.t.Helper()
	b.Open("/admin/signin")
	b.WaitVisible("admin-signin-username", 20*time.Second)
	b.Type("admin-signin-username", username)
	b.Type("admin-signin-password", password)
	b.Click("admin-signin-submit")
	b.WaitVisible("admin-whoami", 20*time.Second)
}

// rowsJS is the data-id of every row of a list, joined by commas.
func rowsJS(name string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('[data-testid="%s-row"]')].map(r => r.getAttribute('data-id')).join(',')`, name)
}

// absentJS is true when no element of any of the test ids is in the page.
func absentJS(ids ...string) string {
	sels := make([]string, len(ids))
	for i, id := range ids {
		sels[i] = tid(id)
	}
	return fmt.Sprintf(`document.querySelectorAll(%q).length === 0`, strings.Join(sels, ","))
}

const confirmOK = `.ant-modal-confirm-btns .ant-btn-primary`

// shotFits takes a page's screenshots (Shot) and fails the test when the
// page is wider than a phone's screen at phone width (content that
// overflows instead of wrapping; wide tables scroll inside their own box).
func shotFits(b *Browser, name string) {
	b.t.Helper()
	b.Shot(name)
	b.Resize(phoneSize[0], phoneSize[1], true)
	defer b.Resize(desktopSize[0], desktopSize[1], false)
	b.run(10*time.Second, "settle", discard(chromedp.Evaluate[bool](settleJS, chromedp.EvalAwaitPromise)))
	if w := b.evalString(`String(document.documentElement.scrollWidth)`); w != strconv.Itoa(int(phoneSize[0])) {
		b.t.Errorf("%s: %spx wide at phone width %d", name, w, phoneSize[0])
	}
}

func adminFleetFlow(t *testing.T, scaled bool) {
	began := time.Now()
	step := func(s string) { t.Logf("%6.1fs  %s", time.Since(began).Seconds(), s) }
	t.Setenv("SHELL", "/bin/sh") // the agent's terminals run a plain POSIX shell

	env := NewEnv(t, scaled)
	h := env.StartHub()
	requireHubServesConsole(t, h)
	owner := adminToken(t, h)
	seed := seedFleet(t, h)
	hostID := seed.creds.HostID
	step(fmt.Sprintf("seeded %d users and %d hosts", fleetUsers, fleetUsers*fleetHostsPerUser))

	// The target user has an API key and a funded balance, for its page.
	if st := call(t, "POST", h.URL+"/v1/user/api-keys", seed.targetToken, map[string]string{"name": "deploy bot"}, nil); st != 200 && st != 201 {
		t.Fatalf("create api key: %d", st)
	}
	if st := call(t, "POST", h.URL+"/v1/admin/users/"+seed.targetUser+"/balance/adjust", owner,
		map[string]any{"tokens": 250, "reason": "welcome credit"}, nil); st != 200 {
		t.Fatalf("fund: %d", st)
	}

	// One real agent, from its own copy of the executable (an upgrade
	// replaces it); it connects, drops and connects again, so the last
	// hour holds two connects and one disconnect.
	_, built := binaries(t)
	exe := filepath.Join(t.TempDir(), "hostgate-agent")
	if b, err := os.ReadFile(built); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	connected := func() bool {
		var v adminHostView
		return call(t, "GET", h.URL+"/v1/admin/hosts/"+hostID, owner, nil, &v) == 200 && v.WSConnected
	}
	agent := env.StartAgentExe(exe, seed.creds, state)
	eventually.True(t, 30*time.Second, "agent connected", connected)
	agent.Stop()
	eventually.True(t, 30*time.Second, "agent disconnected", func() bool { return !connected() })
	env.StartAgentExe(exe, seed.creds, state)
	eventually.True(t, 30*time.Second, "agent connected again", connected)
	step("agent connected twice")

	// A published version to upgrade to: a build of the agent stamped 9.1.0.
	next := buildAgentVersion(t, "9.1.0")
	srv := httptestFileServer(t, filepath.Dir(next))
	sha, size := fileSHA(t, next)
	if st := call(t, "POST", h.URL+"/v1/admin/gateway-versions", owner, map[string]any{
		"version": "9.1.0", "channel": "stable", "exe_url": srv + "/hostgate-agent", "exe_sha256": sha, "exe_size_bytes": size,
		"changelog": "fleet e2e",
	}, nil); st != 200 && st != 201 {
		t.Fatalf("publish 9.1.0: %d", st)
	}
	step("9.1.0 published")

	b := NewBrowser(t, h.URL, 300*time.Second)
	adminSignIn(b, adminUser, adminPassword)
	step("owner signed in")

	// Hosts: the whole fleet, then the target found by part of its owner's email.
	b.Click("admin-nav-hosts")
	b.WaitPath(`^/admin/hosts$`, 15*time.Second)
	b.Poll(20*time.Second, "hosts-table total", fmt.Sprintf(`Number(%s?.getAttribute('data-total')) >= %d`,
		jsq(tid("hosts-table")), fleetUsers*fleetHostsPerUser), jsq(tid("hosts-table"))+`?.getAttribute('data-total')`)
	shotFits(b, "hosts")
	b.Type("hosts-search", seed.run+"-kest")
	b.Poll(20*time.Second, "search by part of the owner's email finds only the target's hosts",
		fmt.Sprintf(`(() => { const ids = %s.split(','); return ids.length === %d && ids.includes(%q); })()`, rowsJS("hosts"), fleetHostsPerUser, hostID),
		rowsJS("hosts"))
	shotFits(b, "hosts-search")
	// The search lives in the URL: the same address opened afresh shows the same list.
	search := b.evalString(`location.search`)
	if !strings.Contains(search, "q=") {
		t.Errorf("the search is not in the URL: %q", search)
	}
	b.Open("/admin/hosts" + search)
	b.Poll(20*time.Second, "the search's URL restores the list",
		fmt.Sprintf(`(() => { const ids = %s.split(','); return ids.length === %d && ids.includes(%q) && %s?.value === %q; })()`,
			rowsJS("hosts"), fleetHostsPerUser, hostID, jsq(tid("hosts-search")), seed.run+"-kest"),
		rowsJS("hosts"))
	b.ClickSel(fmt.Sprintf(`[data-testid="hosts-row"][data-id=%q] [data-testid="hosts-link"]`, hostID))
	b.WaitPath(`^/admin/hosts/`+hostID+`$`, 15*time.Second)

	// The host page: live, metrics, events, flaps.
	b.WaitAttr(tid("host-status"), "data-online", "true", 20*time.Second)
	b.Poll(30*time.Second, "metrics drawn", jsq(tid("metrics-chart"))+`?.getAttribute('data-points') > 0`, jsq(tid("metrics-chart"))+`?.getAttribute('data-points')`)
	b.Poll(20*time.Second, "events listed", `document.querySelectorAll('[data-testid="host-event-row"]').length >= 2`, `document.querySelectorAll('[data-testid="host-event-row"]').length`)
	b.Poll(20*time.Second, "flaps shown", jsq(tid("host-flaps"))+`?.getAttribute('data-connects') >= 2`, jsq(tid("host-flaps"))+`?.outerHTML`)
	if txt := b.Text("host-owner"); !strings.Contains(txt, seed.targetEmail) {
		t.Errorf("host-owner shows %q, want %s", txt, seed.targetEmail)
	}
	shotFits(b, "host")

	// Its terminal.
	b.Click("host-open-terminal")
	b.WaitPath(`^/admin/hosts/`+hostID+`/terminal$`, 15*time.Second)
	b.WaitAttr(tid("terminal-state"), "data-state", "open", 30*time.Second)
	b.TypeTerminal("echo fleet-$((6*7))\r")
	b.WaitTerminal(`fleet-42`, 20*time.Second)
	shotFits(b, "terminal")
	step("terminal ran echo")
	b.Open("/admin/hosts/" + hostID)
	b.WaitVisible("host-push-upgrade", 20*time.Second)

	// Push an upgrade to 9.1.0; the page follows its state to done.
	b.Click("host-push-upgrade")
	b.Choose("host-upgrade-version", "9.1.0")
	b.Click("host-upgrade-submit")
	b.Poll(20*time.Second, "upgrade state shown", jsq(tid("host-upgrade-state"))+`?.getAttribute('data-version') === '9.1.0'`, jsq(tid("host-upgrade-state"))+`?.outerHTML`)
	b.Poll(120*time.Second, "upgrade done", jsq(tid("host-upgrade-state"))+`?.getAttribute('data-state') === 'done'`, jsq(tid("host-upgrade-state"))+`?.textContent`)
	b.Poll(30*time.Second, "agent version 9.1.0", jsq(tid("host-agent-version"))+`?.textContent === '9.1.0'`, jsq(tid("host-agent-version"))+`?.textContent`)
	step("upgrade done")

	// Users: the target found by part of the email, suspended and resumed.
	b.Click("admin-nav-users")
	b.WaitPath(`^/admin/users`, 15*time.Second)
	b.Poll(20*time.Second, "users-table total", fmt.Sprintf(`Number(%s?.getAttribute('data-total')) >= %d`, jsq(tid("users-table")), fleetUsers), "")
	shotFits(b, "users")
	b.Type("users-search", "-kestrel@")
	b.Poll(20*time.Second, "search finds the user", fmt.Sprintf(`%s === %q`, rowsJS("users"), seed.targetUser), rowsJS("users"))
	b.ClickSel(fmt.Sprintf(`[data-testid="users-row"][data-id=%q] [data-testid="users-link"]`, seed.targetUser))
	b.WaitPath(`^/admin/users/`+seed.targetUser+`$`, 15*time.Second)
	b.WaitAttr(tid("user-balance"), "data-tokens", "250", 20*time.Second)
	b.Poll(20*time.Second, "user's host listed", fmt.Sprintf(`!!document.querySelector('[data-testid="user-host-row"][data-id=%q]')`, hostID), "")
	b.Poll(20*time.Second, "user's api key listed", `document.querySelector('[data-testid="user-apikeys-table"]')?.textContent.includes('deploy bot')`, "")
	b.Click("user-ledger-check")
	b.WaitAttr(tid("user-ledger-check-result"), "data-consistent", "true", 20*time.Second)
	shotFits(b, "user")
	b.Click("user-suspend")
	b.ClickSel(confirmOK)
	b.WaitAttr(tid("user-status"), "data-status", "suspended", 20*time.Second)
	b.Click("user-resume")
	b.ClickSel(confirmOK)
	b.WaitAttr(tid("user-status"), "data-status", "active", 20*time.Second)
	step("suspended and resumed")

	// The same pages in Chinese.
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "zh-CN", 10*time.Second)
	shotFits(b, "user-zh")
	b.Open("/admin/users")
	b.WaitVisible("users-row", 20*time.Second)
	shotFits(b, "users-zh")
	b.Open("/admin/hosts")
	b.WaitVisible("hosts-row", 20*time.Second)
	shotFits(b, "hosts-zh")
	b.Open("/admin/hosts/" + hostID)
	b.WaitAttr(tid("host-status"), "data-online", "true", 30*time.Second)
	b.Poll(30*time.Second, "metrics drawn", jsq(tid("metrics-chart"))+`?.getAttribute('data-points') > 0`, "")
	shotFits(b, "host-zh")
	b.Open("/admin/hosts/" + hostID + "/terminal")
	b.WaitAttr(tid("terminal-state"), "data-state", "open", 30*time.Second)
	b.TypeTerminal("echo ni-hao-$((2*3))\r")
	b.WaitTerminal(`ni-hao-6`, 20*time.Second)
	shotFits(b, "terminal-zh")
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "en", 10*time.Second)

	// Ban and unban (last with the agent: a banned agent's reconnection backs off).
	b.Open("/admin/hosts/" + hostID)
	b.WaitVisible("host-ban", 20*time.Second)
	b.Click("host-ban")
	b.ClickSel(confirmOK)
	b.WaitAttr(tid("host-status"), "data-status", "banned", 20*time.Second)
	b.WaitVisible("host-unban", 10*time.Second)
	b.Click("host-unban")
	b.ClickSel(confirmOK)
	b.Poll(20*time.Second, "unbanned", jsq(tid("host-status"))+`?.getAttribute('data-status') !== 'banned'`, jsq(tid("host-status"))+`?.outerHTML`)
	b.WaitVisible("host-ban", 10*time.Second)
	step("banned and unbanned")

	// The audit log holds the terminal opening and the push.
	for _, a := range []string{"host.terminal_open", "host.push_upgrade", "host.ban", "host.unban"} {
		if !auditHas(t, h, owner, a, hostID) {
			t.Errorf("audit log: no %s on %s", a, hostID)
		}
	}
	for _, a := range []string{"user.suspend", "user.resume"} {
		if !auditHas(t, h, owner, a, seed.targetUser) {
			t.Errorf("audit log: no %s on %s", a, seed.targetUser)
		}
	}

	// A viewer sees the pages without any write control.
	const viewerPassword = "fleet viewer password"
	viewer := "viewer-" + seed.run
	createAdmin(t, env, viewer, viewerPassword, "viewer")
	b.Click("admin-signout")
	b.WaitPath(`^/admin/signin`, 15*time.Second)
	adminSignIn(b, viewer, viewerPassword)
	b.Open("/admin/hosts/" + hostID)
	b.WaitVisible("host-status", 30*time.Second)
	b.WaitVisible("host-flaps", 10*time.Second)
	if !b.PollOK(2*time.Second, absentJS("host-push-upgrade", "host-ban", "host-unban", "host-delete", "host-open-terminal")) {
		t.Errorf("the viewer sees write controls on the host page")
	}
	shotFits(b, "host-viewer")
	b.Open("/admin/users/" + seed.targetUser)
	b.WaitVisible("user-balance", 20*time.Second)
	if !b.PollOK(2*time.Second, absentJS("user-suspend", "user-resume", "user-adjust-balance")) {
		t.Errorf("the viewer sees write controls on the user page")
	}
	shotFits(b, "user-viewer")
	// And the server refuses a viewer's write anyway.
	var vlogin struct {
		AccessToken string `json:"access_token"`
	}
	if st := call(t, "POST", h.URL+"/v1/admin/auth/login", "", map[string]string{"username": viewer, "password": viewerPassword}, &vlogin); st != 200 {
		t.Fatalf("viewer login: %d", st)
	}
	if st := call(t, "POST", h.URL+"/v1/admin/hosts/"+hostID+"/ban", vlogin.AccessToken, nil, nil); st != 403 {
		t.Errorf("a viewer's ban: %d, want 403", st)
	}
	step("viewer checked; " + strconv.Itoa(fleetUsers*fleetHostsPerUser) + " hosts")
}

// httptestFileServer serves dir over HTTP until the test ends and returns its URL.
func httptestFileServer(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}
