//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

// TestLinkCut cuts the agent's link while a command runs through the API
// and a terminal is open on a browser-style WebSocket, with real hub and
// agent processes: the proxy between them closed (both ends; then only
// the agent's, leaving the hub a half-dead link until the agent's new
// connection replaces it), the link made silent both ways with both ends
// open, and the agent killed with SIGKILL. The command answers 502
// agent_disconnected within seconds (504 agent_timeout at its deadline
// on the silent link), the terminal ends cleanly (an exit message with a
// reason, then close 1000), the host reads offline while the agent cannot
// return, and once it is back commands and terminals work again. The
// measured times are logged.
//
// The agent heartbeats every linkHeartbeat (HOSTGATE_AGENT_HEARTBEAT), so
// on the silent link it gives up after three of them rather than the
// hub's 75 s, and the case takes about half a minute.
func TestLinkCut(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, false)
	e.AgentEnv("SHELL", "/bin/sh")
	e.AgentEnv("HOSTGATE_AGENT_HEARTBEAT", linkHeartbeat.String())
	h := e.StartHub()
	cust := NewCustomer(t, h)
	cust.Fund(h, 100)
	creds := cust.CreateHost(h, "linkcut")
	p := startLinkProxy(t, h.addr)
	viaProxy := creds
	viaProxy.WSURL = strings.Replace(creds.WSURL, h.addr, p.addr(), 1)
	if viaProxy.WSURL == creds.WSURL {
		t.Fatalf("ws_url %q does not name the hub's address %s", creds.WSURL, h.addr)
	}
	state := t.TempDir()
	agent := e.StartAgent(viaProxy, state)
	eventually.True(t, 15*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	api := hostgate.New(h.URL, cust.Key)

	// The hub's read deadline: three heartbeat intervals of silence.
	const deadline = 75 * time.Second
	disconnected := apiEnd{502, "agent_disconnected", 0, 15 * time.Second}
	cases := []struct {
		name string
		cut  func()
		// offline: the host must read offline after the cut (the agent
		// cannot come back until back() runs).
		offline bool
		back    func()
		// The API's answer; the terminal's end within termWithin.
		api        apiEnd
		termWithin time.Duration
	}{
		{name: "proxy closed", cut: p.cut, offline: true, back: p.up, api: disconnected, termWithin: 15 * time.Second},
		{name: "half-dead link", cut: p.halfDead, api: disconnected, termWithin: 15 * time.Second},
		// Both ends open, nothing passes: the command answers at its
		// deadline (timeout_s 5 + 15 s), the terminal once a side's read
		// deadline has passed.
		{name: "silent link", cut: p.silence, api: apiEnd{504, "agent_timeout", 5, 25 * time.Second},
			termWithin: deadline + 10*time.Second},
		{name: "agent SIGKILL", cut: func() { _ = agent.cmd.Process.Kill() }, offline: true, back: func() {
			<-agent.done // reaped: its cleanup's Stop has nothing left to do
			agent = e.StartAgent(viaProxy, state)
		}, api: disconnected, termWithin: 15 * time.Second},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sleepAPI, sleepTerm := fmt.Sprintf("30.%d1", i), fmt.Sprintf("40.%d1", i)
			t.Cleanup(func() { killSleeps(sleepAPI, sleepTerm) })

			// An open terminal running a command of its own.
			term := openWSTerm(t, h, cust, creds.HostID)
			term.send(t, "echo re''ady\n")
			term.waitOutput(t, "ready")
			term.send(t, "sleep "+sleepTerm+"\n")
			eventually.True(t, 15*time.Second, "the terminal's sleep running", func() bool { return sleeping(sleepTerm) })

			// A command through the API, in flight on the agent.
			type answer struct {
				err error
				at  time.Time
			}
			answered := make(chan answer, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				timeoutS := 60
				if c.api.timeoutS > 0 {
					timeoutS = c.api.timeoutS
				}
				_, err := api.Shell(ctx, creds.HostID, "sleep", sleepAPI, timeoutS)
				answered <- answer{err, time.Now()}
			}()
			eventually.True(t, 15*time.Second, "the API's sleep running", func() bool { return sleeping(sleepAPI) })

			cut := time.Now()
			c.cut()

			var a answer
			select {
			case a = <-answered:
			case <-time.After(2 * time.Minute):
				t.Fatal("the API call did not answer within two minutes of the cut")
			}
			apiAfter := a.at.Sub(cut)
			if e, ok := errors.AsType[*hostgate.Error](a.err); !ok || e.Status != c.api.status || e.Code != c.api.code || e.Message == "" {
				t.Fatalf("API call after the cut: %v, want %d %s", a.err, c.api.status, c.api.code)
			}
			termAfter, exit, code := term.end(t)
			if code != 1000 || exit == nil || exit["type"] != "exit" || exit["reason"] == nil || exit["reason"] == "" {
				t.Fatalf("terminal end: close %d after %v, want an exit message with a reason, then close 1000", code, exit)
			}
			t.Logf("%s: API answered %d %s %v after the cut; terminal got %v and close %d %v after it",
				c.name, c.api.status, c.api.code, apiAfter.Round(time.Millisecond), exit, code, termAfter.Sub(cut).Round(time.Millisecond))
			// 502 within seconds, not at the command's deadline (75 s);
			// 504 at the deadline, never later.
			if apiAfter > c.api.within || termAfter.Sub(cut) > c.termWithin {
				t.Fatalf("answers came %v and %v after the cut, want within %v and %v", apiAfter, termAfter.Sub(cut), c.api.within, c.termWithin)
			}

			if c.offline {
				eventually.True(t, 15*time.Second, "host offline", func() bool { return !cust.Connected(h, creds.HostID) })
				t.Logf("%s: host offline %v after the cut", c.name, time.Since(cut).Round(time.Millisecond))
				if s := cust.Ping(h, creds.HostID); s != 409 {
					t.Fatalf("ping while offline: %d, want 409 host_offline", s)
				}
				c.back()
			}
			back := time.Now()
			// On the silent link the agent finds out by its own silence
			// check (three of its heartbeats, up to a fourth late) and
			// reconnects, which replaces the hub's silent socket.
			eventually.True(t, time.Minute, "agent back", func() bool {
				return cust.Connected(h, creds.HostID) && cust.Ping(h, creds.HostID) == 200
			})
			t.Logf("%s: commands work again %v after the link returned", c.name, time.Since(back).Round(time.Millisecond))
			res, err := api.Shell(t.Context(), creds.HostID, "sh", "-c 'echo again'", 10)
			if err != nil || strings.TrimSpace(res.Stdout) != "again" || res.ExitCode != 0 {
				t.Fatalf("command after the link returned: %+v, %v", res, err)
			}
			again := openWSTerm(t, h, cust, creds.HostID)
			again.send(t, "echo ag''ain; exit 4\n")
			again.waitOutput(t, "again")
			if _, exit, code := again.end(t); code != 1000 || exit == nil || exit["exit_code"] != 4.0 {
				t.Fatalf("terminal after the link returned: exit %v, close %d", exit, code)
			}
		})
	}
}

// linkHeartbeat is the agent's heartbeat in TestLinkCut. The agent drops
// the silent link after three of them (30 to 40 s after the cut) and its
// new connection replaces the hub's socket, which would answer the
// command in flight 502: that must come after the command's deadline
// (timeout_s 5 + 15 s), so the silent case sees its 504 agent_timeout.
const linkHeartbeat = 10 * time.Second

// apiEnd is how the API call in flight must answer a cut: status and
// code, within that long of the cut; timeoutS is the command's timeout_s
// (0 for 60).
type apiEnd struct {
	status   int
	code     string
	timeoutS int
	within   time.Duration
}

// linkProxy forwards TCP connections to a target address, for the agent's
// link to the hub, and cuts them on demand.
type linkProxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool // refuse new connections (close them at once)
	pairs []*linkPair
}

// linkPair is one forwarded connection.
type linkPair struct {
	agent, hub net.Conn
	mu         sync.Mutex
	silent     bool // nothing passes either way, and no end is closed for the other's
}

func (pr *linkPair) muted() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.silent
}

func startLinkProxy(t *testing.T, target string) *linkProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &linkProxy{t: t, ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, pr := range p.pairs {
			_ = pr.agent.Close()
			_ = pr.hub.Close()
		}
	})
	return p
}

func (p *linkProxy) addr() string { return p.ln.Addr().String() }

func (p *linkProxy) serve() {
	for {
		a, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			_ = a.Close()
			continue
		}
		h, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = a.Close()
			continue
		}
		pr := &linkPair{agent: a, hub: h}
		p.mu.Lock()
		p.pairs = append(p.pairs, pr)
		p.mu.Unlock()
		go pr.agentToHub()
		go pr.hubToAgent()
	}
}

func (pr *linkPair) agentToHub() { pr.forward(pr.agent, pr.hub) }
func (pr *linkPair) hubToAgent() { pr.forward(pr.hub, pr.agent) }

// forward copies from one end to the other, or swallows what it reads
// once the link is silent. When from closes, to is closed too, unless the
// link is silent: then to stays open and hears nothing.
func (pr *linkPair) forward(from, to net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 && !pr.muted() {
			_, _ = to.Write(buf[:n])
		}
		if err != nil {
			if !pr.muted() {
				_ = to.Close()
			}
			return
		}
	}
}

// cut closes every connection, both ends, and refuses new ones until up.
func (p *linkProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, pr := range p.pairs {
		_ = pr.agent.Close()
		_ = pr.hub.Close()
	}
	p.pairs = nil
}

// up forwards new connections again.
func (p *linkProxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// halfDead closes the agent's end of every connection and leaves the
// hub's end open and silent, as a NAT or a peer that vanished without a
// FIN would; new connections are forwarded.
func (p *linkProxy) halfDead() { p.quiet(true) }

// silence lets nothing through either way on every connection and closes
// nothing, as a network that drops every packet would; new connections
// are forwarded.
func (p *linkProxy) silence() { p.quiet(false) }

// quiet makes every connection pass nothing, closing the agent's end too
// when closeAgent is set.
func (p *linkProxy) quiet(closeAgent bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.pairs {
		pr.mu.Lock()
		pr.silent = true
		pr.mu.Unlock()
		if closeAgent {
			_ = pr.agent.Close()
		}
	}
}

// sleeping reports whether a process `sleep arg` is running.
func sleeping(arg string) bool { return len(sleepPIDs(arg)) > 0 }

func sleepPIDs(arg string) []int {
	want := []byte("sleep\x00" + arg + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || !bytes.HasSuffix(b, want) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killSleeps ends the sleeps a case left behind (an agent killed with
// SIGKILL leaves its children).
func killSleeps(args ...string) {
	for _, a := range args {
		for _, pid := range sleepPIDs(a) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// wsTerm is a terminal WebSocket as the browser console opens it.
type wsTerm struct {
	gws.BuiltinEventHandler
	conn *gws.Conn

	mu       sync.Mutex
	out      strings.Builder
	controls []map[string]any
	code     uint16
	endedAt  time.Time
	closed   chan struct{}
}

func openWSTerm(t *testing.T, h *Hub, c Customer, hostID string) *wsTerm {
	t.Helper()
	var tk struct{ Ticket string }
	if s := call(t, "POST", h.URL+"/v1/user/hosts/"+hostID+"/terminal/ticket", c.Token, nil, &tk); s != 200 {
		t.Fatalf("terminal ticket: %d", s)
	}
	w := &wsTerm{closed: make(chan struct{})}
	url := "ws://" + h.addr + "/v1/user/hosts/" + hostID + "/terminal/ws?ticket=" + tk.Ticket
	conn, _, err := gws.NewClient(w, &gws.ClientOption{Addr: url})
	if err != nil {
		t.Fatalf("terminal socket: %v", err)
	}
	w.conn = conn
	go conn.ReadLoop()
	t.Cleanup(func() { _ = conn.NetConn().Close() })
	return w
}

func (w *wsTerm) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m.Opcode {
	case gws.OpcodeBinary:
		w.out.Write(m.Bytes())
	case gws.OpcodeText:
		var c map[string]any
		_ = json.Unmarshal(m.Bytes(), &c)
		w.controls = append(w.controls, c)
	}
}

func (w *wsTerm) OnClose(_ *gws.Conn, err error) {
	w.mu.Lock()
	if ce, ok := errors.AsType[*gws.CloseError](err); ok {
		w.code = ce.Code
	}
	w.endedAt = time.Now()
	w.mu.Unlock()
	close(w.closed)
}

func (w *wsTerm) send(t *testing.T, s string) {
	t.Helper()
	if err := w.conn.WriteMessage(gws.OpcodeBinary, []byte(s)); err != nil {
		t.Fatalf("terminal input: %v", err)
	}
}

func (w *wsTerm) waitOutput(t *testing.T, s string) {
	t.Helper()
	eventually.True(t, 15*time.Second, "terminal output "+s, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return strings.Contains(w.out.String(), s)
	})
}

// end waits for the socket's close and returns when it came, the last
// control message before it and the close code.
func (w *wsTerm) end(t *testing.T) (at time.Time, last map[string]any, code uint16) {
	t.Helper()
	select {
	case <-w.closed:
	case <-time.After(2 * time.Minute):
		w.mu.Lock()
		defer w.mu.Unlock()
		t.Fatalf("the terminal socket did not end within two minutes; output %q", w.out.String())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.controls); n > 0 {
		last = w.controls[n-1]
	}
	return w.endedAt, last, w.code
}

// TestTerminalLastLineBeforeTheEnd is the repeated check of the end of a
// browser terminal (docs/terminal.md, "End of a session"): the shell's
// last line arrives before the exit message and the close, also when keys
// are typed while the shell exits (each then finds the terminal ended).
func TestTerminalLastLineBeforeTheEnd(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, false)
	e.AgentEnv("SHELL", "/bin/sh")
	h := e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "last-line")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 15*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	for i := range 20 {
		w := openWSTerm(t, h, cust, creds.HostID)
		w.send(t, "echo h''i; exit 3\n")
		for range 20 { // keys typed on, until the socket has ended
			if w.conn.WriteMessage(gws.OpcodeBinary, []byte("x")) != nil {
				break
			}
		}
		_, exit, code := w.end(t)
		w.mu.Lock()
		out := w.out.String()
		w.mu.Unlock()
		if !strings.Contains(out, "hi\r\n") || code != 1000 || exit == nil || exit["exit_code"] != 3.0 {
			t.Fatalf("session %d: output %q, exit %v, close %d; want the line hi, exit code 3, close 1000", i, out, exit, code)
		}
	}
}
