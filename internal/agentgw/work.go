package agentgw

import (
	"context"
	"hash/fnv"
)

// Store and coordination calls made for agents (handshake records,
// registration, metrics, events, upgrade reports) run on a small pool of
// workers, not on the agents' read loops. A read loop that ran them would
// grow its stack to what the database driver needs and keep most of it
// while idle, and an idle agent's read loop is most of what an agent costs
// the hub (docs/performance.md). Each host's calls go to one worker, so
// they keep their order: a registration is never overtaken by the
// unregistration of the same socket.
type workers struct {
	ctx context.Context
	qs  []chan func()
}

const (
	workerCount = 32
	workerDepth = 256 // per worker; a full queue holds up the read loops that feed it
)

func newWorkers(ctx context.Context) *workers {
	w := &workers{ctx: ctx, qs: make([]chan func(), workerCount)}
	for i := range w.qs {
		q := make(chan func(), workerDepth)
		w.qs[i] = q
		go func() {
			for {
				select {
				case f := <-q:
					f()
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return w
}

// do queues f on hostID's worker; it waits while that queue is full, and
// drops f once the gateway's context has ended.
func (w *workers) do(hostID string, f func()) {
	h := fnv.New32a()
	h.Write([]byte(hostID))
	select {
	case w.qs[h.Sum32()%workerCount] <- f:
	case <-w.ctx.Done():
	}
}
