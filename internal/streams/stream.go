package streams

import (
	"context"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Stream is one flow-controlled byte stream. Read and Write may run
// concurrently with each other; concurrent Reads (or Writes) are
// serialised. It is an io.ReadWriteCloser; ReadContext and WriteContext
// also give up when their context ends.
type Stream struct {
	m    *Mux
	id   uint32
	meta []byte

	rmu, wmu   sync.Mutex    // one reader, one writer at a time
	rsig, wsig chan struct{} // "look again" for the waiting reader / writer
	done       chan struct{} // closed when the stream ends

	mu       sync.Mutex
	chunks   [][]byte // received, not yet read; total buffered ≤ InitialWindow
	buffered int
	unacked  int   // read but not yet granted back
	recvWin  int   // credit the peer still holds; recvWin+buffered+unacked == InitialWindow
	sendWin  int64 // credit we hold
	recvEOF  bool
	eofSent  bool // EOF frame requested (Write refuses from then on)
	dead     bool
	rerr     error       // what Read returns once the buffer is empty
	werr     error       // what Write returns
	peer     *CloseError // the peer's CLOSE, once received
}

func newStream(m *Mux, id uint32, meta []byte) *Stream {
	return &Stream{
		m: m, id: id, meta: meta,
		rsig: make(chan struct{}, 1), wsig: make(chan struct{}, 1),
		done:    make(chan struct{}),
		recvWin: InitialWindow, sendWin: InitialWindow,
	}
}

// ID is the stream id, unique on its connection and never reused; JSON
// control messages about the stream (a terminal resize) name it.
func (s *Stream) ID() uint32 { return s.id }

// PeerClose is the CLOSE the peer sent, with its code and reason (a normal
// close carries a reason too, such as a terminal's exit status), or nil
// while none has arrived. Wait for Done before asking.
func (s *Stream) PeerClose() *CloseError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peer
}

// Meta is the metadata the opener sent with OPEN.
func (s *Stream) Meta() []byte { return s.meta }

// Done is closed when the stream has ended: closed by either side, or its
// connection gone. (A stream that only saw EOF both ways is not "ended"
// until Close.)
func (s *Stream) Done() <-chan struct{} { return s.done }

// Read implements io.Reader.
func (s *Stream) Read(p []byte) (int, error) { return s.ReadContext(context.Background(), p) }

// Write implements io.Writer.
func (s *Stream) Write(p []byte) (int, error) { return s.WriteContext(context.Background(), p) }

// ReadContext reads buffered data, waiting for some if there is none. After
// the peer's EOF (or a normal close) and once the buffer is drained it
// returns io.EOF. Consuming data is what grants the peer more credit.
func (s *Stream) ReadContext(ctx context.Context, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	for {
		s.mu.Lock()
		if s.buffered > 0 {
			n, grant := s.take(p)
			s.mu.Unlock()
			if grant > 0 {
				// Best effort: if the grant is lost the connection is too.
				_ = s.m.send(Frame{Type: TypeWindow, Stream: s.id, Credit: uint32(grant)})
			}
			return n, nil
		}
		err := s.rerr
		if err == nil && s.recvEOF {
			err = io.EOF
		}
		s.mu.Unlock()
		if err != nil {
			return 0, err
		}
		select {
		case <-s.rsig:
		case <-s.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// take copies buffered data into p and decides on a grant: credit is
// returned in batches of half a window, so a fast stream costs one WINDOW
// frame per 128 KiB. Called with s.mu held.
func (s *Stream) take(p []byte) (n, grant int) {
	for n < len(p) && len(s.chunks) > 0 {
		c := copy(p[n:], s.chunks[0])
		n += c
		if c == len(s.chunks[0]) {
			s.chunks[0] = nil
			s.chunks = s.chunks[1:]
		} else {
			s.chunks[0] = s.chunks[0][c:]
		}
	}
	s.buffered -= n
	s.unacked += n
	if s.unacked >= InitialWindow/2 && !s.recvEOF && !s.dead {
		grant = s.unacked
		s.recvWin += grant
		s.unacked = 0
	}
	return n, grant
}

// WriteContext sends p, as DATA frames of at most MaxPayload bytes, each
// only once the peer has granted the credit for it. It waits while the
// credit is exhausted, without holding up any other stream or the
// connection, and returns how much was sent when ctx ends first.
func (s *Stream) WriteContext(ctx context.Context, p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	total := 0
	for len(p) > 0 {
		s.mu.Lock()
		if s.werr != nil || s.eofSent {
			err := s.werr
			s.mu.Unlock()
			if err == nil {
				err = ErrStreamClosed
			}
			return total, err
		}
		if s.sendWin > 0 {
			n := int(min(int64(len(p)), int64(MaxPayload), s.sendWin))
			s.sendWin -= int64(n)
			s.mu.Unlock()
			if err := s.m.send(Frame{Type: TypeData, Stream: s.id, Data: p[:n]}); err != nil {
				return total, err
			}
			total += n
			p = p[n:]
			continue
		}
		s.mu.Unlock()
		select {
		case <-s.wsig:
		case <-s.done:
		case <-ctx.Done():
			return total, ctx.Err()
		}
	}
	return total, nil
}

// CloseWrite half-closes: the peer reads what was sent, then io.EOF, and
// may go on writing. It waits for a Write in progress to finish its frame.
func (s *Stream) CloseWrite() error {
	s.mu.Lock()
	if s.dead || s.eofSent {
		s.mu.Unlock()
		return nil
	}
	s.eofSent = true
	both := s.recvEOF
	s.mu.Unlock()
	signal(s.wsig) // a writer waiting for credit gives up
	s.wmu.Lock()
	err := s.m.send(Frame{Type: TypeEOF, Stream: s.id})
	s.wmu.Unlock()
	if both {
		s.m.remove(s)
	}
	return err
}

// Close ends the stream both ways with CodeNormal: the peer reads what was
// sent, then io.EOF, and its writes fail. Unread data here is discarded.
func (s *Stream) Close() error { return s.CloseWithCode(CodeNormal, "") }

// CloseWithCode ends the stream both ways, telling the peer why (reason
// is cut to MaxReason bytes). A second close does nothing.
func (s *Stream) CloseWithCode(code Code, reason string) error {
	s.mu.Lock()
	finished := s.eofSent && s.recvEOF
	s.mu.Unlock()
	if !s.terminate(ErrStreamClosed, ErrStreamClosed, true) || finished {
		return nil
	}
	return s.m.send(Frame{Type: TypeClose, Stream: s.id, Code: code, Reason: shorten(reason)})
}

// terminate ends the stream once; it reports whether this call did it.
// The reader still drains what is buffered unless discard is set.
func (s *Stream) terminate(rerr, werr error, discard bool) bool {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return false
	}
	s.dead = true
	s.rerr, s.werr = rerr, werr
	if discard {
		s.chunks, s.buffered = nil, 0
	}
	close(s.done)
	s.mu.Unlock()
	s.m.remove(s)
	return true
}

// handle applies one frame from the peer; it never blocks.
func (s *Stream) handle(f Frame) {
	switch f.Type {
	case TypeData:
		s.data(f.Data)
	case TypeWindow:
		s.mu.Lock()
		s.sendWin += int64(f.Credit)
		over := s.sendWin > maxWindow
		s.mu.Unlock()
		if over {
			s.violation("window overflow")
			return
		}
		signal(s.wsig)
	case TypeEOF:
		s.mu.Lock()
		s.recvEOF = true
		both := s.eofSent
		s.mu.Unlock()
		signal(s.rsig)
		if both {
			s.m.remove(s)
		}
	case TypeClose:
		e := &CloseError{Code: f.Code, Reason: f.Reason, Remote: true}
		s.mu.Lock()
		s.peer = e
		s.mu.Unlock()
		var rerr error = e
		if f.Code == CodeNormal {
			rerr = io.EOF
		}
		s.terminate(rerr, e, false)
	}
}

func (s *Stream) data(p []byte) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return
	}
	if s.recvEOF || len(p) > s.recvWin {
		s.mu.Unlock()
		s.violation("data beyond credit or after EOF")
		return
	}
	s.recvWin -= len(p)
	s.chunks = append(s.chunks, append([]byte(nil), p...))
	s.buffered += len(p)
	s.mu.Unlock()
	signal(s.rsig)
}

// violation closes the stream the peer broke the rules on, and only it.
func (s *Stream) violation(reason string) {
	e := &CloseError{Code: CodeProtocol, Reason: reason}
	if s.terminate(e, e, true) {
		s.m.ctrl.push(Frame{Type: TypeClose, Stream: s.id, Code: CodeProtocol, Reason: reason})
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// shorten makes reason valid UTF-8 of at most MaxReason bytes.
func shorten(reason string) string {
	reason = strings.ToValidUTF8(reason, "?")
	for len(reason) > MaxReason {
		_, size := utf8.DecodeLastRuneInString(reason)
		reason = reason[:len(reason)-size]
	}
	return reason
}
