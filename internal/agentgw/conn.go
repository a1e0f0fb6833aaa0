package agentgw

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"hostgate/internal/hosts"
)

// How a socket is read. An idle agent costs the hub no goroutine: on
// Linux one goroutine per gateway waits, in epoll, for all its agent
// sockets to become readable (poll_linux.go), and a socket's bytes are
// then read, parsed (frames.go) and handled on the session's inbox, the
// goroutine that lives only while a session has work (inbox.go). Elsewhere, and for a
// socket that is not a plain TCP connection (the hub serving TLS itself),
// a goroutine per socket reads (readBlocking). Sockets silent past their
// deadline are closed by one sweep a second over all of them (on the
// poller's goroutine, or one of its own), not by a timer each.

// errStop ends reading without failing the connection (a close frame was
// answered).
var errStop = errors.New("agentgw: reading stopped")

// errIdle is why a socket silent past its deadline was closed.
var errIdle = errors.New("agentgw: no message from the agent in time")

// hijack takes the connection from the HTTP server, with any bytes the
// agent sent after its request that the server has already read.
func hijack(w http.ResponseWriter) (net.Conn, []byte, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("agentgw: connection cannot be hijacked")
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	return conn, buffered(rw.Reader), nil
}

func buffered(br *bufio.Reader) []byte {
	n := br.Buffered()
	if n == 0 {
		return nil
	}
	b, _ := br.Peek(n)
	return append([]byte(nil), b...)
}

// start begins reading the socket: the bytes that came with the upgrade
// first, then whatever arrives.
func (s *session) start(early []byte) {
	s.touchFor(helloTimeout)
	s.g.sessions.put(s)
	s.started.Store(true)
	s.in.push(func() {
		if len(early) > 0 {
			s.consume(early)
		}
		if !s.readDone && !s.g.poll.watch(s) {
			go s.readBlocking()
		}
	})
}

// consume parses bytes read from the socket and handles what they hold.
// It runs on the session's inbox.
func (s *session) consume(b []byte) {
	if s.readDone {
		return
	}
	if err := s.fr.feed(b, s.frame); err != nil {
		s.readFailed(err)
	}
}

// readBlocking reads the socket on a goroutine of its own, for sockets the
// poller cannot watch.
func (s *session) readBlocking() {
	buf := make([]byte, 512)
	for {
		n, err := s.raw.Read(buf)
		if n > 0 {
			b := append([]byte(nil), buf[:n]...)
			s.in.push(func() { s.consume(b) })
		}
		if err != nil {
			s.in.push(func() { s.readFailed(err) })
			return
		}
	}
}

// readFailed stops reading and closes the socket: with the close code of
// a protocol error, or a normal closure for a read that failed.
func (s *session) readFailed(err error) {
	if s.readDone {
		return
	}
	s.readDone = true
	if err == errStop {
		return
	}
	code := uint16(closeNormal)
	var fe *frameError
	if errors.As(err, &fe) {
		code = fe.code
	}
	s.endWith(code, err)
}

// endWith closes the socket with a close frame, err being the reason the
// session ended unless one was given already.
func (s *session) endWith(code uint16, err error) {
	s.cause.CompareAndSwap(nil, &err)
	reason := err.Error()
	_ = s.write(func() error { return s.writeClose(code, reason) }, len(reason))
}

// frame handles a message or control frame read from the socket.
func (s *session) frame(op byte, payload []byte) error {
	switch op {
	case opText, opBinary:
		handler{s.g}.message(s, op, payload)
	case opPing:
		_ = s.write(func() error { return s.writeFrame(opPong, payload) }, len(payload))
		s.touch()
	case opPong:
		s.touch()
	case opClose:
		reply, code, reason := closeReply(payload)
		err := fmt.Errorf("closed by the agent: %d %s", code, strings.ToValidUTF8(string(reason), ""))
		s.cause.CompareAndSwap(nil, &err)
		_ = s.write(func() error { return s.writeClose(reply, "") }, 2)
		return errStop
	}
	return nil
}

// touch extends the socket's deadline: a socket silent for idleFactor
// heartbeats is closed, so a half-open TCP connection does not linger.
func (s *session) touch() { s.touchFor(idleFactor * hosts.HeartbeatInterval) }

func (s *session) touchFor(d time.Duration) {
	s.deadline.Store(time.Now().Add(d).UnixNano())
}

// socketClosed handles the socket's close (writeClose), once: the session leaves the sweep,
// and its end is handled on its inbox, after the messages read before it.
func (s *session) socketClosed() {
	if !s.started.Load() || !s.gone.CompareAndSwap(false, true) {
		return
	}
	s.g.sessions.remove(s)
	var err error
	if p := s.cause.Load(); p != nil {
		err = *p
	}
	s.in.pushNow(func() {
		s.readDone = true
		handler{s.g}.closed(s, err)
	})
}

// table holds a gateway's open sessions by slot: the poller names a
// socket by its slot, and the sweep walks them all. A slot costs 8 bytes.
type table struct {
	mu    sync.RWMutex
	slots []*session
	free  []int32
}

// sweepEvery is how often sessions' deadlines are checked: a silent socket
// is closed at most this long after its deadline.
const sweepEvery = time.Second

func (t *table) put(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.free); n > 0 {
		s.slot, t.free = t.free[n-1], t.free[:n-1]
		t.slots[s.slot] = s
		return
	}
	s.slot = int32(len(t.slots))
	t.slots = append(t.slots, s)
}

func (t *table) remove(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.slots[s.slot] == s {
		t.slots[s.slot] = nil
		t.free = append(t.free, s.slot)
	}
}

// get returns the session in slot i; nil when it has ended.
func (t *table) get(i int32) *session {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if i < 0 || int(i) >= len(t.slots) {
		return nil
	}
	return t.slots[i]
}

// sweepLoop closes, every sweepEvery, the sessions whose deadline has
// passed, until ctx ends. (On Linux the poller's loop sweeps instead.)
func (t *table) sweepLoop(ctx context.Context) {
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		select {
		case now := <-tick.C:
			t.sweep(now)
		case <-ctx.Done():
			return
		}
	}
}

// sweep closes the sessions whose deadline is before now.
func (t *table) sweep(now time.Time) {
	for _, s := range t.late(now) {
		s.deadline.Store(now.Add(time.Hour).UnixNano()) // one close is enough
		go s.endWith(closeNormal, errIdle)
	}
}

// late returns the sessions whose deadline is before now.
func (t *table) late(now time.Time) []*session {
	var late []*session
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, s := range t.slots {
		if s != nil && s.deadline.Load() < now.UnixNano() {
			late = append(late, s)
		}
	}
	return late
}
