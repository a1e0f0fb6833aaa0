package l1report

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/l1"
)

const key = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"

// receiver decrypts every report with the host's codec and answers the
// first fail requests with 503.
type receiver struct {
	mu      sync.Mutex
	codec   *l1.Codec
	fail    int
	tries   int
	reports []l1.Report
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.tries++
	rep, err := rc.codec.DecodeReport(body, time.Now())
	if err != nil || r.URL.Query().Get("bid") != "42" || r.URL.Query().Get("k") != "v" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.reports = append(rc.reports, rep)
	if rc.fail > 0 {
		rc.fail--
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func (rc *receiver) snapshot() (int, []l1.Report) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.tries, append([]l1.Report(nil), rc.reports...)
}

func start(t *testing.T, fail, attempts int) (*Reporter, *receiver) {
	t.Helper()
	codec, err := l1.NewCodec(42, key)
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{codec: codec, fail: fail}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	r, err := New(Config{Codec: codec, URL: srv.URL + "/r?k=v", RetryBase: time.Millisecond, Attempts: attempts})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, rc
}

// TestRetriedReportKeepsItsNonce: a failed attempt is retried with the
// same nonce and ts, so a receiver can drop the copy.
func TestRetriedReportKeepsItsNonce(t *testing.T) {
	r, rc := start(t, 1, 3)
	r.Report(EventOnline, map[string]int{"session": 1})
	var (
		tries int
		reps  []l1.Report
	)
	if !eventually.Within(10*time.Second, func() bool { tries, reps = rc.snapshot(); return tries >= 2 }) {
		t.Fatalf("%d tries, want 2", tries)
	}
	if len(reps) != 2 || reps[0].Nonce != reps[1].Nonce || reps[0].TS != reps[1].TS || reps[0].Event != EventOnline {
		t.Fatalf("reports = %+v", reps)
	}
	if string(reps[0].Detail) != `{"session":1}` {
		t.Errorf("detail = %s", reps[0].Detail)
	}
}

// TestAttemptsAreBounded: a receiver that keeps failing gets Attempts
// tries, and the next report is still sent.
func TestAttemptsAreBounded(t *testing.T) {
	r, rc := start(t, 100, 3)
	r.Report(EventControl, nil)
	eventually.True(t, 10*time.Second, "3 tries", func() bool { tries, _ := rc.snapshot(); return tries >= 3 })
	rc.mu.Lock()
	rc.fail = 0
	rc.mu.Unlock()
	r.Report(EventSettings, nil)
	// Reports go one at a time: once the next one arrives, the first has
	// had all the tries it will get.
	var (
		tries int
		reps  []l1.Report
	)
	if !eventually.Within(10*time.Second, func() bool {
		tries, reps = rc.snapshot()
		return len(reps) > 0 && reps[len(reps)-1].Event == EventSettings
	}) {
		t.Fatalf("%d tries, no %s report: %+v", tries, EventSettings, reps)
	}
	if tries != 4 {
		t.Errorf("%d tries, want 3 of the failing report and 1 of the next: %+v", tries, reps)
	}
}

func TestNewRefusesBadURL(t *testing.T) {
	codec, _ := l1.NewCodec(42, key)
	for _, u := range []string{"", "ftp://x/", "http://", "::"} {
		if _, err := New(Config{Codec: codec, URL: u}); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}
