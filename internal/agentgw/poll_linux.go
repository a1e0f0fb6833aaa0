package agentgw

import (
	"io"
	"log/slog"
	"net"
	"sync"

	"golang.org/x/sys/unix"
)

// epoller waits for agent sockets to become readable, for every gateway
// of the process, on one goroutine. A socket is registered one-shot: once
// it has been reported readable it is not reported again until its
// session has read what there was and armed it again, so the session's
// reads never overlap. The kernel forgets a socket when it is closed.
type epoller struct{ fd int }

var (
	epollOnce sync.Once
	epollP    *epoller
	epollErr  error
)

// theEpoller returns the process's poller, starting it on first use.
func theEpoller() (*epoller, error) {
	epollOnce.Do(func() {
		fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			epollErr = err
			return
		}
		epollP = &epoller{fd: fd}
		go epollP.loop()
	})
	return epollP, epollErr
}

// pollEvents are the readiness a socket is watched for: bytes to read, or
// the peer gone (a read then says how).
const pollEvents = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT

func (p *epoller) loop() {
	events := make([]unix.EpollEvent, 256)
	for {
		n, err := unix.EpollWait(p.fd, events, -1)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			slog.Error("agentgw: epoll_wait failed; agent sockets are no longer read", "err", err)
			return
		}
		for _, ev := range events[:n] {
			if s := sessions.get(ev.Fd); s != nil {
				s.in.pushNow(s.readReady)
			}
		}
	}
}

// ctl registers (op EPOLL_CTL_ADD) or rearms (EPOLL_CTL_MOD) s's socket.
func (p *epoller) ctl(s *session, op int) bool {
	tc, ok := s.raw.(*net.TCPConn)
	if !ok {
		return false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
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
func watch(s *session) bool {
	p, err := theEpoller()
	if err != nil {
		return false
	}
	return p.ctl(s, unix.EPOLL_CTL_ADD)
}

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
	if p, err := theEpoller(); err == nil && !p.ctl(s, unix.EPOLL_CTL_MOD) && !s.gone.Load() {
		s.readFailed(io.ErrClosedPipe)
	}
}

// readBufs are the buffers socket reads go through; an idle socket holds
// none.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}
