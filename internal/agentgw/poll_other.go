//go:build !linux

package agentgw

import "context"

// poller is not available here: each socket is read by a goroutine of
// its own (readBlocking), and the sessions are swept alone.
type poller struct{}

func newPoller(ctx context.Context, t *table) *poller {
	go t.sweepLoop(ctx)
	return nil
}

func (p *poller) watch(*session) bool { return false }
