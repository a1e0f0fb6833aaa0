package buckets

import (
	"testing"
	"time"
)

func TestWindowEndsWithTheBucketOfNow(t *testing.T) {
	now := time.Date(2026, 3, 1, 13, 20, 5, 0, time.FixedZone("UTC+8", 8*3600)) // 05:20:05 UTC
	from, to := Hour.Window(now, 3)
	if want := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC); !from.Equal(want) || !to.Equal(want.Add(3*time.Hour)) {
		t.Errorf("hour window = %v..%v, want 03:00..06:00 UTC", from, to)
	}
	from, to = Day.Window(now, 2)
	if want := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC); !from.Equal(want) || !to.Equal(want.Add(48*time.Hour)) {
		t.Errorf("day window = %v..%v, want Feb 28 .. Mar 2 UTC", from, to)
	}
	if i := Day.Index(from, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)); i != 1 {
		t.Errorf("Index of the second day = %d", i)
	}
	if i := Hour.Index(from, from.Add(-time.Hour)); i != -1 {
		t.Errorf("Index before the window = %d, want -1", i)
	}
}

func TestKeysRoundTrip(t *testing.T) {
	start := time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC)
	for _, u := range []Unit{Hour, Day} {
		k := u.Key(u.Start(start))
		got, err := u.ParseKey(k)
		if err != nil || !got.Equal(u.Start(start)) {
			t.Errorf("%s: key %q parses to %v, %v", u, k, got, err)
		}
	}
	if k := Hour.Key(start); k != "2026-12-31T23" {
		t.Errorf("hour key = %q", k)
	}
	if _, err := Parse("week"); err == nil {
		t.Error("Parse(week) accepted")
	}
	if u, err := Parse(""); u != Hour || err != nil {
		t.Errorf("Parse(\"\") = %q, %v; want hour", u, err)
	}
}
