package dispatch

import (
	"context"
	"log/slog"
	"time"

	"hostgate/internal/groupcommit"
)

// Presence is withdrawn in group commits: a disconnect still waits until
// its host's presence is cleared, but the disconnects that arrive while
// one clear is under way go together in the next. Under a normal load that
// is one host per round trip; when a network cut drops an instance's share
// of the fleet at once, thousands. One script call per host had sent tens
// of thousands of calls past the Redis pool at once (docs/performance.md),
// and their hosts stayed present until the TTL.
//
// An item is a list of hosts, so that a stopping instance withdraws all of
// its hosts as one.
type presenceClears = groupcommit.Batcher[[]string, struct{}]

// clearTimeout bounds one clear: it serves many disconnects, so none of
// their contexts is its own.
const clearTimeout = 10 * time.Second

// presenceClearer is what the clears use of coordination.
type presenceClearer interface {
	ClearPresence(ctx context.Context, instanceID string, hostIDs []string) error
}

func newPresenceClears(c presenceClearer, instance string, log *slog.Logger) *presenceClears {
	return groupcommit.New(0, func(lists [][]string) ([]struct{}, error) {
		var ids []string
		for _, l := range lists {
			ids = append(ids, l...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), clearTimeout)
		defer cancel()
		if err := c.ClearPresence(ctx, instance, ids); err != nil {
			// Logged once for the batch; the hosts' presence expires
			// after PresenceTTL at the latest.
			log.Warn("clear presence failed", "hosts", len(ids), "err", err)
		}
		return make([]struct{}, len(lists)), nil
	})
}
