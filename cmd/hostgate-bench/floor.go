package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/loadtest"
)

// The floors: what the machine does with no hostgate in the way.
//
//   - http: a loopback HTTP round trip to a handler that answers at once;
//   - ws: an HTTP handler that writes the request to an open WebSocket to a
//     second process and answers with its echo: hostgate's shape (API call →
//     agent socket → answer) with nothing else;
//   - exec: the same, the second process running `echo hi` for each message.
func (b *bench) floorScenarios(ctx context.Context) error {
	srv := httpServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	b.measure(ctx, "floor http", "-", "floor_http", srv.URL, nil)

	for _, mode := range []string{"echo", "exec"} {
		relay, err := newRelay(ctx, mode)
		if err != nil {
			return err
		}
		name := map[string]string{"echo": "ws", "exec": "exec"}[mode]
		b.measure(ctx, "floor "+name, "-", "floor_"+name, relay.url, nil)
		relay.close()
	}
	return nil
}

// measure runs sequential calls (p50, p99) and calls from 1, 16 and 64
// callers (throughput) of a POST to url, naming the figures after floor:
// a floor records its own values, anything else is compared with floor.
func (b *bench) measure(ctx context.Context, scenario, backend, floor, url string, body []byte) {
	call := b.poster(url, body)
	own := scenario == "floor "+floor[len("floor_"):]
	record := func(metric string, v float64, unit, better string) {
		key := floor + " " + metric
		if own {
			b.floors[key] = v
		}
		r := row{scenario: scenario, backend: backend, metric: metric, value: v, unit: unit, better: better}
		if !own {
			r.floor = key
		}
		b.add(r)
	}
	seq := loadtest.Run(ctx, 1, b.dur, 50, call)
	if seq.Errors > 0 {
		fmt.Fprintf(os.Stderr, "  %s: %d errors, first: %s\n", scenario, seq.Errors, seq.FirstError)
	}
	record("p50", ms(seq.P50), "ms", "lower")
	record("p99", ms(seq.P99), "ms", "lower")
	for _, c := range []int{1, 16, 64} {
		r := loadtest.Run(ctx, c, b.dur, c, call)
		if r.Errors > 0 {
			fmt.Fprintf(os.Stderr, "  %s c=%d: %d errors, first: %s\n", scenario, c, r.Errors, r.FirstError)
		}
		record(fmt.Sprintf("throughput c=%d", c), r.PerSecond(), "/s", "higher")
	}
}

type tokenKey struct{}

// poster returns a call that POSTs body to url, with the API key from the
// context when there is one, and fails on any status but 200.
func (b *bench) poster(url string, body []byte) func(context.Context) error {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if tok := ctx.Value(tokenKey{}); tok != nil {
			req.Header.Set("Authorization", "Bearer "+tok.(string))
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%d %s", resp.StatusCode, b)
		}
		return nil
	}
}

func httpServer(h http.Handler) *testServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.Serve(ln) }()
	return &testServer{URL: "http://" + ln.Addr().String(), s: s}
}

type testServer struct {
	URL string
	s   *http.Server
}

func (t *testServer) Close() { _ = t.s.Close() }

// relay is the WebSocket floor: an HTTP handler that forwards each request
// over one WebSocket to an echo peer process and answers with its reply.
type relay struct {
	url    string
	srv    *testServer
	peer   *exec.Cmd
	conn   atomic.Pointer[gws.Conn]
	mu     sync.Mutex
	next   uint64
	waits  map[uint64]chan []byte
	joined chan struct{}
}

func newRelay(ctx context.Context, mode string) (*relay, error) {
	r := &relay{waits: map[uint64]chan []byte{}, joined: make(chan struct{})}
	up := gws.NewUpgrader(relayHandler{r}, &gws.ServerOption{ParallelEnabled: false})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, req *http.Request) {
		c, err := up.Upgrade(w, req)
		if err != nil {
			return
		}
		r.conn.Store(c)
		close(r.joined)
		go c.ReadLoop()
	})
	mux.HandleFunc("POST /call", r.call)
	r.srv = httpServer(mux)
	r.url = r.srv.URL + "/call"
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r.peer = exec.CommandContext(ctx, self, "echo-peer", "--url", "ws"+r.srv.URL[len("http"):]+"/ws", "--mode", mode)
	r.peer.Stderr = os.Stderr
	if err := r.peer.Start(); err != nil {
		return nil, err
	}
	select {
	case <-r.joined:
	case <-time.After(10 * time.Second):
		r.close()
		return nil, errors.New("echo peer did not connect")
	}
	return r, nil
}

func (r *relay) call(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	ch := make(chan []byte, 1)
	r.mu.Lock()
	r.next++
	id := r.next
	r.waits[id] = ch
	r.mu.Unlock()
	msg := append(strconv.AppendUint(nil, id, 10), ' ')
	msg = append(msg, body...)
	if err := r.conn.Load().WriteMessage(gws.OpcodeText, msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	select {
	case reply := <-ch:
		_, _ = w.Write(reply)
	case <-time.After(10 * time.Second):
		http.Error(w, "no echo", http.StatusGatewayTimeout)
	}
}

func (r *relay) close() {
	if c := r.conn.Load(); c != nil {
		c.NetConn().Close()
	}
	r.srv.Close()
	_ = r.peer.Process.Kill()
	_ = r.peer.Wait()
}

type relayHandler struct{ r *relay }

func (relayHandler) OnOpen(*gws.Conn)             {}
func (relayHandler) OnClose(*gws.Conn, error)     {}
func (relayHandler) OnPing(c *gws.Conn, p []byte) { _ = c.WritePong(p) }
func (relayHandler) OnPong(*gws.Conn, []byte)     {}
func (h relayHandler) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	idText, reply, _ := bytes.Cut(m.Bytes(), []byte{' '})
	id, _ := strconv.ParseUint(string(idText), 10, 64)
	h.r.mu.Lock()
	ch := h.r.waits[id]
	delete(h.r.waits, id)
	h.r.mu.Unlock()
	if ch != nil {
		ch <- append([]byte(nil), reply...)
	}
}

// echoPeer is the floor's second process: it answers each message on its
// WebSocket with the same id, and the same bytes (echo) or the output of
// `echo hi` (exec), handling messages concurrently like an agent.
func echoPeer(args []string) error {
	fs := flag.NewFlagSet("echo-peer", flag.ContinueOnError)
	url := fs.String("url", "", "relay WebSocket")
	mode := fs.String("mode", "echo", "echo or exec")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, _, err := gws.NewClient(peerHandler{exec: *mode == "exec"}, &gws.ClientOption{Addr: *url})
	if err != nil {
		return err
	}
	c.ReadLoop()
	return nil
}

type peerHandler struct{ exec bool }

func (peerHandler) OnOpen(*gws.Conn)             {}
func (peerHandler) OnClose(*gws.Conn, error)     { os.Exit(0) }
func (peerHandler) OnPing(c *gws.Conn, p []byte) { _ = c.WritePong(p) }
func (peerHandler) OnPong(*gws.Conn, []byte)     {}
func (p peerHandler) OnMessage(c *gws.Conn, m *gws.Message) {
	msg := append([]byte(nil), m.Bytes()...)
	m.Close()
	go func() {
		if p.exec {
			id, _, _ := bytes.Cut(msg, []byte{' '})
			out, err := exec.Command("echo", "hi").Output()
			if err != nil {
				out = []byte(err.Error())
			}
			msg = append(append(id, ' '), out...)
		}
		_ = c.WriteMessage(gws.OpcodeText, msg)
	}()
}
