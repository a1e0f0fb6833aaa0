package terminals

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/battery"
	"hostgate/internal/coord"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/eventually"
	"hostgate/internal/streams"
)

// fakeTerm is a terminal whose output the test feeds and whose input,
// sizes and close it records.
type fakeTerm struct {
	out   chan []byte
	eof   chan struct{}
	done  chan struct{}
	reads atomic.Int64

	mu     sync.Mutex
	in     bytes.Buffer
	sizes  [][2]int
	closed bool
	peer   *streams.CloseError
	rest   []byte
	once   sync.Once
}

func newFakeTerm() *fakeTerm {
	return &fakeTerm{out: make(chan []byte), eof: make(chan struct{}), done: make(chan struct{})}
}

func (f *fakeTerm) ReadContext(ctx context.Context, p []byte) (int, error) {
	f.reads.Add(1)
	f.mu.Lock()
	if len(f.rest) > 0 {
		n := copy(p, f.rest)
		f.rest = f.rest[n:]
		f.mu.Unlock()
		return n, nil
	}
	f.mu.Unlock()
	select {
	case <-f.eof: // as a stream: EOF before the close that follows it
		return 0, io.EOF
	default:
	}
	select {
	case b := <-f.out:
		n := copy(p, b)
		f.mu.Lock()
		f.rest = append(f.rest, b[n:]...)
		f.mu.Unlock()
		return n, nil
	case <-f.eof:
		return 0, io.EOF
	case <-f.done:
		return 0, streams.ErrStreamClosed
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (f *fakeTerm) WriteContext(_ context.Context, p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, streams.ErrStreamClosed
	}
	return f.in.Write(p)
}

func (f *fakeTerm) Resize(_ context.Context, cols, rows int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sizes = append(f.sizes, [2]int{cols, rows})
	return nil
}

func (f *fakeTerm) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.once.Do(func() { close(f.done) })
	return nil
}

func (f *fakeTerm) Done() <-chan struct{} { return f.done }

func (f *fakeTerm) PeerClose() *streams.CloseError {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peer
}

// exit ends the output with the shell's exit status, as the agent does.
func (f *fakeTerm) exit(reason string) {
	f.mu.Lock()
	f.peer = &streams.CloseError{Code: streams.CodeNormal, Reason: reason, Remote: true}
	f.mu.Unlock()
	close(f.eof)
	f.once.Do(func() { close(f.done) })
}

func (f *fakeTerm) input() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.in.String()
}

// cluster is hub instances sharing one coordination, each holding the
// agents named in its hosts.
type cluster struct {
	t       *testing.T
	coord   coord.Coord
	terms   chan *fakeTerm
	charged atomic.Int64
}

func newCluster(t *testing.T, c coord.Coord) *cluster {
	if c == nil {
		c = inproc.New()
		t.Cleanup(func() { c.Close() })
	}
	return &cluster{t: t, coord: c, terms: make(chan *fakeTerm, 64)}
}

// instance starts a Service holding the agents of hosts.
func (c *cluster) instance(id string, bufCap int, hosts ...string) *Service {
	t := c.t
	held := map[string]bool{}
	for _, h := range hosts {
		held[h] = true
		if err := c.coord.SetPresence(t.Context(), h, id, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	s := New(Config{
		Instance: id, Coord: c.coord, BufferBytes: bufCap, Log: slog.New(slog.DiscardHandler),
		Local: func(h string) bool { return held[h] },
		Open: func(context.Context, string, int, int) (Terminal, error) {
			f := newFakeTerm()
			c.terms <- f
			return f, nil
		},
		Charge: func(ctx context.Context, p Principal, hostID string) error {
			if p.APIKeyID == "broke" {
				return apperr.New("insufficient_balance", "no tokens")
			}
			c.charged.Add(1)
			return nil
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.Run(ctx, ready); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	<-ready
	t.Cleanup(func() { cancel(); <-done })
	return s
}

var (
	alice = Principal{Kind: KindUser, ID: "alice", APIKeyID: "k1"}
	bob   = Principal{Kind: KindUser, ID: "bob", APIKeyID: "k2"}
)

func readAll(t *testing.T, s *Service, p Principal, host, sid string, want string) {
	t.Helper()
	var got []byte
	deadline := time.Now().Add(10 * time.Second)
	for !bytes.Contains(got, []byte(want)) {
		if time.Now().After(deadline) {
			t.Fatalf("read %q, want it to contain %q", got, want)
		}
		c, err := s.Read(t.Context(), p, host, sid, ReadOptions{From: -1, Wait: time.Second})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		got = append(got, c.Data...)
	}
}

func TestOperationsLocalAndRouted(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 0, "host-1")
	b := c.instance("inst-b", 0)
	for _, front := range []*Service{a, b} {
		t.Run(front.cfg.Instance, func(t *testing.T) {
			held := a.Len() // closed terminals linger as ended
			sid, err := front.Open(t.Context(), alice, "host-1", 100, 30)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			f := <-c.terms
			if a.Len() != held+1 || b.Len() != 0 {
				t.Fatalf("terminals held: a %d, b %d; want the agent's instance to hold it", a.Len(), b.Len())
			}
			if err := front.Write(t.Context(), alice, "host-1", sid, []byte("echo hi\n")); err != nil {
				t.Fatal(err)
			}
			if got := f.input(); got != "echo hi\n" {
				t.Fatalf("input %q", got)
			}
			f.out <- []byte("hi\r\n")
			readAll(t, front, alice, "host-1", sid, "hi\r\n")
			if err := front.Resize(t.Context(), alice, "host-1", sid, 120, 40); err != nil {
				t.Fatal(err)
			}
			if err := front.Close(t.Context(), alice, "host-1", sid); err != nil {
				t.Fatal(err)
			}
			if !f.closed || len(f.sizes) != 1 || f.sizes[0] != [2]int{120, 40} {
				t.Fatalf("closed %v sizes %v", f.closed, f.sizes)
			}
			ch, err := front.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: -1, Wait: time.Second})
			if err != nil || !ch.EOF || len(ch.Data) != 0 {
				t.Fatalf("read after close: %+v %v, want EOF", ch, err)
			}
			if err := front.Close(t.Context(), alice, "host-1", sid); err != nil {
				t.Fatalf("second close: %v", err)
			}
			if err := front.Write(t.Context(), alice, "host-1", sid, []byte("x")); !apperr.Is(err, CodeTerminalEnded) {
				t.Fatalf("write after close: %v", err)
			}
		})
	}
}

func TestSessionBelongsToItsOpener(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 0, "host-1", "host-2")
	b := c.instance("inst-b", 0)
	sid, err := a.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := <-c.terms
	before := c.charged.Load()
	for name, call := range map[string]func(s *Service) error{
		"other user": func(s *Service) error { return s.Write(t.Context(), bob, "host-1", sid, []byte("x")) },
		"other kind": func(s *Service) error {
			return s.Write(t.Context(), Principal{Kind: KindAdmin, ID: "alice"}, "host-1", sid, []byte("x"))
		},
		"other host":     func(s *Service) error { return s.Write(t.Context(), alice, "host-2", sid, []byte("x")) },
		"unknown id":     func(s *Service) error { return s.Close(t.Context(), alice, "host-1", "inst-a.AAAAAAAAAAAAAAAAAAAAAA") },
		"malformed id":   func(s *Service) error { return s.Close(t.Context(), alice, "host-1", "garbage") },
		"other's resize": func(s *Service) error { return s.Resize(t.Context(), bob, "host-1", sid, 10, 10) },
	} {
		for _, front := range []*Service{a, b} {
			if err := call(front); !apperr.Is(err, apperr.CodeNotFound) {
				t.Errorf("%s via %s: %v, want not_found", name, front.cfg.Instance, err)
			}
		}
	}
	if f.input() != "" || len(f.sizes) != 0 || f.closed {
		t.Fatalf("a refused call reached the terminal: input %q sizes %v closed %v", f.input(), f.sizes, f.closed)
	}
	if c.charged.Load() != before {
		t.Fatalf("refused calls were charged: %d", c.charged.Load()-before)
	}
}

func TestChargedPerCallAndRefusedWithoutBalance(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 0, "host-1")
	b := c.instance("inst-b", 0)
	sid, err := b.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := <-c.terms
	_ = b.Write(t.Context(), alice, "host-1", sid, []byte("a"))
	_, _ = b.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: -1})
	if n := c.charged.Load(); n != 3 {
		t.Fatalf("charged %d times for open, write, read; want 3", n)
	}
	broke := Principal{Kind: KindUser, ID: "alice", APIKeyID: "broke"}
	if err := a.Write(t.Context(), broke, "host-1", sid, []byte("b")); !apperr.Is(err, "insufficient_balance") {
		t.Fatalf("write without balance: %v", err)
	}
	if _, err := b.Open(t.Context(), broke, "host-1", 0, 0); !apperr.Is(err, "insufficient_balance") {
		t.Fatalf("open without balance: %v", err)
	}
	if f.input() != "a" || len(c.terms) != 0 {
		t.Fatalf("an unpaid call ran: input %q, %d more terminals", f.input(), len(c.terms))
	}
	// Console principals (no API key) are not charged.
	admin := Principal{Kind: KindAdmin, ID: "root"}
	if _, err := a.Open(t.Context(), admin, "host-1", 0, 0); err != nil {
		t.Fatal(err)
	}
	<-c.terms
	if n := c.charged.Load(); n != 3 {
		t.Fatalf("a console terminal was charged: %d", n)
	}
}

func TestOffsetReadsCanBeRepeated(t *testing.T) {
	c := newCluster(t, nil)
	c.instance("inst-a", 0, "host-1")
	b := c.instance("inst-b", 0)
	sid, err := b.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := <-c.terms
	f.out <- []byte("first")
	read := func(from int64) Chunk {
		t.Helper()
		ch, err := b.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: from, Wait: 5 * time.Second})
		if err != nil {
			t.Fatalf("read from %d: %v", from, err)
		}
		return ch
	}
	c1 := read(0)
	if string(c1.Data) != "first" || c1.Offset != 0 {
		t.Fatalf("first read %q at %d", c1.Data, c1.Offset)
	}
	// The answer was "lost": asking again from the same offset repeats it.
	if again := read(0); string(again.Data) != "first" {
		t.Fatalf("repeated read %q", again.Data)
	}
	f.out <- []byte("second")
	for {
		c2 := read(5)
		if len(c2.Data) == 0 {
			continue
		}
		if string(c2.Data) != "second" || c2.Offset != 5 {
			t.Fatalf("after acknowledging 5 bytes: %q at %d", c2.Data, c2.Offset)
		}
		break
	}
	if _, err := b.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: 2}); !apperr.Is(err, apperr.CodeInvalidBody) {
		t.Fatalf("read before the acknowledged output: %v, want invalid_body", err)
	}
	if _, err := b.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: 100}); !apperr.Is(err, apperr.CodeInvalidBody) {
		t.Fatalf("read past the output: %v, want invalid_body", err)
	}
}

func TestUnreadTerminalStopsOnlyItself(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 16, "host-1")
	slow, err := a.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	fs := <-c.terms
	fast, err := a.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ff := <-c.terms
	// The unread terminal's buffer (16 bytes) fills; its pump stops
	// taking output, which is what stops the agent's stream.
	sent := 0
	func() {
		for {
			select {
			case fs.out <- []byte("0123456789"):
				sent++
			case <-time.After(300 * time.Millisecond):
				return
			}
		}
	}()
	if sent > 3 {
		t.Fatalf("%d chunks of 10 bytes taken from a terminal nobody reads, with a 16-byte buffer", sent)
	}
	for i := range 20 {
		ff.out <- []byte("x")
		readAll(t, a, alice, "host-1", fast, "x")
		_ = i
	}
	// Reading the slow one drains it and lets its output flow again.
	readAll(t, a, alice, "host-1", slow, "0123456789")
	select {
	case fs.out <- []byte("more"):
	case <-time.After(5 * time.Second):
		t.Fatal("the pump did not resume after the buffer was read")
	}
}

func TestExitStatusAndEnd(t *testing.T) {
	c := newCluster(t, nil)
	c.instance("inst-a", 0, "host-1")
	b := c.instance("inst-b", 0)
	sid, err := b.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := <-c.terms
	f.out <- []byte("bye")
	f.exit(`{"exit_code":3}`)
	var got []byte
	for {
		ch, err := b.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: -1, Wait: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ch.Data...)
		if ch.EOF {
			if string(got) != "bye" || ch.ExitCode == nil || *ch.ExitCode != 3 {
				t.Fatalf("end: output %q exit %v", got, ch.ExitCode)
			}
			break
		}
	}
	err = b.Write(t.Context(), alice, "host-1", sid, []byte("x"))
	if !apperr.Is(err, CodeTerminalEnded) {
		t.Fatalf("write after exit: %v, want %s", err, CodeTerminalEnded)
	}
}

// TestCloseKeepsUnreadOutput: output read after a close comes with the
// EOF in the same answer.
func TestCloseKeepsUnreadOutput(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 0, "host-1")
	sid, err := a.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := <-c.terms
	f.out <- []byte("$ ")
	eventually.True(t, 5*time.Second, "the pump has taken the prompt and waits for more", func() bool { return f.reads.Load() >= 2 })
	if err := a.Close(t.Context(), alice, "host-1", sid); err != nil {
		t.Fatal(err)
	}
	ch, err := a.Read(t.Context(), alice, "host-1", sid, ReadOptions{From: -1})
	if err != nil || string(ch.Data) != "$ " || !ch.EOF || ch.Reason == "" {
		t.Fatalf("read after close: %q eof %v reason %q err %v; want the prompt and EOF", ch.Data, ch.EOF, ch.Reason, err)
	}
}

func TestIdleTerminalsAreClosed(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 0, "host-1")
	sid, err := a.Open(t.Context(), alice, "host-1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := <-c.terms
	a.sweep(time.Now().Add(a.cfg.IdleTimeout / 2))
	if a.Len() != 1 {
		t.Fatal("a terminal in use was swept")
	}
	a.sweep(time.Now().Add(a.cfg.IdleTimeout + time.Second))
	if a.Len() != 0 || !f.closed {
		t.Fatalf("idle terminal kept: held %d, closed %v", a.Len(), f.closed)
	}
	if err := a.Close(t.Context(), alice, "host-1", sid); !apperr.Is(err, apperr.CodeNotFound) {
		t.Fatalf("close after the sweep: %v", err)
	}
}

func TestOpenWhereTheAgentIsNot(t *testing.T) {
	c := newCluster(t, nil)
	a := c.instance("inst-a", 0)
	if _, err := a.Open(t.Context(), alice, "host-9", 0, 0); !apperr.Is(err, "host_offline") {
		t.Fatalf("open on an offline host: %v", err)
	}
	if _, err := a.Open(t.Context(), alice, "host-9", -1, 0); !apperr.Is(err, apperr.CodeInvalidBody) {
		t.Fatalf("negative size: %v", err)
	}
	if c.charged.Load() != 0 {
		t.Fatal("a refused open was charged")
	}
}

func TestTickets(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	co := inproc.NewWithClock(clock)
	t.Cleanup(func() { co.Close() })
	c := newCluster(t, co)
	s := c.instance("inst-a", 0)
	user := Principal{Kind: KindUser, ID: "alice", APIKeyID: "ignored"}
	issue := func() string {
		tk, err := s.IssueTicket(t.Context(), user, "host-1")
		if err != nil {
			t.Fatal(err)
		}
		if len(tk) != ticketLen {
			t.Fatalf("ticket %q: want 43 characters (32 bytes)", tk)
		}
		return tk
	}
	redeem := func(tk, kind, host string) (Principal, error) {
		return s.RedeemTicket(t.Context(), tk, kind, host)
	}

	tk := issue()
	now.Add(int64(29 * time.Second))
	p, err := redeem(tk, KindUser, "host-1")
	if err != nil || p.ID != "alice" || p.Kind != KindUser || p.APIKeyID != "" {
		t.Fatalf("29 s old: %+v %v", p, err)
	}
	if _, err := redeem(tk, KindUser, "host-1"); !apperr.Is(err, CodeInvalidTicket) {
		t.Fatalf("reused: %v", err)
	}

	old := issue()
	now.Add(int64(31 * time.Second))
	if _, err := redeem(old, KindUser, "host-1"); !apperr.Is(err, CodeInvalidTicket) {
		t.Fatalf("31 s old: %v", err)
	}

	other := issue()
	if _, err := redeem(other, KindUser, "host-2"); !apperr.Is(err, CodeInvalidTicket) {
		t.Fatalf("another host: %v", err)
	}
	if _, err := redeem(other, KindUser, "host-1"); !apperr.Is(err, CodeInvalidTicket) {
		t.Fatalf("a ticket tried on another host must be spent: %v", err)
	}
	if _, err := redeem(issue(), KindAdmin, "host-1"); !apperr.Is(err, CodeInvalidTicket) {
		t.Fatalf("a user ticket on the admin route: %v", err)
	}
	for _, bad := range []string{"", "short", string(make([]byte, 43)), tk + "x"} {
		if _, err := redeem(bad, KindUser, "host-1"); !apperr.Is(err, CodeInvalidTicket) {
			t.Fatalf("ticket %q: %v", bad, err)
		}
	}

	race := issue()
	var wins atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if _, err := redeem(race, KindUser, "host-1"); err == nil {
				wins.Add(1)
			} else if !apperr.Is(err, CodeInvalidTicket) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("100 concurrent redeems: %d succeeded, want 1", wins.Load())
	}
	battery.Report(t, "T38", "ticket of %d characters (32 bytes); 100 concurrent redeems → %d success; reuse, 31 s old, another host, the admin route, malformed → invalid_ticket (29 s old → accepted)", ticketLen, wins.Load())
}

func TestRoutedCallToAGoneInstance(t *testing.T) {
	c := newCluster(t, nil)
	b := c.instance("inst-b", 0)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := b.Close(ctx, alice, "host-1", "inst-gone.AAAAAAAAAAAAAAAAAAAAAA")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call to an instance nobody serves: %v", err)
	}
}
