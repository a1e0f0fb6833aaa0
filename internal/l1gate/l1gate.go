// Package l1gate serves the hub's legacy L1 entry, POST /gateway?bid=<bid>:
// it rate-limits each source address, finds the host whose secret key
// decodes the message, refuses replays (its own nonces, in the database,
// and those of the agent's local listener, by recording the nonce on the
// agent before anything is charged), and carries out the legacy control
// through package operations, charged to the host's owner like the client
// API route of the same control. docs/l1.md §7 describes it for clients.
//
// The message's encryption with the host's secret key is the only
// credential. Every refusal before a request is carried out (unknown bid,
// wrong key, bad body, stale ts, replayed nonce, a nonce the agent already
// holds, banned host, suspended owner) is the one answer l1.Invalid(), with the same HTTP status and
// after comparable work, so the answer tells a sender without the key
// nothing: not which bids exist, not what was wrong.
package l1gate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/coord"
	"hostgate/internal/hosts"
	"hostgate/internal/l1"
	"hostgate/internal/operations"
)

// Candidate is an undeleted host with the bid a request names: bids are
// unique per user, so several users' hosts may share one.
type Candidate struct {
	HostID string
	UserID string
	Status hosts.Status
	// OwnerActive is false when the owner's account is suspended.
	OwnerActive bool
	// SecretSealed is the host's L1 secret key sealed by the keyring with
	// the host id as additional data.
	SecretSealed []byte
}

// Store finds the hosts that may own a bid and keeps the replay memory.
type Store interface {
	// HostsByBID returns every undeleted host with bid, of any user,
	// oldest first; none is not an error.
	HostsByBID(ctx context.Context, bid int64) ([]Candidate, error)
	// The nonces of accepted requests, durable: a replay must be refused
	// after a hub restart or a coordination flush too, so the memory
	// cannot live in coordination.
	l1.NonceStore
	// PruneNonces deletes at most limit nonces expired at now and reports
	// how many it deleted.
	PruneNonces(ctx context.Context, now time.Time, limit int) (int, error)
}

// Opener unseals a host's secret key (keyring.Keyring).
type Opener interface {
	Open(sealed, aad []byte) ([]byte, error)
}

// Runner carries out a client API operation (operations.Service).
type Runner interface {
	Run(ctx context.Context, c operations.Call) (json.RawMessage, error)
}

// Agents sends a command to a host's agent (dispatch.Dispatcher): the
// gateway records each accepted message's nonce on the agent
// (agentproto.OpL1Nonce) before it carries the message out.
type Agents interface {
	Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error)
}

// DefaultRatePerMinute is how many requests one source address may send
// per minute when the hub's configuration does not say.
const DefaultRatePerMinute = 60

// rateWindow is the fixed window of the per-address counter.
const rateWindow = time.Minute

// Service answers /gateway requests. It is safe for concurrent use.
type Service struct {
	store Store
	keys  Opener
	ops   Runner
	agent Agents
	rate  coord.Limiter // per source address
	log   *slog.Logger
	now   func() time.Time
	// dummy is decoded with when no host has the bid, so that an unknown
	// bid costs what a wrong key does.
	dummy *l1.Codec
}

// Counter is what the gateway uses of coordination (coord.Coord): the
// per-address rate counts.
type Counter interface {
	Incr(ctx context.Context, key string, window time.Duration) (int64, error)
}

// New returns the gateway service. ratePerMinute bounds the requests of
// one source address per minute (a fixed window kept in coordination, so
// it holds across hub instances). agents reaches the hosts' agents, to
// share each message's nonce with the agent's local listener.
func New(st Store, keys Opener, ops Runner, agents Agents, c Counter, ratePerMinute int, log *slog.Logger) *Service {
	dummy, err := l1.NewCodec(0, "l1gate-dummy-key-never-matches!!")
	if err != nil {
		panic(err) // a 32-character constant: cannot happen
	}
	return &Service{store: st, keys: keys, ops: ops, agent: agents,
		rate: coord.Limiter{Coord: c, Prefix: "l1gate:rate:", Limit: int64(ratePerMinute), Window: rateWindow}, log: log, now: time.Now, dummy: dummy}
}

// Pruning bounds: one statement deletes at most pruneBatch nonces, and one
// PruneNonces call runs at most pruneBatches of them, so a call is bounded
// however far behind it is; the next call, a minute later, goes on.
const (
	pruneBatch   = 1000
	pruneBatches = 100
)

// PruneNonces forgets the nonces of requests that are stale now. The hub
// runs it every minute; an expired nonce left behind is harmless (the
// check takes it over), it only takes space.
func (s *Service) PruneNonces(ctx context.Context) error {
	now := s.now()
	for range pruneBatches {
		n, err := s.store.PruneNonces(ctx, now, pruneBatch)
		if err != nil {
			return fmt.Errorf("l1 gateway: prune nonces: %w", err)
		}
		if n < pruneBatch {
			return nil
		}
	}
	return nil
}
