package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/loadtest"
)

// Terminal scenario sizes: a few hundred keystrokes, more while b.dur
// lasts, never past termKeysMax or 10 × b.dur.
const (
	termKeysMin = 300
	termKeysMax = 1000
	termWait    = 5 * time.Second // for one echo, or the shell's start
)

// terminalScenario: keystroke echo through the browser terminal WebSocket,
// the hub, the agent's stream and a real PTY running /bin/sh, one key at a
// time, compared with the WebSocket floor. With -pg, also through a second
// hub instance while the agent is on the first.
func (b *bench) terminalScenario(ctx context.Context) error {
	return b.onEachCustomer(ctx, func(be *backend, h *hubProc, c *customer) error { return b.terminalOn(ctx, be, h, c) })
}

func (b *bench) terminalOn(ctx context.Context, be *backend, h *hubProc, c *customer) error {
	if err := b.terminalEcho(ctx, h, c, "terminal echo", be.name); err != nil {
		return err
	}
	if !be.scaled { // a second instance needs shared stores
		return nil
	}
	other, err := b.startHub(ctx, be)
	if err != nil {
		return err
	}
	defer other.stop()
	return b.terminalEcho(ctx, other, c, "terminal echo via other instance", be.name)
}

// terminalEcho opens a terminal through h and times keystroke echoes.
// Each key is erased again (DEL, echoed as "\b \b") before the next, so
// the line never fills and every echo is exactly the key.
func (b *bench) terminalEcho(ctx context.Context, h *hubProc, c *customer, scenario, backend string) error {
	t, err := openTerminal(h, c)
	if err != nil {
		return err
	}
	defer t.close()
	// A command whose output differs from its echo tells when the shell
	// runs; the prompt follows, then the terminal is quiet.
	if err := t.send("echo ready | tr a-z A-Z\n"); err != nil {
		return err
	}
	if err := t.expect("READY", termWait); err != nil {
		return fmt.Errorf("terminal: shell did not start: %w", err)
	}
	t.settle(200*time.Millisecond, termWait)
	var lat []time.Duration
	start := time.Now()
	for n := 0; ctx.Err() == nil && n < termKeysMax; n++ {
		if el := time.Since(start); el > 10*b.dur || (n >= termKeysMin && el > b.dur) {
			break
		}
		key := string(rune('a' + n%26))
		t0 := time.Now()
		if err := t.send(key); err != nil {
			return err
		}
		if err := t.expect(key, termWait); err != nil {
			return fmt.Errorf("terminal: keystroke %d: %w", n, err)
		}
		lat = append(lat, time.Since(t0))
		if err := t.send("\x7f"); err != nil {
			return err
		}
		if err := t.expect("\b \b", termWait); err != nil {
			return fmt.Errorf("terminal: erase %d: %w", n, err)
		}
	}
	if len(lat) > 20 {
		lat = lat[10:] // warm-up
	}
	fmt.Fprintf(os.Stderr, "  %s %s: %d keystrokes in %v\n", scenario, backend, len(lat), time.Since(start).Round(time.Millisecond))
	for _, p := range []float64{50, 99} {
		metric := fmt.Sprintf("p%.0f", p)
		b.add(row{scenario: scenario, backend: backend, metric: metric,
			value: ms(loadtest.Percentile(lat, p)), unit: "ms", floor: "floor_ws " + metric, better: "lower"})
	}
	return nil
}

// terminal is the browser side of a terminal WebSocket.
type terminal struct {
	conn   *gws.Conn
	out    chan []byte   // binary messages: the terminal's output
	closed chan struct{} // the socket ended
	quit   chan struct{} // the bench is done reading
	why    error         // why, once closed: an exit or error message, or the close
	buf    []byte        // output received but not yet matched
}

func openTerminal(h *hubProc, c *customer) (*terminal, error) {
	var tk struct{ Ticket string }
	if err := call("POST", h.url+"/v1/user/hosts/"+c.hostID+"/terminal/ticket", c.access, nil, &tk); err != nil {
		return nil, err
	}
	t := &terminal{out: make(chan []byte, 256), closed: make(chan struct{}), quit: make(chan struct{})}
	addr := "ws" + h.url[len("http"):] + "/v1/user/hosts/" + c.hostID + "/terminal/ws?cols=80&rows=24&ticket=" + url.QueryEscape(tk.Ticket)
	conn, resp, err := gws.NewClient(termHandler{t}, &gws.ClientOption{Addr: addr, HandshakeTimeout: termWait})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("terminal websocket: %s: %w", resp.Status, err)
		}
		return nil, fmt.Errorf("terminal websocket: %w", err)
	}
	t.conn = conn
	go conn.ReadLoop()
	return t, nil
}

func (t *terminal) send(s string) error {
	return t.conn.WriteMessage(gws.OpcodeBinary, []byte(s))
}

// expect reads output until it holds want, and keeps what follows.
func (t *terminal) expect(want string, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		if i := bytes.Index(t.buf, []byte(want)); i >= 0 {
			t.buf = t.buf[i+len(want):]
			return nil
		}
		select {
		case p := <-t.out:
			t.buf = append(t.buf, p...)
		case <-t.closed:
			return fmt.Errorf("socket closed waiting for %q: %w", want, t.why)
		case <-timer.C:
			return fmt.Errorf("no %q within %v (got %q)", want, d, t.buf)
		}
	}
}

// settle drops output until none has come for quiet, or d has passed.
func (t *terminal) settle(quiet, d time.Duration) {
	end := time.After(d)
	for {
		select {
		case <-t.out:
		case <-time.After(quiet):
			t.buf = nil
			return
		case <-end:
			t.buf = nil
			return
		}
	}
}

func (t *terminal) close() {
	close(t.quit)
	_ = t.conn.WriteClose(1000, nil)
	select {
	case <-t.closed:
	case <-time.After(termWait):
		t.conn.NetConn().Close()
	}
}

type termHandler struct{ t *terminal }

func (termHandler) OnOpen(*gws.Conn)             {}
func (termHandler) OnPing(c *gws.Conn, p []byte) { _ = c.WritePong(p) }
func (termHandler) OnPong(*gws.Conn, []byte)     {}

func (h termHandler) OnClose(_ *gws.Conn, err error) {
	h.t.why = cmp.Or(h.t.why, err)
	close(h.t.closed)
}

func (h termHandler) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	if m.Opcode == gws.OpcodeText {
		// exit or error: the socket closes next; keep the reason.
		h.t.why = errors.New(m.Data.String())
		return
	}
	select {
	case h.t.out <- append([]byte(nil), m.Bytes()...):
	case <-h.t.quit:
	}
}
