// Package fleet simulates many agents against a hub, for load tests: each
// simulated agent enrols through the real endpoints with real install
// credentials, holds a real agent WebSocket (protocol 1: commands, no
// streams), heartbeats, pushes metrics and answers a few cheap commands.
// One process holds up to about 19,000 (its file limit); several processes
// hold more. See docs/fleet.md.
package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"hostgate/internal/hosts"
)

// Credentials are one simulated agent's install credentials, as the hub
// issues them.
type Credentials = hosts.Credentials

// Config shapes a fleet.
type Config struct {
	// Sources are local addresses to dial from, in turn (127.0.0.2, …), so
	// more connections fit than one source address has ephemeral ports.
	// Empty dials from the default address.
	Sources []net.IP
	// Ramp is how many agents start connecting per second (default 500).
	Ramp int
	// Handshakes bounds the enrolments and handshakes in flight (default 64).
	Handshakes int
	// Log, if set, gets reconnect reasons.
	Log *slog.Logger
}

// Stats is a snapshot of a fleet.
type Stats struct {
	Agents     int   `json:"agents"`
	Connected  int64 `json:"connected"`
	Welcomed   int64 `json:"welcomed"`
	Dials      int64 `json:"dials"`
	Failures   int64 `json:"failures"`
	Commands   int64 `json:"commands"`
	Heartbeats int64 `json:"heartbeats"`
	Metrics    int64 `json:"metrics"`
	// AllConnectedMs is how long after Run the last agent was first
	// welcomed; 0 until then.
	AllConnectedMs int64 `json:"all_connected_ms"`
}

// Fleet is a set of simulated agents. Create it with New, start it with Run.
type Fleet struct {
	cfg    Config
	agents []*agent
	http   *http.Client

	connected, welcomed, dials, failures  atomic.Int64
	commands, heartbeats, metrics, firsts atomic.Int64
	started                               time.Time
	allIn                                 atomic.Int64
	sem                                   chan struct{}
}

// New returns a fleet of one simulated agent per credential.
func New(cfg Config, creds []hosts.Credentials) *Fleet {
	if cfg.Ramp <= 0 {
		cfg.Ramp = 500
	}
	if cfg.Handshakes <= 0 {
		cfg.Handshakes = 64
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	f := &Fleet{cfg: cfg, sem: make(chan struct{}, cfg.Handshakes)}
	f.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: cfg.Handshakes, IdleConnTimeout: 30 * time.Second}}
	for i, c := range creds {
		a := &agent{f: f, creds: c, index: i}
		if len(cfg.Sources) > 0 {
			a.source = cfg.Sources[i%len(cfg.Sources)]
		}
		f.agents = append(f.agents, a)
	}
	return f
}

// Stats returns the fleet's counters now.
func (f *Fleet) Stats() Stats {
	return Stats{Agents: len(f.agents), Connected: f.connected.Load(), Welcomed: f.welcomed.Load(),
		Dials: f.dials.Load(), Failures: f.failures.Load(), Commands: f.commands.Load(),
		Heartbeats: f.heartbeats.Load(), Metrics: f.metrics.Load(), AllConnectedMs: f.allIn.Load()}
}

// Run starts the agents at the configured ramp and keeps them connected
// (reconnecting with jittered backoff) until ctx ends; then it closes
// every connection and returns.
func (f *Fleet) Run(ctx context.Context) error {
	if len(f.agents) == 0 {
		return errors.New("fleet: no agents")
	}
	f.started = time.Now()
	var wg sync.WaitGroup
	wg.Go(func() { f.tick(ctx) })
	wg.Go(func() {
		<-ctx.Done()
		for _, a := range f.agents {
			a.close()
		}
	})
	every := time.Second / time.Duration(f.cfg.Ramp)
	next := time.Now()
	for _, a := range f.agents {
		if d := time.Until(next); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
			}
		}
		next = next.Add(every)
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() { a.run(ctx) })
	}
	wg.Wait()
	return nil
}

// tick sends heartbeats and metrics for every welcomed agent from one
// goroutine, each agent at its own offset in the interval, so the fleet
// needs no timer per agent.
func (f *Fleet) tick(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, a := range f.agents {
			a.onTick(n)
		}
	}
}

// firstWelcome counts an agent's first welcome and notes when the whole
// fleet has been welcomed once.
func (f *Fleet) firstWelcome() {
	if f.firsts.Add(1) == int64(len(f.agents)) {
		f.allIn.Store(max(time.Since(f.started).Milliseconds(), 1))
	}
}

// backoff is the wait before reconnect attempt n (1, 2, …): exponential
// from 250 ms to 15 s with full jitter, so a restarted hub is not hit by
// the whole fleet at once.
func backoff(n int) time.Duration {
	d := 250 * time.Millisecond << min(n-1, 6)
	d = min(d, 15*time.Second)
	return d/2 + rand.N(d/2+1)
}

func (f *Fleet) post(ctx context.Context, url string, in, out any) (int, http.Header, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytesReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, resp.Header, fmt.Errorf("POST %s: %d", url, resp.StatusCode)
	}
	return resp.StatusCode, resp.Header, json.NewDecoder(resp.Body).Decode(out)
}
