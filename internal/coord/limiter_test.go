package coord_test

import (
	"context"
	"testing"
	"time"

	"hostgate/internal/coord"
	"hostgate/internal/coord/inproc"
)

// TestTakeCountsInAlignedWindows: Take allows Limit events per key in a
// window aligned to multiples of Window, says how long until it ends
// when it refuses (first only once), counts keys apart, and starts again
// at zero in the next window.
func TestTakeCountsInAlignedWindows(t *testing.T) {
	c := inproc.New()
	defer c.Close()
	ctx := context.Background()
	l := coord.Limiter{Coord: c, Prefix: "test:", Limit: 2, Window: time.Minute}
	start := time.Date(2026, 11, 27, 10, 4, 15, 0, time.UTC) // 45 s before the window ends
	for i, want := range []bool{true, true, false, false} {
		ok, first, retry, err := l.Take(ctx, "a", start.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if ok != want {
			t.Fatalf("event %d: ok=%v, want %v", i+1, ok, want)
		}
		if !ok {
			if wantRetry := 45*time.Second - time.Duration(i)*time.Second; retry != wantRetry {
				t.Errorf("event %d: retry %v, want %v", i+1, retry, wantRetry)
			}
			if first != (i == 2) {
				t.Errorf("event %d: first=%v", i+1, first)
			}
		}
	}
	if ok, _, _, _ := l.Take(ctx, "b", start); !ok {
		t.Error("another key is refused")
	}
	if ok, _, _, _ := l.Take(ctx, "a", start.Add(45*time.Second)); !ok {
		t.Error("the next window still refuses")
	}
}
