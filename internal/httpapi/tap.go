package httpapi

import (
	"bufio"
	"mime"
	"net"
	"net/http"
	"sync/atomic"
)

// Answered is one answer of a Server, as ObserveAnswers reports it.
type Answered struct {
	// Method and Pattern are the route ("POST", "/v1/api/hosts/{id}/files/dir");
	// Pattern is "" for a request no route matched.
	Method, Pattern string
	Status          int
	// MediaType is the Content-Type's media type without parameters, ""
	// when the answer has none.
	MediaType string
	// Charged is whether the answer carries the charge headers.
	Charged bool
}

var answerTap atomic.Pointer[func(Answered)]

// ObserveAnswers makes every Server of the process report each answer to
// f (nil stops it). Tests use it to check that what the hub answers is in
// its OpenAPI document (openapi_answers_test.go); it costs nothing unset.
func ObserveAnswers(f func(Answered)) {
	if f == nil {
		answerTap.Store(nil)
		return
	}
	answerTap.Store(&f)
}

// tapAnswers reports each answer to the ObserveAnswers function, if any.
func tapAnswers(s *Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := answerTap.Load()
		if f == nil {
			next.ServeHTTP(w, r)
			return
		}
		tw := &tapWriter{ResponseWriter: w}
		next.ServeHTTP(tw, r)
		// The pattern the mux matches, also for an answer given before
		// the mux ran (authentication).
		_, pattern := s.mux.Handler(r)
		a := Answered{Status: tw.status, MediaType: tw.mediaType, Charged: tw.charged}
		a.Method, a.Pattern = cut(pattern)
		if a.Method == "" || a.Pattern == "" {
			a.Method, a.Pattern = r.Method, ""
		}
		if a.Status != 0 {
			(*f)(a)
		}
	})
}

// tapWriter notes the status and the media type of an answer.
type tapWriter struct {
	http.ResponseWriter
	status    int
	mediaType string
	charged   bool
}

func (w *tapWriter) WriteHeader(code int) {
	if w.status == 0 || w.status < 200 {
		w.status = code
		w.charged = w.Header().Get(HeaderCharged) != ""
		if ct := w.Header().Get("Content-Type"); ct != "" {
			w.mediaType, _, _ = mime.ParseMediaType(ct)
			if w.mediaType == "" {
				w.mediaType = ct
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *tapWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
		if w.mediaType == "" {
			// What net/http sniffs and sends.
			w.mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(b))
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *tapWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack hands the connection to a WebSocket upgrader: a 101.
func (w *tapWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return hijack(w.ResponseWriter)
}
