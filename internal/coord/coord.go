// Package coord is the hub's shared, ephemeral state: single-use tickets,
// windowed counters, agent presence, and messages between instances.
// Everything here may be lost without losing committed work; durable state
// lives in the store. Security state (ended sessions, disabled accounts,
// login lockouts) is the store's too: coordination only carries the news
// of its changes (docs/architecture.md, "Coordination").
//
// Two implementations pass the same contract suite (coordtest): Redis for
// production and several hub instances, and an in-process one for the
// embedded single-node default.
package coord

import (
	"context"
	"time"
)

// Coord is the coordination service. Keys are chosen by callers and are
// namespaced by them ("terminals:ticket:…"); implementations may add a prefix.
// Secrets are never used as keys: callers hash them first.
type Coord interface {
	// PutTicket stores value under key for ttl.
	PutTicket(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// TakeTicket atomically reads and deletes key, so of any number of
	// concurrent callers at most one gets ok=true.
	TakeTicket(ctx context.Context, key string) (value []byte, ok bool, err error)

	// Incr adds one to the counter at key and returns the new count. The
	// counter disappears window after its first increment (a fixed window).
	Incr(ctx context.Context, key string, window time.Duration) (int64, error)

	// SetPresence records that hostID's agent is connected to instanceID,
	// for ttl; the holder refreshes it while the connection lives.
	SetPresence(ctx context.Context, hostID, instanceID string, ttl time.Duration) error
	// RefreshPresence renews many hosts of one instance in one round trip.
	RefreshPresence(ctx context.Context, instanceID string, hostIDs []string, ttl time.Duration) error
	// Presence returns the instance holding hostID's agent, if any.
	Presence(ctx context.Context, hostID string) (instanceID string, ok bool, err error)
	// PresenceMany returns the instance holding each host of hostIDs that
	// has live presence, in one round trip; hosts without presence are
	// absent from the map. A page of a host list reads its live state
	// with it, never one Presence per host.
	PresenceMany(ctx context.Context, hostIDs []string) (map[string]string, error)
	// ClearPresence removes the presence of each host in hostIDs that
	// instanceID still holds, so a late disconnect never erases a newer
	// connection elsewhere; many hosts in one round trip.
	ClearPresence(ctx context.Context, instanceID string, hostIDs []string) error
	// CountPresence counts hosts with live presence, cluster-wide.
	CountPresence(ctx context.Context) (int64, error)

	// Publish sends msg to every current subscriber of channel; delivery is
	// at most once and there is no history.
	Publish(ctx context.Context, channel string, msg []byte) error
	// Subscribe starts receiving channel. Messages published after it
	// returns arrive on the subscription's channel in order.
	Subscribe(ctx context.Context, channel string) (Subscription, error)

	// Ping checks the backing service; /readyz reports its error text.
	Ping(ctx context.Context) error
	// Name names the implementation ("redis", "in-process").
	Name() string
	// Close releases connections and background work.
	Close() error
}

// Subscription receives the messages of one channel until closed.
type Subscription interface {
	// C delivers messages. A subscriber that falls far behind may lose
	// messages rather than block publishers.
	C() <-chan []byte
	Close() error
}
