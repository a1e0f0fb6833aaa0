package terminals

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// fakeSocket records what the hub sends the browser.
type fakeSocket struct {
	sent   chan sent
	closed chan uint16
}

type sent struct {
	binary bool
	data   []byte
}

func newFakeSocket() *fakeSocket {
	return &fakeSocket{sent: make(chan sent, 64), closed: make(chan uint16, 4)}
}

func (f *fakeSocket) WriteBinary(b []byte) error {
	f.sent <- sent{true, append([]byte(nil), b...)}
	return nil
}

func (f *fakeSocket) WriteText(b []byte) error {
	f.sent <- sent{false, append([]byte(nil), b...)}
	return nil
}
func (f *fakeSocket) WritePing() error { return nil }
func (f *fakeSocket) WriteClose(code uint16, _ []byte) error {
	f.closed <- code
	return nil
}
func (f *fakeSocket) Drop() { f.closed <- 0 }

func (f *fakeSocket) next(t *testing.T) sent {
	t.Helper()
	select {
	case m := <-f.sent:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("nothing sent to the browser")
		return sent{}
	}
}

// aliceBrowser opens a terminal for alice on host-1 of a one-instance
// cluster and the browser side of it on sock (not started).
func aliceBrowser(t *testing.T, sock Socket) (*fakeTerm, *Browser) {
	t.Helper()
	c := newCluster(t, nil)
	s := c.instance("inst-a", 0, "host-1")
	user := Principal{Kind: KindUser, ID: "alice"}
	sid, err := s.Open(t.Context(), user, "host-1", 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	return <-c.terms, s.Browser(t.Context(), user, "host-1", sid, sock)
}

func TestBrowserPumpsOutputInputAndExit(t *testing.T) {
	sock := newFakeSocket()
	term, b := aliceBrowser(t, sock)
	b.Start()

	term.out <- []byte("$ ")
	if m := sock.next(t); !m.binary || string(m.data) != "$ " {
		t.Fatalf("output: %+v", m)
	}
	b.Message(true, []byte("ls\n"))
	b.Message(false, []byte(`{"type":"input","data":"pwd\n"}`))
	if got := term.input(); got != "ls\npwd\n" {
		t.Fatalf("input %q", got)
	}
	b.Message(false, []byte(`{"type":"resize","cols":0,"rows":0}`))
	var ctl Control
	if m := sock.next(t); m.binary || json.Unmarshal(m.data, &ctl) != nil || ctl.Type != "error" || ctl.Error != "invalid_body" {
		t.Fatalf("bad resize: %s", m.data)
	}

	term.exit(`{"exit_code":3}`)
	ctl = Control{}
	if m := sock.next(t); m.binary || json.Unmarshal(m.data, &ctl) != nil || ctl.Type != "exit" || ctl.ExitCode == nil || *ctl.ExitCode != 3 {
		t.Fatalf("exit: %s", m.data)
	}
	if code := <-sock.closed; code != CloseNormal {
		t.Fatalf("close code %d", code)
	}
	b.Closed()
}

func TestBrowserRefusesAMessageThatIsNotJSON(t *testing.T) {
	c := newCluster(t, nil)
	s := c.instance("inst-a", 0, "host-1")
	user := Principal{Kind: KindUser, ID: "alice"}
	sid, err := s.Open(t.Context(), user, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	<-c.terms
	sock := newFakeSocket()
	b := s.Browser(t.Context(), user, "host-1", sid, sock)
	b.Message(false, []byte("not json"))
	if code := <-sock.closed; code != CloseBadMsg {
		t.Fatalf("close code %d, want %d", code, CloseBadMsg)
	}
	b.Closed()
	if _, err := s.Read(t.Context(), user, "host-1", sid, ReadOptions{From: -1}); err != nil {
		t.Fatalf("read after close: %v", err)
	}
}

// orderSocket logs, in order, every message and close the hub sends the
// browser; its first binary message waits until the test lets it go.
type orderSocket struct {
	mu      sync.Mutex
	log     []string
	entered chan struct{} // closed when the first binary write begins
	gate    chan struct{} // the first binary write returns once closed
	first   sync.Once
	closed  chan struct{}
	once    sync.Once
}

func newOrderSocket() *orderSocket {
	return &orderSocket{entered: make(chan struct{}), gate: make(chan struct{}), closed: make(chan struct{})}
}

func (o *orderSocket) add(s string) {
	o.mu.Lock()
	o.log = append(o.log, s)
	o.mu.Unlock()
}

func (o *orderSocket) WriteBinary(b []byte) error {
	o.add("data:" + string(b))
	hold := false
	o.first.Do(func() { hold = true })
	if hold {
		close(o.entered)
		<-o.gate
	}
	return nil
}

func (o *orderSocket) WriteText(b []byte) error {
	var c Control
	_ = json.Unmarshal(b, &c)
	o.add("control:" + c.Type)
	return nil
}
func (o *orderSocket) WritePing() error { return nil }
func (o *orderSocket) WriteClose(code uint16, _ []byte) error {
	o.add(fmt.Sprintf("close:%d", code))
	o.once.Do(func() { close(o.closed) })
	return nil
}
func (o *orderSocket) Drop() { o.add("drop") }

// TestBrowserSendsAllOutputBeforeTheExit: input typed after the shell
// ended (the write answers terminal_ended) while the pump still holds
// output for the browser must not end the socket first. Before the fix,
// the browser got the exit message and close 1000 while the shell's last
// line was still on its way, and lost it.
func TestBrowserSendsAllOutputBeforeTheExit(t *testing.T) {
	c := newCluster(t, nil)
	s := c.instance("inst-a", 0, "host-1")
	user := Principal{Kind: KindUser, ID: "alice"}
	sid, err := s.Open(t.Context(), user, "host-1", 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	term := <-c.terms
	sock := newOrderSocket()
	b := s.Browser(t.Context(), user, "host-1", sid, sock)
	b.Start()
	defer b.Closed()

	// The pump is writing the first output to the browser...
	term.out <- []byte("$ echo hi; exit 3\r\n")
	<-sock.entered
	// ...while the shell writes its last line and exits.
	term.out <- []byte("hi\r\n")
	term.exit(`{"exit_code":3}`)
	s.mu.Lock()
	ss := s.sessions[sid]
	s.mu.Unlock()
	eventually.True(t, 5*time.Second, "the terminal has ended", func() bool {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		return ss.ended
	})
	// A key typed now finds the terminal ended.
	b.Message(true, []byte("x"))
	close(sock.gate)
	select {
	case <-sock.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the socket was not closed")
	}
	want := []string{"data:$ echo hi; exit 3\r\n", "data:hi\r\n", "control:exit", "close:1000"}
	eventually.True(t, 5*time.Second, "every message sent", func() bool {
		sock.mu.Lock()
		defer sock.mu.Unlock()
		return len(sock.log) >= len(want)
	})
	sock.mu.Lock()
	defer sock.mu.Unlock()
	if !slices.Equal(sock.log, want) {
		t.Fatalf("sent to the browser:\n%q\nwant\n%q", sock.log, want)
	}
}
