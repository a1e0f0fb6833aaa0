package dispatch

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"hostgate/internal/coord"
)

// presenceClears group-commits the clearing of presence: a disconnect
// still waits until its host's presence is cleared, but the disconnects
// that arrive while one clear is under way go together in the next. Under
// a normal load that is one host per round trip; when a network cut drops
// an instance's share of the fleet at once, thousands. One script call per
// host had sent tens of thousands of calls past the Redis pool at once
// (docs/performance.md), and their hosts stayed present until the TTL.
type presenceClears struct {
	coord    coord.Coord
	instance string
	log      *slog.Logger

	mu      sync.Mutex
	pending []string
	done    []chan struct{}
	running bool
}

// clearTimeout bounds one clear: it serves many disconnects, so none of
// their contexts is its own.
const clearTimeout = 10 * time.Second

// clear withdraws the presence of hostIDs held by this instance, and
// returns once that is done (or failed, which run logs) or ctx ends.
func (p *presenceClears) clear(ctx context.Context, hostIDs ...string) {
	done := make(chan struct{})
	p.mu.Lock()
	p.pending = append(p.pending, hostIDs...)
	p.done = append(p.done, done)
	start := !p.running
	p.running = true
	p.mu.Unlock()
	if start {
		go p.run()
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// run clears what is pending, again and again, until nothing is.
func (p *presenceClears) run() {
	for {
		p.mu.Lock()
		ids, done := p.pending, p.done
		p.pending, p.done = nil, nil
		if len(done) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), clearTimeout)
		if err := p.coord.ClearPresence(ctx, p.instance, ids); err != nil {
			p.log.Warn("clear presence failed", "hosts", len(ids), "err", err)
		}
		cancel()
		for _, d := range done {
			close(d)
		}
	}
}
