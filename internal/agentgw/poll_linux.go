package agentgw

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// poller waits for a gateway's agent sockets to become readable, on one
// goroutine that also sweeps the sessions' deadlines. A socket is
// registered one-shot: once it has been reported readable it is not
// reported again until its session has read what there was and armed it
// again, so the session's reads never overlap. The kernel forgets a
// socket when it is closed.
type poller struct {
	mu     sync.RWMutex // held to use fd; written when it is closed
	fd     int
	closed bool
	t      *table
}

// newPoller starts the gateway's poller, which ends with ctx; nil when
// epoll is not available, the sessions then being swept alone and read
// by a goroutine each.
func newPoller(ctx context.Context, t *table) *poller {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		slog.Warn("agentgw: no epoll; agent sockets are read by a goroutine each", "err", err)
		go t.sweepLoop(ctx)
		return nil
	}
	p := &poller{fd: fd, t: t}
	go p.loop(ctx)
	return p
}

// pollEvents are the readiness a socket is watched for: bytes to read, or
// the peer gone (a read then says how).
const pollEvents = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT

func (p *poller) loop(ctx context.Context) {
	defer func() {
		p.mu.Lock()
		p.closed = true
		_ = unix.Close(p.fd)
		p.mu.Unlock()
	}()
	events := make([]unix.EpollEvent, 256)
	next := time.Now().Add(sweepEvery)
	for ctx.Err() == nil {
		n, err := unix.EpollWait(p.fd, events, int(time.Until(next)/time.Millisecond)+1)
		if err != nil && err != unix.EINTR {
			slog.Error("agentgw: epoll_wait failed; agent sockets are no longer read", "err", err)
			return
		}
		for _, ev := range events[:max(n, 0)] {
			if s := p.t.get(ev.Fd); s != nil {
				s.in.pushNow(s.readReady)
			}
		}
		if now := time.Now(); !now.Before(next) {
			p.t.sweep(now)
			next = now.Add(sweepEvery)
		}
	}
}

// ctl registers (op EPOLL_CTL_ADD) or rearms (EPOLL_CTL_MOD) s's socket.
func (p *poller) ctl(s *session, op int) bool {
	if p == nil {
		return false
	}
	tc, ok := s.raw.(*net.TCPConn)
	if !ok {
		return false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	ev := unix.EpollEvent{Events: pollEvents, Fd: s.slot}
	var cerr error
	if err := rc.Control(func(fd uintptr) { cerr = unix.EpollCtl(p.fd, op, int(fd), &ev) }); err != nil {
		return false
	}
	return cerr == nil
}

// watch registers s's socket with the poller; false when it cannot be
// watched and must be read by a goroutine of its own.
func (p *poller) watch(s *session) bool { return p.ctl(s, unix.EPOLL_CTL_ADD) }

// maxReadsPerWake bounds how much one wake reads from a busy socket
// before the others get their turn (the socket stays readable, so epoll
// reports it again at once).
const maxReadsPerWake = 16

// readReady reads what the socket holds, without waiting, handles it,
// and arms the socket again. It runs on the session's inbox.
func (s *session) readReady() {
	if s.readDone {
		return
	}
	tc := s.raw.(*net.TCPConn) // watched sockets are
	rc, err := tc.SyscallConn()
	if err != nil {
		s.readFailed(err)
		return
	}
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	for range maxReadsPerWake {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			for {
				n, rerr = unix.Read(int(fd), buf)
				if rerr != unix.EINTR {
					return true // never wait: the poller does that
				}
			}
		})
		if err == nil {
			err = rerr
		}
		if err == unix.EAGAIN {
			break
		}
		if err == nil && n == 0 {
			err = io.EOF
		}
		if err != nil {
			s.readFailed(err)
			return
		}
		s.consume(buf[:n])
		if s.readDone {
			return
		}
		if n < len(buf) {
			break // drained; a byte that arrives now makes the socket readable again
		}
	}
	if !s.g.poll.ctl(s, unix.EPOLL_CTL_MOD) && !s.gone.Load() {
		s.readFailed(io.ErrClosedPipe)
	}
}

// readBufs are the buffers socket reads go through; an idle socket holds
// none.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}
