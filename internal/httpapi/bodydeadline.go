package httpapi

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// Slow clients (docs/security.md, "Abuse limits"): the server bounds the
// request line and headers (http.Server.ReadHeaderTimeout, set by the
// hub), and bodyDeadline bounds the body: a request with a body must have
// sent all of it within Options.BodyTimeout of its headers, or the read
// fails, the route answers 408 body_timeout and the connection closes.
// The deadline is lifted once the body has been read to its end, so what
// the route does afterwards (a long-poll read, a stream) is not cut; a
// request without a body (GETs, the SSE streams, the terminal and agent
// WebSockets) never gets one. The JSON (huma) operations set the same
// deadline again when they start reading and lift it after (op sets their
// BodyReadTimeout); this one covers the raw routes too. No route takes a
// body over maxBody (1 MiB), so the default 10 s asks for about 100 KB/s
// at worst.

// bodyDeadline sets the body read deadline of r, when it has a body, and
// returns r with its body wrapped to lift the deadline at its end.
func (s *Server) bodyDeadline(w http.ResponseWriter, r *http.Request) *http.Request {
	d := s.cfg.Options.BodyTimeout
	if d <= 0 || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return r
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
		return r // a writer that cannot (a test recorder): nothing to bound
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, lift: sync.OnceFunc(func() { _ = rc.SetReadDeadline(time.Time{}) })}
	return r
}

// deadlineBody lifts the read deadline when its body has been read to
// the end.
type deadlineBody struct {
	io.ReadCloser
	lift func()
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.lift()
	}
	return n, err
}
