//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
	"hostgate/internal/eventually"
)

// hostileSocket is a bare agent connection: the test double of an agent
// that reports whatever text it likes.
type hostileSocket struct {
	gws.BuiltinEventHandler
	welcome chan struct{}
}

func (s *hostileSocket) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	if e, err := agentproto.Decode(m.Bytes()); err == nil && e.Type == agentproto.TypeWelcome {
		close(s.welcome)
	}
}

// TestBatteryHostileAgentText (T51): an agent reports an OS text, a
// version and events carrying <script>, an onerror attribute, U+202E and
// 10 KB; the hub stores them clipped (OS 128, version 64, event message
// 1,000 bytes) and the admin and user consoles, in headless Chromium, show
// them as text and run none of them; the console's CSP allows no inline
// script.
func TestBatteryHostileAgentText(t *testing.T) {
	chromiumPath(t)
	requireConsoleBuilt(t)
	env := NewEnv(t, false)
	h := env.StartHub()
	requireHubServesConsole(t, h)
	owner := adminToken(t, h)

	email, password := fmt.Sprintf("xss-%s@example.com", randHex(6)), "hostile text e2e password"
	var auth struct {
		AccessToken string `json:"access_token"`
	}
	if st := call(t, "POST", h.URL+"/v1/public/auth/register", "", map[string]string{"email": email, "password": password}, &auth); st != 200 {
		t.Fatalf("register: %d", st)
	}
	var created struct {
		Credentials Credentials `json:"credentials"`
	}
	if st := call(t, "POST", h.URL+"/v1/user/hosts", auth.AccessToken, map[string]any{"name": "xss-target", "with_credentials": true}, &created); st != 200 && st != 201 {
		t.Fatalf("create host: %d", st)
	}
	hostID := created.Credentials.HostID
	var tok agentproto.TokenResponse
	if st := call(t, "POST", h.URL+agentproto.PathOnline, "", agentproto.OnlineRequest{HostID: hostID, InstallToken: created.Credentials.InstallToken}, &tok); st != 200 {
		t.Fatalf("online: %d", st)
	}

	const (
		script  = `<script>window.__xss=1</script>`
		onerror = `"><img src=x onerror="window.__xss=2">`
		rlo     = "\u202Eexe.txt"
	)
	version := `"><img src=x onerror=window.__xss=3>`
	osText := onerror + script + rlo + strings.Repeat("A", 200)
	long := strings.Repeat(`<img src=x onerror="window.__xss=4">`, 300) // 10.8 KB
	ev := &hostileSocket{welcome: make(chan struct{})}
	conn, _, err := gws.NewClient(ev, &gws.ClientOption{
		Addr:          "ws" + strings.TrimPrefix(h.URL, "http") + agentproto.PathWS,
		RequestHeader: http.Header{"Authorization": {"Bearer " + tok.AgentToken}},
	})
	if err != nil {
		t.Fatalf("agent socket: %v", err)
	}
	go conn.ReadLoop()
	t.Cleanup(func() { _ = conn.NetConn().Close() })
	send := func(typ string, body any) {
		msg, err := agentproto.Encode(typ, "", body)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.WriteMessage(gws.OpcodeText, msg); err != nil {
			t.Fatal(err)
		}
	}
	send(agentproto.TypeHello, agentproto.Hello{Protocol: agentproto.Version, AgentVersion: version, OS: osText, Hostname: script + long})
	select {
	case <-ev.welcome:
	case <-time.After(20 * time.Second):
		t.Fatal("no welcome")
	}
	for _, m := range []string{script, onerror, rlo, long} {
		send(agentproto.TypeEvent, agentproto.Event{Kind: `x<script>window.__xss=5</script>`, Message: m})
	}

	// Stored clipped.
	var view struct {
		Host struct {
			OS               string `json:"os"`
			InstalledVersion string `json:"installed_version"`
		} `json:"host"`
	}
	var events struct {
		Items []struct{ Kind, Message string }
	}
	eventually.True(t, 30*time.Second, "the hostile events are stored", func() bool {
		n := 0
		if call(t, "GET", h.URL+"/v1/admin/hosts/"+hostID+"/events", owner, nil, &events) == 200 {
			for _, e := range events.Items {
				if strings.HasPrefix(e.Kind, "agent.x") {
					n++
				}
			}
		}
		return n == 4
	})
	if st := call(t, "GET", h.URL+"/v1/admin/hosts/"+hostID, owner, nil, &view); st != 200 {
		t.Fatalf("admin host: %d", st)
	}
	longest := 0
	for _, e := range events.Items {
		longest = max(longest, len(e.Message))
	}
	if len(view.Host.OS) > 128 || view.Host.OS == "" || view.Host.InstalledVersion != version || longest > 1000 {
		t.Fatalf("stored os %d bytes, version %q, longest event %d bytes: want ≤128, as sent (≤64), ≤1000",
			len(view.Host.OS), view.Host.InstalledVersion, longest)
	}

	resp, err := http.Get(h.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	scriptSrc := ""
	for d := range strings.SplitSeq(csp, ";") {
		if d = strings.TrimSpace(d); strings.HasPrefix(d, "script-src ") {
			scriptSrc = d
		}
	}
	if scriptSrc != "script-src 'self'" {
		t.Fatalf("console CSP %q: want script-src 'self' alone (no inline script)", csp)
	}

	b := NewBrowser(t, h.URL, 180*time.Second)
	// Shown as text, nothing run: no flag, no element made from the text.
	clean := func(page string) {
		t.Helper()
		b.Poll(30*time.Second, page+" shows the hostile text", `document.body.innerText.includes('window.__xss=')`, `document.body.innerText.slice(0, 300)`)
		var got struct {
			Flag   any  `json:"flag"`
			Images int  `json:"images"`
			Script bool `json:"script"`
		}
		raw := b.evalString(`JSON.stringify({flag: window.__xss ?? null, images: document.querySelectorAll('img[src="x"]').length,
			script: [...document.scripts].some(s => s.textContent.includes('__xss'))})`)
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatalf("%s: %v (%s)", page, err, raw)
		}
		if got.Flag != nil || got.Images != 0 || got.Script {
			t.Fatalf("%s ran or built hostile markup: %+v", page, got)
		}
	}
	pages := 0
	adminSignIn(b, adminUser, adminPassword)
	for _, p := range []string{"/admin/hosts", "/admin/hosts/" + hostID} {
		b.Open(p)
		clean(p)
		pages++
	}
	b.Open("/signin")
	b.WaitVisible("signin-email", 20*time.Second)
	b.Type("signin-email", email)
	b.Type("signin-password", password)
	b.Click("signin-submit")
	b.WaitPath(`^/hosts$`, 20*time.Second)
	for _, p := range []string{"/hosts", "/hosts/" + hostID} {
		b.Open(p)
		clean(p)
		pages++
	}
	battery.Report(t, "T51", "OS text (%d bytes sent → %d stored), version, 4 events (longest %d → %d bytes stored) with <script>, onerror, U+202E, 10 KB: %d console pages (admin and user) in headless Chromium show them as text, 0 scripts run, 0 injected elements; CSP %q",
		len(osText), len(view.Host.OS), len(long), longest, pages, scriptSrc)
}
