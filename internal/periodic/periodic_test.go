package periodic

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
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
	for runs.Load() < 3 {
		time.Sleep(5 * time.Millisecond)
	}
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
