package httpapi_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agent"
	"hostgate/internal/hubtest"
)

// The in-process agents start $SHELL: a plain POSIX shell starts fast and,
// unlike readline, keeps input typed before its first prompt. After the
// tests, every answer they got must be in the OpenAPI document
// (openapi_answers_test.go).
func TestMain(m *testing.M) {
	os.Setenv("SHELL", "/bin/sh")
	hubtest.RecordAnswers()
	os.Exit(hubtest.CheckAnswersDocumented(m.Run()))
}

// termFixture is a funded user with an API key and a connected agent.
type termFixture struct {
	h    *hubtest.Hub
	user hubtest.Auth
	key  string
	host string
}

func newTermFixture(t *testing.T, h *hubtest.Hub, maxTerminals int) termFixture {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("terminals are tested on Linux")
	}
	u := h.Register(t)
	f := termFixture{h: h, user: u, key: apiKey(t, h, u.AccessToken)}
	fin, _ := h.Admin(t, "finance")
	h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
		map[string]any{"tokens": 1000, "reason": "terminal test"}).Want(t, 200, "")
	f.host = h.ConnectAgent(t, u.User.ID, func(c *agent.Config) { c.MaxTerminals = maxTerminals })
	return f
}

// session is a pull-mode shell session through one hub instance.
type session struct {
	t     testing.TB
	c     *hubtest.Client
	base  string
	calls int
}

func (f termFixture) open(t testing.TB, via *hubtest.Hub, cols, rows int) *session {
	t.Helper()
	c := via.Client(t).As(f.key)
	var out struct {
		StreamID string `json:"stream_id"`
	}
	c.Do("POST", "/v1/api/hosts/"+f.host+"/shell/session/open", map[string]int{"cols": cols, "rows": rows}).
		Want(t, 200, "").JSON(t, &out)
	if out.StreamID == "" {
		t.Fatal("open returned no stream_id")
	}
	return &session{t: t, c: c, base: "/v1/api/hosts/" + f.host + "/shell/session/" + out.StreamID, calls: 1}
}

func (s *session) do(op string, body any) *hubtest.Response {
	s.calls++
	return s.c.Do("POST", s.base+"/"+op, body)
}

func (s *session) write(input string) {
	s.t.Helper()
	s.do("write", map[string]string{"input": input}).Want(s.t, 200, "")
}

type readOut struct {
	Data     string `json:"data"`
	EOF      bool   `json:"eof"`
	ExitCode *int   `json:"exit_code"`
	Reason   string `json:"reason"`
}

func (s *session) read() readOut {
	s.t.Helper()
	var r readOut
	s.do("read", map[string]int{"max": 65536, "wait_ms": 2000}).Want(s.t, 200, "").JSON(s.t, &r)
	return r
}

// readUntil reads until the output contains want; it returns the output
// and the last answer.
func (s *session) readUntil(want string) (string, readOut) {
	s.t.Helper()
	var out strings.Builder
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := s.read()
		b, err := base64.StdEncoding.DecodeString(r.Data)
		if err != nil {
			s.t.Fatalf("data is not base64: %v", err)
		}
		out.Write(b)
		if strings.Contains(out.String(), want) {
			return out.String(), r
		}
		if r.EOF || time.Now().After(deadline) {
			s.t.Fatalf("output %q (eof %v) never contained %q", out.String(), r.EOF, want)
		}
	}
}

// readToEOF reads until EOF and returns the last answer.
func (s *session) readToEOF() readOut {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if r := s.read(); r.EOF {
			return r
		}
		if time.Now().After(deadline) {
			s.t.Fatal("no EOF within 15 s")
		}
	}
}

// inGoroutine is a testing.TB for helpers called off the test goroutine:
// a fatal failure is reported and ends only that goroutine.
type inGoroutine struct{ testing.TB }

func (g inGoroutine) Fatalf(format string, args ...any) {
	g.Errorf(format, args...)
	runtime.Goexit()
}

func (g inGoroutine) Fatal(args ...any) {
	g.Error(args...)
	runtime.Goexit()
}

// flowing opens sessions through via from n goroutines, each echoing
// markers and reading them back, while one more session floods output
// that nobody reads.
func (f termFixture) flowing(t *testing.T, via *hubtest.Hub, n int) {
	t.Helper()
	flood := f.open(t, via, 0, 0)
	flood.write("yes flood-line-that-nobody-reads\n")
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			g := inGoroutine{t}
			s := f.open(g, via, 0, 0)
			for round := range 3 {
				marker := fmt.Sprintf("m%d-%d", i, round)
				s.write("echo " + marker[:2] + "''" + marker[2:] + "\n")
				s.readUntil(marker)
			}
			s.do("close", nil).Want(g, 200, "")
		})
	}
	wg.Wait()
	// The unread one was held back, not lost: it still answers.
	flood.readUntil("flood-line")
	flood.do("close", nil).Want(t, 200, "")
}

// exercise runs the pull-mode acceptance through one instance.
func (f termFixture) exercise(t *testing.T, via *hubtest.Hub) {
	t.Helper()
	s := f.open(t, via, 80, 24)
	// The shell echoes the input as typed; only the output has "hello".
	s.write("echo hel''lo\n")
	s.readUntil("hello")
	s.do("resize", map[string]int{"cols": 123, "rows": 45}).Want(t, 200, "")
	s.write("stty size\n")
	s.readUntil("45 123")
	s.do("close", nil).Want(t, 200, "")
	if r := s.read(); !r.EOF {
		t.Fatalf("read after close: %+v, want eof", r)
	}
	s.do("write", map[string]string{"input": "late\n"}).Want(t, 410, "terminal_ended")

	e := f.open(t, via, 0, 0)
	e.write("exit 3\n")
	if r := e.readToEOF(); r.ExitCode == nil || *r.ExitCode != 3 {
		t.Fatalf("after exit 3: %+v", r)
	}
}

func TestShellSessions(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		f := newTermFixture(t, h, 16)
		before := balanceOf(t, h, f.user.AccessToken)
		s := f.open(t, h, 80, 24)
		s.write("echo charged\n")
		s.readUntil("charged")
		s.do("close", nil).Want(t, 200, "")
		if got, want := before-balanceOf(t, h, f.user.AccessToken), 0.1*float64(s.calls); fmt.Sprintf("%.1f", got) != fmt.Sprintf("%.1f", want) {
			t.Fatalf("charged %.2f for %d calls, want 0.1 each", got, s.calls)
		}

		f.exercise(t, h)

		// A session answers only its user, on its host; bad input changes nothing.
		s = f.open(t, h, 0, 0)
		other := h.Register(t)
		otherKey := apiKey(t, h, other.AccessToken)
		missing := h.Client(t).As(otherKey).Do("POST", "/v1/api/hosts/00000000-0000-4000-8000-000000000000/shell/session/open", nil).Want(t, 404, "not_found")
		theirs := h.Client(t).As(otherKey).Do("POST", s.base+"/write", map[string]string{"input": "x"}).Want(t, 404, "not_found")
		if string(missing.Body) != string(theirs.Body) {
			t.Fatalf("another user's session %s differs from a missing host %s", theirs.Body, missing.Body)
		}
		unknown := strings.TrimSuffix(s.base, s.base[strings.LastIndex(s.base, ".")+1:]) + "AAAAAAAAAAAAAAAAAAAAAA"
		s.c.Do("POST", unknown+"/read", nil).Want(t, 404, "not_found")
		s.do("resize", map[string]int{"cols": 0, "rows": 10}).Want(t, 400, "")
		s.do("write", map[string]string{"input": ""}).Want(t, 400, "")
		s.do("read", map[string]int{"wait_ms": 30000}).Want(t, 400, "")
		s.do("close", nil).Want(t, 200, "")

		// Without balance: 402 and nothing opened.
		broke := h.Register(t)
		brokeKey := apiKey(t, h, broke.AccessToken)
		brokeHost := h.ConnectAgent(t, broke.User.ID, nil)
		h.Client(t).As(brokeKey).Do("POST", "/v1/api/hosts/"+brokeHost+"/shell/session/open", nil).Want(t, 402, "insufficient_balance")
	})
}

// wsTerm is a browser-like terminal WebSocket client.
type wsTerm struct {
	gws.BuiltinEventHandler
	conn *gws.Conn

	mu      sync.Mutex
	out     strings.Builder
	control []map[string]any
	closed  chan struct{}
	code    uint16
	changed chan struct{}
}

func (w *wsTerm) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	w.mu.Lock()
	switch m.Opcode {
	case gws.OpcodeBinary:
		w.out.Write(m.Bytes())
	case gws.OpcodeText:
		var c map[string]any
		_ = json.Unmarshal(m.Bytes(), &c)
		w.control = append(w.control, c)
	}
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *wsTerm) OnClose(_ *gws.Conn, err error) {
	var ce *gws.CloseError
	if errors.As(err, &ce) {
		w.code = ce.Code
	}
	close(w.closed)
}

func wsURL(h *hubtest.Hub, path string) string {
	return "ws" + strings.TrimPrefix(h.URL, "http") + path
}

func dialTerm(t *testing.T, url string) *wsTerm {
	t.Helper()
	w := &wsTerm{closed: make(chan struct{}), changed: make(chan struct{}, 1)}
	conn, resp, err := gws.NewClient(w, &gws.ClientOption{Addr: url})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", url, err, status)
	}
	w.conn = conn
	go conn.ReadLoop()
	t.Cleanup(func() { conn.NetConn().Close() })
	return w
}

func (w *wsTerm) send(t *testing.T, s string) {
	t.Helper()
	if err := w.conn.WriteMessage(gws.OpcodeBinary, []byte(s)); err != nil {
		t.Fatal(err)
	}
}

func (w *wsTerm) sendControl(t *testing.T, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := w.conn.WriteMessage(gws.OpcodeText, b); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until cond holds on the output and control messages.
func (w *wsTerm) waitFor(t *testing.T, what string, cond func(out string, control []map[string]any) bool) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		w.mu.Lock()
		ok := cond(w.out.String(), w.control)
		out := w.out.String()
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-w.changed:
		case <-w.closed:
			w.mu.Lock()
			ok = cond(w.out.String(), w.control)
			w.mu.Unlock()
			if !ok {
				t.Fatalf("socket closed (code %d) before %s; output %q", w.code, what, out)
			}
			return
		case <-deadline:
			t.Fatalf("no %s within 15 s; output %q", what, out)
		}
	}
}

func ticketFor(t *testing.T, h *hubtest.Hub, token, path string) string {
	t.Helper()
	var out struct {
		Ticket    string `json:"ticket"`
		ExpiresIn int    `json:"expires_in"`
	}
	h.Client(t).As(token).Do("POST", path+"/terminal/ticket", nil).Want(t, 200, "").JSON(t, &out)
	if len(out.Ticket) != 43 || out.ExpiresIn != 30 {
		t.Fatalf("ticket %+v: want 32 bytes in base64url, valid 30 s", out)
	}
	return out.Ticket
}

// driveTerminal runs the browser terminal acceptance over one socket.
func driveTerminal(t *testing.T, w *wsTerm) {
	t.Helper()
	w.send(t, "echo hel''lo\n")
	w.waitFor(t, "hello", func(out string, _ []map[string]any) bool { return strings.Contains(out, "hello") })
	w.sendControl(t, map[string]any{"type": "resize", "cols": 132, "rows": 43})
	w.send(t, "stty size\n")
	w.waitFor(t, "the new size", func(out string, _ []map[string]any) bool { return strings.Contains(out, "43 132") })
	w.sendControl(t, map[string]any{"type": "input", "data": "exit 0\n"})
	w.waitFor(t, "the exit message", func(_ string, c []map[string]any) bool {
		return len(c) > 0 && c[len(c)-1]["type"] == "exit" && c[len(c)-1]["exit_code"] == 0.0
	})
	select {
	case <-w.closed:
		if w.code != 1000 {
			t.Fatalf("closed with %d after exit, want 1000", w.code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("socket not closed after exit")
	}
}

func TestTerminalWebSocket(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		f := newTermFixture(t, h, 16)
		userHost := "/v1/user/hosts/" + f.host
		tk := ticketFor(t, h, f.user.AccessToken, userHost)
		driveTerminal(t, dialTerm(t, wsURL(h, userHost+"/terminal/ws?cols=100&rows=30&ticket="+tk)))

		c := h.Client(t)
		c.Do("GET", userHost+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")
		c.Do("GET", userHost+"/terminal/ws", nil).Want(t, 401, "unauthorized")
		c.Do("GET", userHost+"/terminal/ws?ticket=nonsense", nil).Want(t, 401, "invalid_ticket")

		// A ticket is for one host and one console, and is spent by a try.
		second := h.ConnectAgent(t, f.user.User.ID, nil)
		tk = ticketFor(t, h, f.user.AccessToken, userHost)
		c.Do("GET", "/v1/user/hosts/"+second+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")
		c.Do("GET", userHost+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")
		tk = ticketFor(t, h, f.user.AccessToken, userHost)
		c.Do("GET", "/v1/admin/hosts/"+f.host+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")

		// A page of another site may not use a ticket (and spends it, see
		// TestTerminalTicketSpentByAnyRefusal); the hub's own may.
		tk = ticketFor(t, h, f.user.AccessToken, userHost)
		req, _ := http.NewRequest("GET", h.URL+userHost+"/terminal/ws?ticket="+tk, nil)
		req.Header.Set("Origin", "https://evil.example")
		c.Send(req).Want(t, 403, "forbidden")
		tk = ticketFor(t, h, f.user.AccessToken, userHost)
		req, _ = http.NewRequest("GET", h.URL+userHost+"/terminal/ws?ticket="+tk+"&cols=0", nil)
		req.Header.Set("Origin", h.URL)
		c.Send(req).Want(t, 400, "invalid_query") // past the Origin check, and spends the ticket
		c.Do("GET", userHost+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")

		// Another user cannot get a ticket for the host.
		other := h.Register(t)
		c.As(other.AccessToken).Do("POST", userHost+"/terminal/ticket", nil).Want(t, 404, "not_found")

		// 100 concurrent upgrades with one ticket: exactly one succeeds.
		tk = ticketFor(t, h, f.user.AccessToken, userHost)
		var upgraded, refused atomic.Int64
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				w := &wsTerm{closed: make(chan struct{}), changed: make(chan struct{}, 1)}
				conn, resp, err := gws.NewClient(w, &gws.ClientOption{Addr: wsURL(h, userHost+"/terminal/ws?ticket="+tk)})
				switch {
				case err == nil:
					upgraded.Add(1)
					conn.NetConn().Close()
				case resp != nil && resp.StatusCode == 401:
					refused.Add(1)
				default:
					t.Errorf("upgrade: %v", err)
				}
			})
		}
		wg.Wait()
		if upgraded.Load() != 1 || refused.Load() != 99 {
			t.Fatalf("100 upgrades with one ticket: %d upgraded, %d refused; want 1 and 99", upgraded.Load(), refused.Load())
		}

		// Admins: an operator opens any host's terminal, audited; a viewer may not.
		op, opID := h.Admin(t, "operator")
		adminHost := "/v1/admin/hosts/" + f.host
		atk := ticketFor(t, h, op, adminHost)
		var audit struct {
			Items []struct {
				AdminID  string `json:"admin_id"`
				Action   string `json:"action"`
				TargetID string `json:"target_id"`
			} `json:"items"`
		}
		c.As(op).Do("GET", "/v1/admin/audit-logs?action=host.terminal_open", nil).Want(t, 200, "").JSON(t, &audit)
		if len(audit.Items) != 1 || audit.Items[0].AdminID != opID || audit.Items[0].TargetID != f.host {
			t.Fatalf("audit rows for the admin ticket: %+v", audit.Items)
		}
		c.Do("GET", userHost+"/terminal/ws?ticket="+atk, nil).Want(t, 401, "invalid_ticket")
		atk = ticketFor(t, h, op, adminHost)
		driveTerminal(t, dialTerm(t, wsURL(h, adminHost+"/terminal/ws?ticket="+atk)))
		viewer, _ := h.Admin(t, "viewer")
		c.As(viewer).Do("POST", adminHost+"/terminal/ticket", nil).Want(t, 403, "forbidden")

		// Logging out ends the terminal opened from that login, and
		// spoils a ticket it asked for.
		tk = ticketFor(t, h, f.user.AccessToken, userHost)
		w := dialTerm(t, wsURL(h, userHost+"/terminal/ws?ticket="+tk))
		spare := ticketFor(t, h, f.user.AccessToken, userHost)
		c.Do("POST", "/v1/public/auth/logout", map[string]string{"refresh_token": f.user.RefreshToken}).Want(t, 200, "")
		w.waitFor(t, "the end of the session", func(_ string, ctl []map[string]any) bool {
			return len(ctl) > 0 && ctl[len(ctl)-1]["error"] == "invalid_token"
		})
		<-w.closed
		c.Do("GET", userHost+"/terminal/ws?ticket="+spare, nil).Want(t, 401, "invalid_ticket")
	})
}

// upgradeTerm attempts the terminal WebSocket upgrade at path through via
// with header, and returns the status it was refused with (0 when
// upgraded; the socket is closed at once).
func upgradeTerm(t *testing.T, via *hubtest.Hub, path string, header http.Header) int {
	t.Helper()
	w := &wsTerm{closed: make(chan struct{}), changed: make(chan struct{}, 1)}
	conn, resp, err := gws.NewClient(w, &gws.ClientOption{Addr: wsURL(via, path), RequestHeader: header})
	switch {
	case err == nil:
		conn.NetConn().Close()
		return 0
	case resp != nil:
		return resp.StatusCode
	}
	t.Fatalf("upgrade %s: %v", path, err)
	return 0
}

// TestTerminalTicketSpentByAnyRefusal: a ticket is single use whatever
// refused it. One refused for its Origin, for plain ws:// when the hub
// wants wss://, or for a malformed host id cannot be used again, not even
// with everything else right.
func TestTerminalTicketSpentByAnyRefusal(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		const public = "https://hub.example.com"
		h := hubtest.Start(t, mode, hubtest.WithEnv("HOSTGATE_PUBLIC_URL", public),
			hubtest.WithEnv("HOSTGATE_TRUSTED_PROXIES", "127.0.0.1/32"))
		u := h.Register(t)
		f := termFixture{h: h, user: u}
		f.host = h.ConnectAgent(t, u.User.ID, func(c *agent.Config) { // the public name resolves nowhere
			c.APIEndpoint = strings.Replace(c.APIEndpoint, public, h.URL, 1)
			c.WSURL = strings.Replace(c.WSURL, "wss"+strings.TrimPrefix(public, "https"), wsURL(h, ""), 1)
		})
		path := "/v1/user/hosts/" + f.host + "/terminal/ws?ticket="
		good := http.Header{"Origin": {public}, "X-Forwarded-Proto": {"https"}}

		// The good request works with a fresh ticket.
		if got := upgradeTerm(t, h, path+ticketFor(t, h, f.user.AccessToken, "/v1/user/hosts/"+f.host), good); got != 0 {
			t.Fatalf("upgrade with a fresh ticket: refused %d, want upgraded", got)
		}
		for _, c := range []struct {
			name   string
			path   string // the refused attempt's path, before the ticket
			header http.Header
			status int
		}{
			{"evil origin", path, http.Header{"Origin": {"https://evil.example"}, "X-Forwarded-Proto": {"https"}}, 403},
			{"plain ws", path, http.Header{"Origin": {public}}, 403},
			{"host id not a uuid", "/v1/user/hosts/not-a-uuid/terminal/ws?ticket=", good, 400},
		} {
			tk := ticketFor(t, h, f.user.AccessToken, "/v1/user/hosts/"+f.host)
			if got := upgradeTerm(t, h, c.path+tk, c.header); got != c.status {
				t.Errorf("%s: refused %d, want %d", c.name, got, c.status)
			}
			if got := upgradeTerm(t, h, path+tk, good); got != 401 {
				t.Errorf("%s, then a good upgrade with the same ticket: status %d, want 401 (ticket spent)", c.name, got)
			}
		}
	})
}

// TestTerminalTicketExpires: a ticket not used within its lifetime is
// refused. The hub's tickets live a second here instead of
// terminals.TicketTTL.
func TestTerminalTicketExpires(t *testing.T) {
	t.Parallel()
	const ttl = time.Second
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithTerminalTicketTTL(ttl))
	u := h.Register(t)
	hostPath := "/v1/user/hosts/" + h.ConnectAgent(t, u.User.ID, nil)
	tk := ticketFor(t, h, u.AccessToken, hostPath)
	time.Sleep(ttl) // time must pass (the ticket's lifetime since its issue); a try sooner would spend the ticket
	h.Client(t).Do("GET", hostPath+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")
}

func TestFiftySessionsOneUnread(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	f := newTermFixture(t, h, 64)
	f.flowing(t, h, 49)
}

func TestTerminalsAcrossInstances(t *testing.T) {
	a := hubtest.Start(t, hubtest.Scaled)
	b := a.StartSibling(t)
	f := newTermFixture(t, a, 64)
	if a.Terminals.Len() != 0 || b.Dispatch.LocalCount() != 0 {
		t.Fatal("the agent must be on instance a only")
	}

	f.exercise(t, b)

	// An operation carried out on a, asked through b, names a's charge.
	s := f.open(t, b, 80, 24)
	r := s.do("write", map[string]string{"input": "true\n"}).Want(t, 200, "")
	var bal struct{ Tokens float64 }
	a.Client(t).As(f.user.AccessToken).Do("GET", "/v1/user/billing/balance", nil).Want(t, 200, "").JSON(t, &bal)
	if got := r.Header.Get("X-Hostgate-Balance"); r.Header.Get("X-Hostgate-Charged") != "0.1" || got != strconv.FormatFloat(bal.Tokens, 'f', -1, 64) {
		t.Errorf("routed write: X-Hostgate-Charged %q, X-Hostgate-Balance %q; want 0.1 and the balance %v",
			r.Header.Get("X-Hostgate-Charged"), got, bal.Tokens)
	}
	s.do("close", nil).Want(t, 200, "")

	// Fifty sessions through b, one never read.
	f.flowing(t, b, 49)
	if n := b.Terminals.Len(); n != 0 {
		t.Fatalf("instance b holds %d terminals; they belong on the agent's instance", n)
	}

	// The browser terminal through b, with a ticket from a.
	userHost := "/v1/user/hosts/" + f.host
	tk := ticketFor(t, a, f.user.AccessToken, userHost)
	driveTerminal(t, dialTerm(t, wsURL(b, userHost+"/terminal/ws?ticket="+tk)))
	b.Client(t).Do("GET", userHost+"/terminal/ws?ticket="+tk, nil).Want(t, 401, "invalid_ticket")

	// Suspending the user through a ends their terminal held through b.
	w := dialTerm(t, wsURL(b, userHost+"/terminal/ws?ticket="+ticketFor(t, a, f.user.AccessToken, userHost)))
	w.send(t, "echo su''spend-me\n")
	w.waitFor(t, "output", func(out string, _ []map[string]any) bool { return strings.Contains(out, "suspend-me") })
	op, _ := a.Admin(t, "operator")
	a.Client(t).As(op).Do("POST", "/v1/admin/users/"+f.user.User.ID+"/suspend", nil).Want(t, 200, "")
	w.waitFor(t, "the end of the session", func(_ string, ctl []map[string]any) bool {
		return len(ctl) > 0 && ctl[len(ctl)-1]["error"] == "invalid_token"
	})
	<-w.closed
}
