package billing

import (
	"context"
	"time"

	"hostgate/internal/groupcommit"
)

// Charges are written in batches: every call's charge waits for the
// transaction that holds it, but calls that arrive while one transaction
// commits share the next. All charges of one user take that user's
// balance row, so one transaction each would queue them behind each
// other's commit (about 1,600 a second on PostgreSQL here, whatever the
// concurrency); a batch pays one commit for all of them
// (docs/performance.md). A lone call is written at once, never delayed.
// A caller waits for its batch even when its request ends: the charge may
// already be committed, and it must learn whether it was.
const (
	maxBatch     = 128
	batchTimeout = 15 * time.Second
)

// charger charges a batch of calls (Ledger.ChargeCalls).
type charger interface {
	ChargeCalls(ctx context.Context, cs []Charge) ([]ChargeResult, error)
}

// newChargeBatcher returns the group commit of l's charges.
func newChargeBatcher(l charger) *groupcommit.Batcher[Charge, ChargeResult] {
	return groupcommit.New(maxBatch, func(cs []Charge) ([]ChargeResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
		defer cancel()
		return l.ChargeCalls(ctx, cs)
	})
}
