package e2e

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hostgate/internal/eventually"
)

// TestAdminConsole drives the admin console's shell pages in a real browser
// against a real hub, on both backends: /admin signed out shows the admin
// sign-in (no sign-up, no customer link); the owner signs in and sees the
// dashboard's figures; changes a price and the next charged API call pays
// it; switches the billing mode through the step-up prompt; publishes and
// yanks an agent version; creates a viewer admin; finds each of those
// actions in the audit log, each row linking to its target; signs out. The
// viewer signs in, sees no write control on any page, and a write forged
// from the page is refused 403; when the owner disables the viewer, the
// viewer's open console reaches the session-ended page within seconds.
// Screenshots of each page at laptop and phone width, English and Chinese.
//
// Like TestConsole it needs Chromium and the console built (`npm --prefix
// web run build`) before go test builds the hub.
func TestAdminConsole(t *testing.T) {
	chromiumPath(t)
	requireConsoleBuilt(t)
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "scaled"}[scaled], func(t *testing.T) {
			adminConsoleFlow(t, scaled)
		})
	}
}

// acPage is an admin console page the screenshots cover, with the test id
// that shows it has loaded.
type acPage struct{ name, path, ready string }

var acPages = []acPage{
	{"dashboard", "/admin", "dash-online-hosts"},
	{"recharges", "/admin/recharges", "recharges-table"},
	{"pricing", "/admin/pricing", "pricing-table"},
	{"versions", "/admin/versions?yanked=1", "versions-table"},
	{"audit", "/admin/audit", "audit-table"},
	{"admins", "/admin/admins", "admins-table"},
}

// acRowSel is the CSS selector of a list row by its data attribute.
func acRowSel(list, attr, value string) string {
	return fmt.Sprintf(`[data-testid="%s-row"][%s=%q]`, list, attr, value)
}

// acFetchStatus runs fetch in the page (the console's cookies, as a forged
// request from the page would) and returns the answer's status.
func acFetchStatus(b *Browser, method, path, body string) int {
	b.t.Helper()
	js := fmt.Sprintf(`fetch(%q, {method: %q, credentials: 'same-origin', headers: {'Content-Type': 'application/json'}, body: %s}).then(r => r.status)`,
		path, method, map[bool]string{true: "undefined", false: strconv.Quote(body)}[body == ""])
	return get(b, 15*time.Second, method+" "+path+" from the page", chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise))
}

// acSignIn signs an admin in from the admin sign-in page.
func acSignIn(b *Browser, username, password string) {
	b.t.Helper()
	b.Open("/admin/signin")
	b.WaitVisible("admin-signin-username", 20*time.Second)
	b.Type("admin-signin-username", username)
	b.Type("admin-signin-password", password)
	b.Click("admin-signin-submit")
	b.WaitVisible("admin-whoami", 20*time.Second)
}

// acShots opens each page and takes its screenshots (suffix: the language).
func acShots(b *Browser, pages []acPage, suffix string) {
	b.t.Helper()
	for _, p := range pages {
		b.Open(p.path)
		b.WaitVisible(p.ready, 20*time.Second)
		// Tables have rows, charts have drawn (or the page says there is nothing).
		b.PollOK(5*time.Second, `!document.querySelector('.ant-skeleton-active, .ant-spin-spinning')`)
		b.Shot(p.name + "-" + suffix)
	}
}

const acConfirmOK = `.ant-modal-confirm-btns .ant-btn-primary`

func adminConsoleFlow(t *testing.T, scaled bool) {
	began := time.Now()
	step := func(s string) { t.Logf("%6.1fs  %s", time.Since(began).Seconds(), s) }

	env := NewEnv(t, scaled)
	env.env["HOSTGATE_PAYMENT_DUMMY"] = "1" // a recharge order for the recharges page
	h := env.StartHub()
	requireHubServesConsole(t, h)
	owner := adminToken(t, h)
	b := NewBrowser(t, h.URL, 240*time.Second)
	step("hub and browser up")

	// A customer with a funded balance and an API key, and a pending recharge.
	cust := NewCustomer(t, h)
	cust.Fund(h, 10)
	if s := call(t, "POST", h.URL+"/v1/user/billing/recharge", cust.Token, map[string]any{"amount_cny": 12}, nil); s != 200 && s != 201 {
		t.Logf("recharge order: %d (the recharges page shows none)", s)
	}

	// 1. /admin signed out: the admin sign-in (username, no sign-up, no link
	// to the customer pages).
	b.Open("/admin")
	b.WaitPath(`^/admin/signin`, 20*time.Second)
	b.WaitVisible("admin-signin-username", 20*time.Second)
	for _, id := range []string{"signin-email", "goto-signup", "signup-email"} {
		if b.PollOK(0, visibleJS(tid(id))) {
			t.Errorf("the admin sign-in shows the customer's %s", id)
		}
	}
	if n := b.evalString(`String(document.querySelectorAll('a[href="/signin"], a[href="/signup"], a[href="/"]').length)`); n != "0" {
		t.Errorf("the admin sign-in links to the customer pages (%s links)", n)
	}
	b.Shot("signin-en")
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "zh-CN", 10*time.Second)
	b.Shot("signin-zh")
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "en", 10*time.Second)
	b.Type("admin-signin-username", adminUser)
	b.Type("admin-signin-password", "not the password")
	b.Click("admin-signin-submit")
	b.WaitVisible("form-error", 15*time.Second)
	b.Shot("signin-refused-en")

	// 2. The owner signs in: who and role in the header, every section in the nav.
	acSignIn(b, adminUser, adminPassword)
	b.WaitPath(`^/admin$`, 10*time.Second)
	if who := b.Text("admin-whoami"); !strings.Contains(who, adminUser) || b.Attr(tid("admin-whoami"), "data-role") != "owner" {
		t.Errorf("admin-whoami %q role %q, want %s owner", who, b.Attr(tid("admin-whoami"), "data-role"), adminUser)
	}
	for _, s := range []string{"dashboard", "users", "hosts", "recharges", "pricing", "versions", "audit", "admins"} {
		b.WaitVisible("admin-nav-"+s, 10*time.Second)
	}
	step("owner signed in")

	// 3. Dashboard: the live figures are the hub's, each a link to its list.
	var sum struct {
		OnlineHosts     int     `json:"online_hosts"`
		TodayRevenueCNY float64 `json:"today_revenue_cny"`
		TodayCalls      int     `json:"today_calls"`
	}
	if s := call(t, "GET", h.URL+"/v1/admin/dashboard/summary", owner, nil, &sum); s != 200 {
		t.Fatalf("summary: %d", s)
	}
	b.WaitAttr(tid("dash-online-hosts")+" [data-value]", "data-value", strconv.Itoa(sum.OnlineHosts), 15*time.Second)
	b.WaitAttr(tid("dash-today-calls")+" [data-value]", "data-value", strconv.Itoa(sum.TodayCalls), 15*time.Second)
	if v := b.Attr(tid("dash-today-revenue")+" [data-value]", "data-value"); v == "" {
		t.Errorf("dash-today-revenue has no value")
	}
	for id, want := range map[string]string{"dash-online-hosts": "/admin/hosts", "dash-today-revenue": "/admin/recharges", "dash-today-calls": "/admin/"} {
		if href := b.Attr(tid(id), "href"); !strings.HasPrefix(href, want) {
			t.Errorf("%s links to %q, want a list under %s", id, href, want)
		}
	}
	b.Click("dash-today-revenue")
	b.WaitPath(`^/admin/recharges\?status=paid$`, 10*time.Second)
	b.WaitVisible("recharges-table", 15*time.Second)
	step("dashboard figures")

	// 4. Pricing: the host query price goes from 0 to 0.25 tokens; the next
	// charged call made with the customer's API key pays 0.25.
	b.Open("/admin/pricing")
	row := acRowSel("pricing", "data-code", "host.query.per_call")
	b.WaitVisible("pricing-table", 15*time.Second)
	b.ClickSel(row + " " + tid("pricing-edit"))
	b.Type("pricing-token-amount", "0.25")
	b.Click("pricing-save")
	b.Poll(15*time.Second, "the new price in the table", fmt.Sprintf(`%s && %s.querySelector('[data-testid="pricing-amount"]').textContent.trim() === '0.25'`, jsq(row), jsq(row)),
		jsq(row)+`?.textContent`)
	before := cust.Balance(h)
	if s := call(t, "GET", h.URL+"/v1/api/hosts", cust.Key, nil, nil); s != 200 {
		t.Fatalf("GET /v1/api/hosts with the API key: %d", s)
	}
	if after := cust.Balance(h); math.Abs(before-after-0.25) > 1e-9 {
		t.Errorf("balance %v → %v after one host query, want 0.25 charged at the new price", before, after)
	}
	var events struct {
		Items []struct {
			RuleCode string  `json:"rule_code"`
			Tokens   float64 `json:"tokens"`
		} `json:"items"`
	}
	if s := call(t, "GET", h.URL+"/v1/user/billing/events?limit=1", cust.Token, nil, &events); s != 200 || len(events.Items) == 0 ||
		events.Items[0].RuleCode != "host.query.per_call" || math.Abs(math.Abs(events.Items[0].Tokens)-0.25) > 1e-9 {
		t.Errorf("newest billing event %+v (status %d), want host.query.per_call for 0.25", events.Items, s)
	}
	// The dashboard counts the call.
	b.Open("/admin")
	b.Poll(20*time.Second, "today's calls count the charged call", `Number(`+jsq(tid("dash-today-calls")+" [data-value]")+`?.getAttribute('data-value')) >= 1`,
		jsq(tid("dash-today-calls"))+`?.textContent`)
	step("price changed and charged")

	// 5. Billing mode through step-up: charging → free, the password asked again.
	b.Open("/admin/pricing")
	b.WaitAttr(tid("billing-mode"), "data-mode", "charging", 15*time.Second)
	b.Click("billing-mode-switch")
	b.WaitVisible("stepup-password", 10*time.Second)
	b.Shot("stepup-en")
	b.Type("stepup-password", "wrong password")
	b.Click("stepup-submit")
	b.WaitVisible("form-error", 10*time.Second)
	b.Type("stepup-password", adminPassword)
	b.Click("stepup-submit")
	b.WaitAttr(tid("billing-mode"), "data-mode", "free", 15*time.Second)
	var mode struct{ Mode string }
	if s := call(t, "GET", h.URL+"/v1/admin/billing/mode", owner, nil, &mode); s != 200 || mode.Mode != "free" {
		t.Errorf("billing mode after the switch: %d %q, want free", s, mode.Mode)
	}
	step("billing mode switched through step-up")

	// 6. Agent versions: publish one (the form checks its fields), yank it.
	ver := fmt.Sprintf("9.%d.0", time.Now().UnixNano()%100000)
	b.Open("/admin/versions")
	b.WaitVisible("versions-table", 15*time.Second)
	b.Click("version-publish")
	b.WaitVisible("version-version", 10*time.Second)
	b.Type("version-version", ver)
	b.Type("version-url", "https://dl.example.com/hostgate-agent-"+ver+".exe")
	b.Type("version-sha256", "not a hash")
	b.Type("version-size", "1048576")
	b.Type("version-changelog", "e2e build")
	b.Click("version-publish-submit")
	b.Poll(10*time.Second, "the form refuses a bad SHA-256", `document.querySelector('.ant-form-item-has-error [data-testid="version-sha256"]')`, "")
	b.Shot("version-publish-en")
	b.Type("version-sha256", strings.Repeat("ab", 32))
	b.Click("version-publish-submit")
	vrow := acRowSel("versions", "data-id", ver)
	b.WaitVisible("versions-row", 15*time.Second)
	b.Poll(15*time.Second, "the published version listed", jsq(vrow), "")
	b.ClickSel(vrow + " " + tid("version-yank"))
	b.ClickSel(acConfirmOK)
	b.Poll(15*time.Second, "the yanked version hidden", `!`+jsq(vrow), "")
	step("version " + ver + " published and yanked")

	// 7. Admins: create a viewer.
	viewer := "viewer-" + randHex(3)
	const viewerPassword = "viewer e2e password"
	b.Open("/admin/admins")
	b.WaitVisible("admins-table", 15*time.Second)
	b.Click("admin-create")
	b.Type("admin-new-username", viewer)
	b.Type("admin-new-password", viewerPassword)
	b.Choose("admin-new-role", "Viewer")
	b.Shot("admin-create-en")
	b.Click("admin-create-submit")
	arow := acRowSel("admins", "data-username", viewer)
	b.Poll(15*time.Second, "the new viewer listed", jsq(arow), "")
	viewerID := b.Attr(arow, "data-id")
	step("viewer " + viewer + " created")
	// The last enabled owner cannot be disabled: the hub's words are shown.
	b.ClickSel(acRowSel("admins", "data-username", adminUser) + " " + tid("admin-disable"))
	b.ClickSel(acConfirmOK)
	b.Poll(10*time.Second, "the last_owner refusal shown", `[...document.querySelectorAll('.ant-message-notice')].some(e => e.textContent.includes('last enabled owner'))`,
		`[...document.querySelectorAll('.ant-message-notice')].map(e => e.textContent).join(' | ')`)
	b.Shot("admins-last-owner-en")
	b.Poll(10*time.Second, "the confirm dialog closed", `!document.querySelector('.ant-modal-confirm')`, "")
	b.Open("/admin/admins")
	b.WaitAttr(acRowSel("admins", "data-username", adminUser)+" [data-status]", "data-status", "active", 15*time.Second)

	// 8. The audit log holds each action, each row linking to its target.
	b.Open("/admin/audit")
	b.WaitVisible("audit-table", 15*time.Second)
	b.Choose("audit-action", "pricing.update")
	b.WaitPath(`action=pricing\.update`, 10*time.Second)
	for _, tc := range []struct{ action, link string }{
		{"pricing.update", "/admin/pricing"},
		{"billing.mode_change", "/admin/pricing"},
		{"gw_version.publish", "/admin/versions"},
		{"gw_version.yank", "/admin/versions"},
		{"admin.create", "/admin/admins"},
	} {
		if tc.action != "pricing.update" {
			b.Open("/admin/audit?action=" + tc.action)
		}
		sel := acRowSel("audit", "data-action", tc.action)
		if !b.PollOK(15*time.Second, jsq(sel)) {
			t.Errorf("audit log: no %s row", tc.action)
			continue
		}
		if href := b.Attr(sel+" "+tid("audit-target"), "href"); href != tc.link {
			t.Errorf("audit %s: target links to %q, want %s", tc.action, href, tc.link)
		}
	}
	// The time filter: nothing before the test began.
	b.Open("/admin/audit?until=" + began.Add(-time.Hour).UTC().Format(time.RFC3339))
	b.WaitVisible("audit-table", 15*time.Second)
	b.Poll(15*time.Second, "no entries before the test", `!document.querySelector('[data-testid="audit-row"]') && !document.querySelector('.ant-skeleton-active')`, "")
	b.Open("/admin/audit?action=admin.create")
	b.Poll(15*time.Second, "admin.create row", jsq(acRowSel("audit", "data-action", "admin.create")), "")
	b.ClickSel(acRowSel("audit", "data-action", "admin.create") + " " + tid("audit-target"))
	b.WaitPath(`^/admin/admins`, 10*time.Second)
	step("audit rows found")

	// 9. Screenshots of every page in English, then in Chinese.
	acShots(b, acPages, "en")
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "zh-CN", 10*time.Second)
	acShots(b, acPages, "zh")
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "en", 10*time.Second)
	step("screenshots")

	// 10. Sign out: back on the sign-in page, the session's cookie refused.
	b.Click("admin-signout")
	b.WaitPath(`^/admin/signin`, 15*time.Second)
	if s := acFetchStatus(b, "GET", "/v1/admin/me", ""); s != 401 {
		t.Errorf("GET /v1/admin/me after sign-out: %d, want 401", s)
	}
	b.Open("/admin/pricing")
	b.WaitPath(`^/admin/signin`, 15*time.Second)
	step("signed out")

	// 11. The viewer: every page, no write control; a forged write is 403.
	acSignIn(b, viewer, viewerPassword)
	if role := b.Attr(tid("admin-whoami"), "data-role"); role != "viewer" {
		t.Errorf("viewer's admin-whoami role %q", role)
	}
	if b.PollOK(0, visibleJS(tid("admin-nav-admins"))) {
		t.Errorf("the viewer's nav offers the admins section")
	}
	writes := []string{"pricing-edit", "pricing-add", "billing-mode-switch", "version-publish", "version-yank",
		"recharge-refund", "admin-create", "admin-role", "admin-disable", "admin-enable"}
	for _, p := range acPages[:5] {
		b.Open(p.path)
		b.WaitVisible(p.ready, 20*time.Second)
		b.PollOK(3*time.Second, `!document.querySelector('.ant-skeleton-active')`)
		for _, id := range writes {
			if b.PollOK(0, jsq(tid(id))) {
				t.Errorf("viewer: %s shows %s", p.path, id)
			}
		}
	}
	b.Open("/admin/admins")
	b.PollOK(5*time.Second, `!document.querySelector('.ant-skeleton-active')`)
	if b.PollOK(2*time.Second, jsq(tid("admins-table"))+` || `+jsq(tid("admin-create"))) {
		t.Errorf("the viewer sees the admins list")
	}
	b.Open("/admin/pricing")
	b.WaitVisible("pricing-table", 15*time.Second)
	b.Shot("pricing-viewer-en")
	ruleID := b.Attr(acRowSel("pricing", "data-code", "host.query.per_call"), "data-id")
	if s := acFetchStatus(b, "PUT", "/v1/admin/pricing-rules/"+ruleID, `{"token_amount": 0}`); s != 403 {
		t.Errorf("viewer's forged PUT of a price: %d, want 403", s)
	}
	if s := acFetchStatus(b, "POST", "/v1/admin/admins", `{"username":"intruder","password":"intruder password","role":"owner"}`); s != 403 {
		t.Errorf("viewer's forged admin creation: %d, want 403", s)
	}
	var rules struct {
		Items []struct {
			Code        string  `json:"code"`
			TokenAmount float64 `json:"token_amount"`
		} `json:"items"`
	}
	call(t, "GET", h.URL+"/v1/admin/pricing-rules", owner, nil, &rules)
	for _, r := range rules.Items {
		if r.Code == "host.query.per_call" && r.TokenAmount != 0.25 {
			t.Errorf("the refused write changed the price to %v", r.TokenAmount)
		}
	}
	step("viewer sees no write controls; forged writes refused")

	// 12. The owner disables the viewer: the viewer's open console reaches
	// the session-ended page within seconds.
	if viewerID == "" {
		t.Fatalf("no id for the viewer's row")
	}
	b.Open("/admin")
	b.WaitVisible("dash-online-hosts", 15*time.Second)
	if s := call(t, "POST", h.URL+"/v1/admin/admins/"+viewerID+"/disable", owner, map[string]any{}, nil); s != 200 {
		t.Fatalf("disable the viewer: %d", s)
	}
	disabledAt := time.Now()
	b.WaitVisible("admin-session-ended", 20*time.Second)
	step(fmt.Sprintf("disabled viewer reached the session-ended page after %.1fs", time.Since(disabledAt).Seconds()))
	b.Shot("session-ended-en")
	b.Click("lang-switch")
	b.WaitAttr("html", "lang", "zh-CN", 10*time.Second)
	b.Shot("session-ended-zh")

	eventually.True(t, 10*time.Second, "the disable is in the audit log", func() bool {
		var out struct{ Total int }
		call(t, "GET", h.URL+"/v1/admin/audit-logs?action=admin.disable&limit=1", owner, nil, &out)
		return out.Total >= 1
	})
}
