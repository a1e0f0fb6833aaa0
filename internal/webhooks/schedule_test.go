package webhooks

import (
	"testing"
	"time"
)

func TestSchedules(t *testing.T) {
	type step struct {
		delay time.Duration
		dead  bool
	}
	for f, want := range map[Format][]step{
		// attempts so far: 0 (first attempt), 1, 2, 3, 4, 5, 6
		FormatA: {{0, false}, {30 * time.Second, false}, {time.Minute, false}, {5 * time.Minute, false}, {30 * time.Minute, false}, {0, true}, {0, true}},
		FormatB: {{0, false}, {30 * time.Second, false}, {2 * time.Minute, false}, {10 * time.Minute, false}, {time.Hour, false}, {0, true}, {0, true}},
	} {
		for n, w := range want {
			if d, dead := NextDelay(f, n); d != w.delay || dead != w.dead {
				t.Errorf("NextDelay(%s, %d) = %v, %v; want %v, %v", f, n, d, dead, w.delay, w.dead)
			}
		}
	}
	if _, dead := NextDelay("C", 0); !dead {
		t.Error("unknown format is not dead")
	}
}

func TestScheduleScaled(t *testing.T) {
	s, err := ScheduleFor(FormatB)
	if err != nil {
		t.Fatal(err)
	}
	fast := s.Scaled(0.001)
	if d, _ := fast.Next(3); d != 600*time.Millisecond {
		t.Errorf("scaled third retry = %v, want 600ms", d)
	}
	if _, dead := fast.Next(5); !dead {
		t.Error("scaling changed when a delivery dies")
	}
	if d, _ := s.Next(3); d != 10*time.Minute {
		t.Errorf("Scaled changed the original: %v", d)
	}
	if d, _ := s.Scaled(-1).Next(1); d != 0 {
		t.Errorf("negative factor gave %v", d)
	}
	s.Delays[0] = time.Nanosecond
	if again, _ := ScheduleFor(FormatB); again.Delays[0] != 30*time.Second {
		t.Error("ScheduleFor shares its slice between callers")
	}
}

func TestScheduleReplacement(t *testing.T) {
	s := Schedule{Delays: []time.Duration{time.Millisecond, 2 * time.Millisecond}, MaxAttempts: 4}
	for n, want := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 2 * time.Millisecond} {
		if d, dead := s.Next(n); d != want || dead {
			t.Errorf("Next(%d) = %v, %v; want %v", n, d, dead, want)
		}
	}
	if _, dead := s.Next(4); !dead {
		t.Error("Next(4) of a 4-attempt schedule is not dead")
	}
}
