package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBodyDeadlineLiftedAtTheEnd: a request that sent its whole body in
// time may then run far past the body timeout (a long-poll read, a
// stream): its context is not cancelled and its answer arrives. A
// request without a body gets no deadline at all.
func TestBodyDeadlineLiftedAtTheEnd(t *testing.T) {
	const timeout = 200 * time.Millisecond
	s := &Server{cfg: Config{Options: Options{BodyTimeout: timeout}}, log: slog.New(slog.DiscardHandler)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = s.bodyDeadline(w, r)
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read: "+err.Error(), 500)
			return
		}
		// The route's own work, well past the body's deadline.
		select {
		case <-r.Context().Done():
			http.Error(w, "cancelled", 500)
		case <-time.After(5 * timeout):
			_, _ = w.Write(b)
		}
	}))
	defer srv.Close()
	for _, body := range []string{`{"wait_ms":1000}`, ""} {
		var rd io.Reader
		method := http.MethodGet
		if body != "" {
			rd, method = strings.NewReader(body), http.MethodPost
		}
		req, _ := http.NewRequest(method, srv.URL, rd)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(got) != body {
			t.Errorf("%s with body %q: %d %q, want 200 and the body back", method, body, resp.StatusCode, got)
		}
	}
}
