package procops

import (
	"errors"
	"io"
	"slices"
	"sync"
	"unicode/utf8"
)

// cappedBuffer keeps the first max bytes written to it and drops the
// rest, while still accepting every write: a child whose output passes
// the cap must not block on a full pipe, or it would never finish.
type cappedBuffer struct {
	mu        sync.Mutex
	buf       []byte
	max       int
	truncated bool
}

func newCappedBuffer(max int) *cappedBuffer { return &cappedBuffer{max: max} }

// Write keeps what fits under the cap and reports the whole of p written.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	room := b.max - len(b.buf)
	if len(p) > room {
		b.truncated = true
		p = p[:max(room, 0)]
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// ReadFrom reads r to its end (os/exec copies a child's output with it):
// straight into the kept bytes while they are under the cap, growing them
// as the output comes, so a short output costs no 32 KiB copy buffer per
// stream; past the cap the rest is read and dropped. It must not run
// beside Write.
func (b *cappedBuffer) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	for {
		b.mu.Lock()
		if len(b.buf) == cap(b.buf) && len(b.buf) < b.max {
			b.buf = slices.Grow(b.buf, min(b.max-len(b.buf), max(512, len(b.buf))))
		}
		free := b.buf[len(b.buf):min(cap(b.buf), b.max)]
		b.mu.Unlock()
		if len(free) == 0 {
			dropped, err := io.Copy(io.Discard, r)
			if dropped > 0 {
				b.mu.Lock()
				b.truncated = true
				b.mu.Unlock()
			}
			return n + dropped, err
		}
		m, err := r.Read(free)
		b.mu.Lock()
		b.buf = b.buf[:len(b.buf)+m]
		b.mu.Unlock()
		n += int64(m)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Bytes returns what was kept, and whether anything was dropped.
func (b *cappedBuffer) Bytes() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf, b.truncated
}

// outputText turns captured output into the text of a ShellResult. A cut
// output loses the incomplete character at its end, so that the cap does
// not make valid UTF-8 look invalid; output that is still not UTF-8 is
// decoded by decodeNonUTF8 (the OEM code page on Windows).
func outputText(b []byte, truncated bool) string {
	if truncated {
		b = trimPartialRune(b)
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return decodeNonUTF8(b)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing pending
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
