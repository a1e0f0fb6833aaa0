package terminals

import (
	"encoding/json"
	"testing"
	"time"
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

func TestBrowserPumpsOutputInputAndExit(t *testing.T) {
	c := newCluster(t, nil)
	s := c.instance("inst-a", 0, "host-1")
	user := Principal{Kind: KindUser, ID: "alice"}
	sid, err := s.Open(t.Context(), user, "host-1", 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	term := <-c.terms
	sock := newFakeSocket()
	b := s.Browser(t.Context(), user, "host-1", sid, sock)
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
