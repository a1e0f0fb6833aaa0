package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"hostgate/internal/loadtest"
	"hostgate/internal/webhooks"
)

// Webhook scenario sizes.
const (
	hookHosts   = 50 // deliveries of one host go out one at a time, so throughput needs many
	hookWriters = 16
	hookWait    = 10 * time.Second // for one delivery
	hookDrain   = 60 * time.Second // for the throughput run's backlog
)

// webhookScenario: L1 configuration writes and the signed deliveries they
// queue, received on loopback. Latency runs from the write's 200 (the
// delivery row has committed) to the receiver seeing it; throughput is
// deliveries received per second while many hosts are written at once.
func (b *bench) webhookScenario(ctx context.Context) error {
	return b.onEachCustomer(ctx, func(be *backend, h *hubProc, c *customer) error { return b.webhookOn(ctx, be, h, c) })
}

func (b *bench) webhookOn(ctx context.Context, be *backend, h *hubProc, c *customer) error {
	rc := &receiver{secrets: map[string]string{}, arrived: map[string]time.Time{}, waits: map[string]chan struct{}{}}
	srv := httpServer(rc)
	defer srv.Close()
	// Fresh hosts with no agent: a write then costs the hub no
	// SettingsUpdate, and each host's first secret is known to the receiver.
	hs, err := createHosts(h, c.key, hookHosts, rc)
	if err != nil {
		return err
	}
	w := newL1Writer(h.url, c.access, srv.URL+"/l1")
	if err := b.webhookLatency(ctx, be, w, rc, hs[0]); err != nil {
		return err
	}
	if err := b.webhookThroughput(ctx, be, w, rc, hs); err != nil {
		return err
	}
	return rc.failure()
}

func (b *bench) webhookLatency(ctx context.Context, be *backend, w *l1Writer, rc *receiver, host hookHost) error {
	var lat []time.Duration
	early := 0
	start := time.Now()
	for n := 0; ctx.Err() == nil && (n < 20 || time.Since(start) < b.dur); n++ {
		id, err := w.write(host)
		if err != nil {
			return err
		}
		answered := time.Now()
		at, err := rc.wait(id, hookWait)
		if err != nil {
			return err
		}
		if n < 5 {
			continue // warm-up: the hub's first connection to the receiver
		}
		// The hub wakes its worker at the commit, before it answers, so a
		// delivery can beat the answer: it then counts as 0.
		if at.Before(answered) {
			early++
		}
		lat = append(lat, max(at.Sub(answered), 0))
	}
	if early > 0 {
		fmt.Fprintf(os.Stderr, "  webhook %s: %d of %d deliveries arrived before the write's answer\n", be.name, early, len(lat))
	}
	for _, p := range []float64{50, 99} {
		metric := fmt.Sprintf("p%.0f", p)
		b.add(row{scenario: "webhook enqueue→delivered", backend: be.name, metric: metric,
			value: ms(loadtest.Percentile(lat, p)), unit: "ms", floor: "floor_http " + metric, better: "lower"})
	}
	return nil
}

// webhookThroughput writes the hosts from hookWriters callers for b.dur,
// then waits for every delivery.
func (b *bench) webhookThroughput(ctx context.Context, be *backend, w *l1Writer, rc *receiver, hs []hookHost) error {
	start := time.Now()
	ids, err := writeMany(ctx, w, hs, start.Add(b.dur))
	if err != nil {
		return err
	}
	end := time.Now()
	arrivals, err := rc.waitAll(ids, end.Add(hookDrain))
	if err != nil {
		return err
	}
	last := slices.MaxFunc(arrivals, time.Time.Compare)
	// What was still queued when the writes stopped tells whether the
	// deliveries kept up, and how fast the worker drains on its own.
	backlog := 0
	for _, at := range arrivals {
		if at.After(end) {
			backlog++
		}
	}
	fmt.Fprintf(os.Stderr, "  webhook %s: %d deliveries, %d still queued when the writes stopped, drained in %v\n",
		be.name, len(ids), backlog, last.Sub(end).Round(time.Millisecond))
	label := fmt.Sprintf("webhook, %d hosts, %d writers", len(hs), hookWriters)
	b.add(row{scenario: label, backend: be.name, metric: "L1 writes",
		value: float64(len(ids)) / end.Sub(start).Seconds(), unit: "/s", better: "higher"})
	// Each delivery costs at least two loopback round trips (the write and
	// the POST), so it is compared with the bare round trip at a like
	// concurrency.
	b.add(row{scenario: label, backend: be.name, metric: "deliveries",
		value: float64(len(ids)) / last.Sub(start).Seconds(), unit: "/s",
		floor: fmt.Sprintf("floor_http throughput c=%d", hookWriters), better: "higher"})
	return nil
}

// writeMany writes hs from hookWriters callers until stop and returns the
// queued deliveries. Each host is always written by the same caller, so
// its secrets chain in the order they were made.
func writeMany(ctx context.Context, w *l1Writer, hs []hookHost, stop time.Time) ([]string, error) {
	var (
		mu       sync.Mutex
		ids      []string
		firstErr error
		wg       sync.WaitGroup
	)
	for i := range min(hookWriters, len(hs)) {
		var mine []hookHost
		for j := i; j < len(hs); j += hookWriters {
			mine = append(mine, hs[j])
		}
		wg.Go(func() {
			for n := 0; ctx.Err() == nil && time.Now().Before(stop); n++ {
				id, err := w.write(mine[n%len(mine)])
				mu.Lock()
				if err != nil {
					firstErr = cmp.Or(firstErr, err)
				} else {
					ids = append(ids, id)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return ids, cmp.Or(firstErr, ctx.Err())
}

// hookHost is a host as the writer needs it: its bid stays, its secret
// changes with each write.
type hookHost struct {
	id  string
	bid int64
}

func createHosts(h *hubProc, key string, n int, rc *receiver) ([]hookHost, error) {
	hs := make([]hookHost, 0, n)
	for i := range n {
		var out struct {
			Credentials struct {
				HostID    string `json:"host_id"`
				BID       int64  `json:"bid"`
				SecretKey string `json:"secret_key"`
			} `json:"credentials"`
		}
		if err := call("POST", h.url+"/v1/api/hosts", key, map[string]any{"name": fmt.Sprintf("hook-%d", i), "with_credentials": true}, &out); err != nil {
			return nil, err
		}
		c := out.Credentials
		rc.hold(c.HostID, c.SecretKey)
		hs = append(hs, hookHost{id: c.HostID, bid: c.BID})
	}
	return hs, nil
}

// l1Writer makes L1 configuration writes with a user token (source web:
// not charged, so the figures are the write and the delivery alone).
type l1Writer struct {
	url, token, target string
	client             *http.Client
}

func newL1Writer(hubURL, token, target string) *l1Writer {
	// One kept-alive connection per caller, and no write waits forever.
	tr := &http.Transport{MaxIdleConnsPerHost: hookWriters}
	return &l1Writer{url: hubURL, token: token, target: target, client: &http.Client{Timeout: 30 * time.Second, Transport: tr}}
}

// write gives host a new secret, keeping its bid and pointing it at the
// receiver, and returns the queued delivery's id.
func (w *l1Writer) write(host hookHost) (string, error) {
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	body, _ := json.Marshal(map[string]any{"bid": host.bid, "secret_key": hex.EncodeToString(secret), "url": w.target})
	req, err := http.NewRequest(http.MethodPut, w.url+"/v1/user/hosts/"+host.id+"/l1-config", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.token)
	resp, err := w.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("l1-config: %d %s", resp.StatusCode, answer)
	}
	var out struct {
		DeliveryID string `json:"delivery_id"`
	}
	if err := json.Unmarshal(answer, &out); err != nil || out.DeliveryID == "" {
		return "", fmt.Errorf("l1-config: no delivery id in %s", answer)
	}
	return out.DeliveryID, nil
}

// receiver is the webhook target: it verifies each delivery with its
// host's current secret, as docs/webhooks.md §4 asks of a real receiver,
// adopts the new one, notes when the delivery arrived and answers 200.
// A delivery that does not verify is answered 200 too, so that the hub
// does not hold the host back for a 30 s retry; it fails the scenario at
// the end instead.
type receiver struct {
	mu       sync.Mutex
	secrets  map[string]string        // host id → the secret held now
	arrived  map[string]time.Time     // delivery id → first arrival
	waits    map[string]chan struct{} // delivery id → closed on arrival
	bad      int
	firstBad error
}

func (rc *receiver) hold(hostID, secret string) {
	rc.mu.Lock()
	rc.secrets[hostID] = secret
	rc.mu.Unlock()
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	id := r.Header.Get(webhooks.HeaderDelivery)
	var peek struct {
		HostID string `json:"host_id"`
	}
	_ = json.Unmarshal(body, &peek)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if _, seen := rc.arrived[id]; seen {
		return // a repeat
	}
	rc.arrived[id] = at
	if ch := rc.waits[id]; ch != nil {
		close(ch)
		delete(rc.waits, id)
	}
	ev, err := webhooks.VerifyA(r.Header, body, rc.secrets[peek.HostID], time.Now(), webhooks.Window)
	if err != nil {
		rc.bad++
		rc.firstBad = cmp.Or(rc.firstBad, fmt.Errorf("delivery %s of host %s: %w", id, peek.HostID, err))
		return
	}
	rc.secrets[ev.HostID] = string(ev.Data.SecretKey)
}

// wait returns when delivery id arrived, waiting up to d for it.
func (rc *receiver) wait(id string, d time.Duration) (time.Time, error) {
	rc.mu.Lock()
	at, ok := rc.arrived[id]
	ch := rc.waits[id]
	if !ok && ch == nil {
		ch = make(chan struct{})
		rc.waits[id] = ch
	}
	rc.mu.Unlock()
	if ok {
		return at, nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
		return time.Time{}, fmt.Errorf("webhook delivery %s not received within %v", id, d)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.arrived[id], nil
}

// waitAll waits until deadline for the deliveries ids and returns when
// each arrived.
func (rc *receiver) waitAll(ids []string, deadline time.Time) ([]time.Time, error) {
	if len(ids) == 0 {
		return nil, errors.New("webhook: no writes made")
	}
	arrivals := make([]time.Time, 0, len(ids))
	for _, id := range ids {
		at, err := rc.wait(id, max(time.Until(deadline), 0))
		if err != nil {
			return nil, fmt.Errorf("%w (%d of %d received)", err, len(arrivals), len(ids))
		}
		arrivals = append(arrivals, at)
	}
	return arrivals, nil
}

func (rc *receiver) failure() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.bad > 0 {
		return fmt.Errorf("webhook: %d deliveries did not verify; first: %w", rc.bad, rc.firstBad)
	}
	return nil
}
