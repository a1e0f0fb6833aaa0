package deliveries_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/deliveries"
	"hostgate/internal/eventually"
)

// Slow, hanging and huge-answering receivers (battery T09, T15; issue 27
// item 4): each attempt ends within its 5 s, the lease outlives it, and
// the worker sends other hosts' deliveries meanwhile. These wait the real
// 5 s timeout, so they run in parallel.

// tookObserver records how long each attempt took, by the status it left.
type tookObserver struct {
	mu   sync.Mutex
	took map[string][]time.Duration
}

func (o *tookObserver) DeliveryAttempt(status string, took, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.took == nil {
		o.took = map[string][]time.Duration{}
	}
	o.took[status] = append(o.took[status], took)
}

func (o *tookObserver) of(status string) []time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]time.Duration(nil), o.took[status]...)
}

// TestBatterySlowReceiver (battery T09): a receiver that answers after
// 6 s: the attempt is recorded failed at 5 s ("timeout: no answer within
// 5s") and retried (the retry succeeds); while the POST hangs, the row's
// lease has more than 50 s left, and another host's delivery is sent and
// succeeds.
func TestBatterySlowReceiver(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, e *env) {
		t.Parallel()
		var (
			requests atomic.Int32
			inFlight = make(chan struct{})
			hangDone atomic.Bool
		)
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if requests.Add(1) > 1 {
				return // the retry: 200 at once
			}
			close(inFlight)
			defer hangDone.Store(true)
			select {
			case <-time.After(6 * time.Second):
				w.WriteHeader(http.StatusOK)
			case <-r.Context().Done(): // the hub gave up first
			}
		}))
		defer slow.Close()
		rc := newReceiver(t)
		h1, h2 := e.host(t), e.host(t)
		d1 := e.queue(t, h1, slow.URL, 0)
		var logs bytes.Buffer
		obs := &tookObserver{}
		w := e.worker("i1")
		w.Observer = obs
		w.Log = slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
		start(t, w)
		<-inFlight
		hungAt := time.Now()
		// The lease while the POST hangs.
		d := e.get(t, h1, d1)
		if d.LeaseOwner != "i1" || d.LeaseUntil == nil || time.Until(*d.LeaseUntil) < 50*time.Second {
			t.Errorf("while in flight: lease owner %q until %v", d.LeaseOwner, d.LeaseUntil)
		}
		leaseLeft := time.Until(*d.LeaseUntil)
		// Another host's delivery, queued now, goes out meanwhile.
		d2 := e.queue(t, h2, rc.url(h2), 0)
		eventually.Error(t, 4*time.Second, "the other host's delivery", e.status(t, h2, d2, deliveries.StatusSuccess))
		other := time.Since(hungAt)
		if hangDone.Load() {
			t.Errorf("the other host's delivery waited for the hanging one (%v)", other)
		}
		eventually.Error(t, settle, "the retried delivery", e.status(t, h1, d1, deliveries.StatusSuccess))
		d = e.get(t, h1, d1)
		took := obs.of(string(deliveries.StatusRetrying))
		line := logLineOf(logs.String(), d1)
		if d.Attempts != 2 || requests.Load() != 2 || len(took) != 1 || took[0] < deliveries.Timeout || took[0] > deliveries.Timeout+time.Second ||
			!strings.Contains(line, `err="timeout: no answer within 5s"`) {
			t.Fatalf("attempts %d, requests %d, failed attempts took %v, first attempt logged %q", d.Attempts, requests.Load(), took, line)
		}
		battery.Report(t, "T09", "receiver answering after 6 s: attempt 1 failed after %v (timeout: no answer within 5s), retried → success, attempts %d; lease left while in flight %v; another host's delivery sent %v into the hang (%s)",
			took[0].Round(10*time.Millisecond), d.Attempts, leaseLeft.Round(time.Second), other.Round(10*time.Millisecond), engineOf(t))
	})
}

// countingTransport counts the response bytes the worker reads, by path,
// and when each attempt ended (its body closed, or no answer).
type countingTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	read map[string]int64
	end  map[string]time.Time
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		c.mu.Lock()
		c.end[r.URL.Path] = time.Now()
		c.mu.Unlock()
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, c: c, path: r.URL.Path}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	c    *countingTransport
	path string
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.mu.Lock()
	b.c.read[b.path] += int64(n)
	b.c.mu.Unlock()
	return n, err
}

func (b *countingBody) Close() error {
	b.c.mu.Lock()
	b.c.end[b.path] = time.Now()
	b.c.mu.Unlock()
	return b.ReadCloser.Close()
}

// TestBatteryHugeAndHangingReceivers (battery T15): receivers that stream
// 100 MB (after 200 or 500), that send 200 and then never end the body,
// and that never answer: the worker reads at most 64 KiB of any answer,
// each attempt ends within the 5 s timeout, and the heap stays flat.
//
// It runs alone, engine after engine and beside no other test: the heap it
// watches is the whole process's, and a parallel test's garbage (28 MiB in
// one CI run) would be counted as this worker's.
func TestBatteryHugeAndHangingReceivers(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		const hundredMB = 100 << 20
		var written sync.Map // path → *atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			n := &atomic.Int64{}
			written.Store(r.URL.Path, n)
			switch {
			case strings.HasPrefix(r.URL.Path, "/stream"):
				w.Header().Set("Content-Length", "104857600")
				if strings.HasSuffix(r.URL.Path, "500") {
					w.WriteHeader(http.StatusInternalServerError)
				}
				chunk := make([]byte, 32<<10)
				for n.Load() < hundredMB {
					k, err := w.Write(chunk)
					n.Add(int64(k))
					if err != nil {
						return
					}
				}
			case r.URL.Path == "/hang200":
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			case r.URL.Path == "/silent":
				<-r.Context().Done()
			}
		}))
		defer srv.Close()
		paths := []string{"/stream200", "/stream500", "/hang200", "/silent"}
		ids := map[string][2]string{}
		for _, p := range paths {
			h := e.host(t)
			ids[p] = [2]string{h, e.queue(t, h, srv.URL+p, 0)}
		}
		ct := &countingTransport{read: map[string]int64{}, end: map[string]time.Time{}}
		client := deliveries.NewClient(true)
		ct.base = client.Transport
		client.Transport = ct
		w := e.worker("i1")
		w.Client = client
		w.Scale = 0 // the spec's schedule: one attempt each within the test

		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		began := time.Now()
		n, err := w.RunOnce(t.Context())
		close(stop)
		<-sampled
		if n != len(paths) || err != nil {
			t.Fatalf("RunOnce: %d, %v", n, err)
		}
		rise := int64(peak.Load()) - int64(base)
		if rise > 16<<20 {
			t.Errorf("heap rose %d MiB during the attempts", rise>>20)
		}
		ct.mu.Lock()
		defer ct.mu.Unlock()
		var figures []string
		for _, p := range paths {
			d := e.get(t, ids[p][0], ids[p][1])
			took := ct.end[p].Sub(began)
			if ct.end[p].IsZero() || took > deliveries.Timeout+time.Second {
				t.Errorf("%s: the attempt ended after %v", p, took)
			}
			if ct.read[p] > 64<<10 {
				t.Errorf("%s: read %d bytes of the answer", p, ct.read[p])
			}
			var sent int64
			if v, ok := written.Load(p); ok {
				sent = v.(*atomic.Int64).Load()
			}
			want := map[string]deliveries.Status{"/stream200": deliveries.StatusSuccess, "/stream500": deliveries.StatusRetrying,
				"/hang200": deliveries.StatusSuccess, "/silent": deliveries.StatusRetrying}[p]
			if d.Status != want || d.Attempts != 1 {
				t.Errorf("%s: status %q attempts %d last_error %q, want %q", p, d.Status, d.Attempts, d.LastError, want)
			}
			if p == "/silent" && d.LastError != "timeout: no answer within 5s" {
				t.Errorf("%s: last_error %q", p, d.LastError)
			}
			what := string(d.Status)
			if d.LastError != "" {
				what += " (" + d.LastError + ")"
			}
			figures = append(figures, strings.TrimPrefix(p, "/")+": read "+kib(ct.read[p])+" of "+kib(sent)+" written, ended after "+
				took.Round(10*time.Millisecond).String()+", "+what)
		}
		battery.Report(t, "T15", "%s; heap rise %s (%s)", strings.Join(figures, "; "), kib(rise), engineOf(t))
	})
}

// kib writes n bytes in KiB (MiB from 10 MiB up).
func kib(n int64) string {
	if n >= 10<<20 {
		return itoa(n>>20) + " MiB"
	}
	return itoa(n>>10) + " KiB"
}

func itoa(n int64) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
