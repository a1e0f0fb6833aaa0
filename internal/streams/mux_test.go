package streams

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// pipe is an in-memory transport: each end's messages are delivered, in
// order, to the other end's Mux by one goroutine, as a WebSocket read loop
// would. It records the slowest WriteBinary and Deliver, the two calls a
// stream must never hold up.
type pipe struct {
	ch   chan []byte
	quit chan struct{}

	maxSend, maxDeliver atomic.Int64 // nanoseconds
	frames              atomic.Int64
}

func (p *pipe) WriteBinary(msg []byte) error {
	start := time.Now()
	select {
	case p.ch <- msg:
	case <-p.quit:
		return errors.New("pipe closed")
	}
	maxInto(&p.maxSend, time.Since(start))
	p.frames.Add(1)
	return nil
}

func maxInto(v *atomic.Int64, d time.Duration) {
	for {
		old := v.Load()
		if int64(d) <= old || v.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

// run delivers messages to m until quit; a malformed frame fails the test.
func (p *pipe) run(t testing.TB, m *Mux, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case msg := <-p.ch:
			start := time.Now()
			if err := m.Deliver(msg); err != nil {
				t.Errorf("Deliver: %v", err)
			}
			maxInto(&p.maxDeliver, time.Since(start))
		case <-p.quit:
			return
		}
	}
}

// pair connects a hub Mux and an agent Mux. toAgent carries hub → agent.
func pair(t testing.TB, hubCfg, agentCfg Config) (hub, agent *Mux, toAgent, toHub *pipe) {
	quit := make(chan struct{})
	toAgent = &pipe{ch: make(chan []byte, 64), quit: quit}
	toHub = &pipe{ch: make(chan []byte, 64), quit: quit}
	hubCfg.Role, agentCfg.Role = RoleHub, RoleAgent
	hub, agent = New(toAgent, hubCfg), New(toHub, agentCfg)
	var wg sync.WaitGroup
	wg.Add(2)
	go toAgent.run(t, agent, &wg)
	go toHub.run(t, hub, &wg)
	t.Cleanup(func() {
		hub.Close()
		agent.Close()
		close(quit)
		wg.Wait()
	})
	return hub, agent, toAgent, toHub
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func accept(t testing.TB, ctx context.Context, m *Mux) *Stream {
	t.Helper()
	s, err := m.Accept(ctx)
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	return s
}

func payload(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(j*7 + i)
	}
	return b
}

func buffered(s *Stream) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buffered
}

// parkedIn reports whether a goroutine that test started is parked in
// fn itself (a select or channel wait there, not in a call it makes).
func parkedIn(test, fn string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) > 1 && strings.Contains(lines[0], "[select") && strings.Contains(lines[1], fn+"(") &&
			strings.Contains(g, "created by hostgate/internal/streams."+test) {
			return true
		}
	}
	return false
}

func TestOneStuckReaderDoesNotStallOthers(t *testing.T) {
	const n, size = 50, InitialWindow + 1000
	ctx := testCtx(t)
	hub, agent, toAgent, _ := pair(t, Config{}, Config{AcceptBacklog: n})

	// The agent reads every stream but the one labelled "stuck".
	stuck := make(chan *Stream, 1)
	var readers sync.WaitGroup
	readers.Add(n - 1)
	go func() {
		for range n {
			s, err := agent.Accept(ctx)
			if err != nil {
				t.Errorf("Accept: %v", err)
				return
			}
			if string(s.Meta()) == "stuck" {
				stuck <- s
				continue
			}
			go func() {
				defer readers.Done()
				got, err := io.ReadAll(s)
				if err != nil || !bytes.Equal(got, payload(int(s.ID()), size)) {
					t.Errorf("stream %d: read %d bytes, err %v", s.ID(), len(got), err)
				}
			}()
		}
	}()

	var writers sync.WaitGroup
	stuckWrote := make(chan error, 1)
	for i := range n {
		meta := "normal"
		if i == n/2 {
			meta = "stuck"
		}
		s, err := hub.Open(ctx, []byte(meta))
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		write := func() error {
			if _, err := s.WriteContext(ctx, payload(int(s.ID()), size)); err != nil {
				return err
			}
			return s.CloseWrite()
		}
		if meta == "stuck" {
			go func() { stuckWrote <- write() }()
			continue
		}
		writers.Add(1)
		go func() {
			defer writers.Done()
			if err := write(); err != nil {
				t.Errorf("stream %d: write: %v", s.ID(), err)
			}
		}()
	}
	writers.Wait()
	readers.Wait()

	// The other 49 are done; the stuck one holds exactly one window and its
	// writer is still waiting for credit.
	s := <-stuck
	eventually.True(t, 10*time.Second, "the stuck stream's window to fill", func() bool { return buffered(s) == InitialWindow })
	select {
	case err := <-stuckWrote:
		t.Fatalf("stuck writer returned %v before its reader read", err)
	default:
	}
	// The connection still carries new traffic.
	ping, err := hub.Open(ctx, []byte("ping"))
	if err != nil {
		t.Fatal(err)
	}
	pong := accept(t, ctx, agent)
	if _, err := ping.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if _, err := io.ReadFull(pong, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("ping over a connection with a stuck stream: %q, %v", buf, err)
	}
	// Nothing queues behind the stuck stream: the read loop has drained the
	// transport. (Latencies are logged, not asserted: on a loaded machine
	// the scheduler alone can stall a goroutine for a second.)
	eventually.True(t, 10*time.Second, "the transport to drain", func() bool { return len(toAgent.ch) == 0 })
	t.Logf("slowest transport write %v, slowest Deliver %v, %d frames",
		time.Duration(toAgent.maxSend.Load()), time.Duration(toAgent.maxDeliver.Load()), toAgent.frames.Load())

	// Once read, the stuck stream completes too.
	got, err := io.ReadAll(s)
	if err != nil || !bytes.Equal(got, payload(int(s.ID()), size)) {
		t.Fatalf("stuck stream: read %d bytes, err %v", len(got), err)
	}
	if err := <-stuckWrote; err != nil {
		t.Fatalf("stuck writer: %v", err)
	}
}

func TestWriterWaitsForCredit(t *testing.T) {
	ctx := testCtx(t)
	hub, agent, _, _ := pair(t, Config{}, Config{})
	w, err := hub.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := accept(t, ctx, agent)

	// Past the window the write gives up with its context.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	n, err := w.WriteContext(short, make([]byte, InitialWindow+10))
	cancel()
	if n != InitialWindow || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WriteContext = %d, %v; want %d, DeadlineExceeded", n, err, InitialWindow)
	}

	done := make(chan error, 1)
	go func() {
		_, err := w.WriteContext(ctx, []byte("0123456789"))
		done <- err
	}()
	// Once the write waits for credit it has gone past returning at once.
	eventually.True(t, 10*time.Second, "the write waiting for credit", func() bool {
		return parkedIn("TestWriterWaitsForCredit", "(*Stream).WriteContext")
	})
	select {
	case err := <-done:
		t.Fatalf("write with no credit returned %v", err)
	default:
	}
	// Reading less than half a window grants nothing yet; half does.
	if _, err := io.ReadFull(r, make([]byte, InitialWindow/2)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("write after the reader consumed: %v", err)
	}
	eventually.True(t, 10*time.Second, "the resumed data", func() bool { return buffered(r) == InitialWindow/2+10 })
}

func TestEOFBothWays(t *testing.T) {
	ctx := testCtx(t)
	hub, agent, _, _ := pair(t, Config{}, Config{})
	a, err := hub.Open(ctx, []byte("echo"))
	if err != nil {
		t.Fatal(err)
	}
	b := accept(t, ctx, agent)
	if _, err := a.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if err := a.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("write after CloseWrite: %v", err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "ping" {
		t.Fatalf("agent read %q, %v", got, err)
	}
	// The other direction is still open.
	if _, err := b.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if err := b.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(a); err != nil || string(got) != "pong" {
		t.Fatalf("hub read %q, %v", got, err)
	}
	eventually.True(t, 10*time.Second, "both sides to forget the stream", func() bool {
		return hub.NumStreams() == 0 && agent.NumStreams() == 0
	})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCloseNormal(t *testing.T) {
	ctx := testCtx(t)
	hub, agent, _, _ := pair(t, Config{}, Config{})
	a, _ := hub.Open(ctx, nil)
	b := accept(t, ctx, agent)
	if _, err := a.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "last words" {
		t.Fatalf("read after peer Close: %q, %v", got, err)
	}
	var ce *CloseError
	if _, err := b.Write([]byte("x")); !errors.As(err, &ce) || !ce.Remote || ce.Code != CodeNormal {
		t.Fatalf("write after peer Close: %v", err)
	}
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("read after own Close: %v", err)
	}
	<-b.Done()
	if hub.NumStreams() != 0 || agent.NumStreams() != 0 {
		t.Fatalf("streams left: hub %d, agent %d", hub.NumStreams(), agent.NumStreams())
	}
}

func TestCloseWithCodeUnblocksPeer(t *testing.T) {
	ctx := testCtx(t)
	hub, agent, _, _ := pair(t, Config{}, Config{})
	a, _ := hub.Open(ctx, []byte("pty"))
	b := accept(t, ctx, agent)
	readErr := make(chan error, 1)
	go func() {
		_, err := a.Read(make([]byte, 10))
		readErr <- err
	}()
	if err := b.CloseWithCode(CodeApp, "shell failed to start"); err != nil {
		t.Fatal(err)
	}
	var ce *CloseError
	if err := <-readErr; !errors.As(err, &ce) || ce.Code != CodeApp || ce.Reason != "shell failed to start" {
		t.Fatalf("blocked read ended with %v", err)
	}
}

func TestStreamLimit(t *testing.T) {
	ctx := testCtx(t)
	hub, agent, _, _ := pair(t, Config{MaxStreams: 3}, Config{MaxStreams: 2})
	var open []*Stream
	for range 3 {
		s, err := hub.Open(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, s)
	}
	if _, err := hub.Open(ctx, nil); !errors.Is(err, ErrTooManyStreams) {
		t.Fatalf("fourth Open: %v", err)
	}
	// The agent accepts two; the third is refused.
	var ce *CloseError
	if _, err := open[2].Read(make([]byte, 1)); !errors.As(err, &ce) || ce.Code != CodeRefused {
		t.Fatalf("read on a refused stream: %v", err)
	}
	accept(t, ctx, agent)
	accept(t, ctx, agent)
	open[0].Close()
	if _, err := hub.Open(ctx, nil); err != nil {
		t.Fatalf("Open after a Close: %v", err)
	}
}

func TestMuxCloseEndsEverything(t *testing.T) {
	ctx := testCtx(t)
	hub, agent, _, _ := pair(t, Config{}, Config{})
	a, _ := hub.Open(ctx, nil)
	accept(t, ctx, agent)
	readErr := make(chan error, 1)
	go func() {
		_, err := a.Read(make([]byte, 1))
		readErr <- err
	}()
	acceptErr := make(chan error, 1)
	go func() {
		_, err := hub.Accept(ctx)
		acceptErr <- err
	}()
	hub.Close()
	if err := <-readErr; !errors.Is(err, ErrMuxClosed) {
		t.Fatalf("read: %v", err)
	}
	if err := <-acceptErr; !errors.Is(err, ErrMuxClosed) {
		t.Fatalf("accept: %v", err)
	}
	if _, err := hub.Open(ctx, nil); !errors.Is(err, ErrMuxClosed) {
		t.Fatalf("open: %v", err)
	}
}

// recorder is a transport that keeps what is sent, for driving a Mux by
// hand with raw frames.
type recorder struct {
	mu   sync.Mutex
	sent []Frame
}

func (r *recorder) WriteBinary(msg []byte) error {
	f, err := DecodeFrame(msg)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, f)
	return nil
}

func (r *recorder) closes() []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Frame
	for _, f := range r.sent {
		if f.Type == TypeClose {
			out = append(out, f)
		}
	}
	return out
}

func deliver(t *testing.T, m *Mux, f Frame) {
	t.Helper()
	b, err := f.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Deliver(b); err != nil {
		t.Fatalf("Deliver %v: %v", f.Type, err)
	}
}

func TestPeerBreakingTheRulesLosesOnlyThatStream(t *testing.T) {
	rec := &recorder{}
	agent := New(rec, Config{Role: RoleAgent})
	defer agent.Close()
	chunk := make([]byte, MaxPayload)

	deliver(t, agent, Frame{Type: TypeOpen, Stream: 1})
	deliver(t, agent, Frame{Type: TypeOpen, Stream: 3})
	for range InitialWindow / MaxPayload {
		deliver(t, agent, Frame{Type: TypeData, Stream: 1, Data: chunk})
	}
	deliver(t, agent, Frame{Type: TypeData, Stream: 1, Data: []byte("over")}) // beyond credit
	deliver(t, agent, Frame{Type: TypeData, Stream: 3, Data: []byte("fine")})
	deliver(t, agent, Frame{Type: TypeOpen, Stream: 2}) // agent's own parity
	deliver(t, agent, Frame{Type: TypeOpen, Stream: 3}) // reused
	deliver(t, agent, Frame{Type: TypeData, Stream: 99, Data: []byte("late")})
	if err := agent.Deliver([]byte{0x19, 0, 0, 0, 1}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("garbage: %v", err)
	}

	ctx := testCtx(t)
	s1, s3 := accept(t, ctx, agent), accept(t, ctx, agent)
	var ce *CloseError
	if _, err := s1.Read(make([]byte, 1)); !errors.As(err, &ce) || ce.Code != CodeProtocol {
		t.Fatalf("stream 1 after a credit overrun: %v", err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(s3, buf); err != nil || string(buf) != "fine" {
		t.Fatalf("stream 3: %q, %v", buf, err)
	}
	eventually.True(t, 10*time.Second, "three CLOSE replies", func() bool { return len(rec.closes()) == 3 })
	for _, f := range rec.closes() {
		if f.Code != CodeProtocol {
			t.Errorf("CLOSE %d: code %d, want CodeProtocol", f.Stream, f.Code)
		}
	}
}

func TestShorten(t *testing.T) {
	long := string(bytes.Repeat([]byte("é"), 100)) // 200 bytes
	if s := shorten(long); len(s) > MaxReason || s != long[:122] {
		t.Fatalf("shorten: %d bytes", len(s))
	}
	if s := shorten("a\xffb"); s != "a?b" {
		t.Fatalf("shorten invalid UTF-8: %q", s)
	}
}

func BenchmarkThroughput(b *testing.B) {
	ctx := context.Background()
	hub, agent, _, _ := pair(b, Config{}, Config{})
	w, err := hub.Open(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	r, err := agent.Accept(ctx)
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, MaxPayload)
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, r)
		done <- err
	}()
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	w.CloseWrite()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// Streams opened at the same time from many goroutines all reach the peer:
// their OPENs leave in id order, which the peer requires.
func TestConcurrentOpensAreAllAccepted(t *testing.T) {
	ctx := testCtx(t)
	const n = 100
	hub, agent, _, _ := pair(t, Config{MaxStreams: n}, Config{MaxStreams: n, AcceptBacklog: n})
	var wg sync.WaitGroup
	opened := make(chan *Stream, n)
	for range n {
		wg.Go(func() {
			s, err := hub.Open(ctx, nil)
			if err != nil {
				t.Error(err)
				return
			}
			opened <- s
		})
	}
	wg.Wait()
	close(opened)
	for range n {
		accept(t, ctx, agent)
	}
	for s := range opened {
		if _, err := s.Write([]byte("x")); err != nil {
			t.Fatalf("stream %d: %v", s.id, err)
		}
	}
}
