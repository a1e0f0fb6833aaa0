package periodic

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

func TestRunTicksAndFlushesAtStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var runs, errs atomic.Int64
	done := make(chan struct{})
	go func() {
		Run(ctx, 10*time.Millisecond, func(ctx context.Context) error {
			if ctx.Err() != nil {
				t.Error("job got an ended context")
			}
			runs.Add(1)
			return errors.New("boom")
		}, func(error) { errs.Add(1) })
		close(done)
	}()
	eventually.True(t, 10*time.Second, "3 runs", func() bool { return runs.Load() >= 3 })
	cancel()
	<-done
	before := runs.Load()
	if before < 4 {
		t.Errorf("runs = %d, want the ticks plus a final run", before)
	}
	if errs.Load() != runs.Load() {
		t.Errorf("errors reported %d, runs %d; want every error reported", errs.Load(), runs.Load())
	}
}
