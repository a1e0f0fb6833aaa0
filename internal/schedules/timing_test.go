package schedules

import (
	"strings"
	"testing"
	"time"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// runs is the first n runs of expr in tz after from, one after another as
// the loop would claim them.
func runs(t *testing.T, expr, tz string, from time.Time, n int) []time.Time {
	t.Helper()
	tm, err := ParseTiming(nil, &expr, tz)
	if err != nil {
		t.Fatalf("ParseTiming(%q, %q): %v", expr, tz, err)
	}
	var out []time.Time
	was := from
	for range n {
		next := tm.NextAfterRun(was, was)
		if next == nil {
			break
		}
		out = append(out, *next)
		was = *next
	}
	return out
}

func checkRuns(t *testing.T, what string, got []time.Time, want ...time.Time) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if !got[i].Equal(want[i]) || got[i].Location() != time.UTC {
			t.Errorf("%s: run %d: got %v, want %v (UTC)", what, i, got[i], want[i].UTC())
		}
	}
}

func TestNextDSTBerlin(t *testing.T) {
	ber := zone(t, "Europe/Berlin")
	at := func(m time.Month, d, h, min int) time.Time { return time.Date(2026, m, d, h, min, 0, 0, ber) }
	// Spring forward (29 March 2026, 02:00 → 03:00): 02:30 does not exist
	// that day and is skipped.
	checkRuns(t, "daily 02:30 over spring forward", runs(t, "30 2 * * *", "Europe/Berlin", at(3, 28, 12, 0), 2),
		at(3, 30, 2, 30), at(3, 31, 2, 30))
	// The hour on either side keeps its wall-clock time.
	checkRuns(t, "daily 03:30 over spring forward", runs(t, "30 3 * * *", "Europe/Berlin", at(3, 28, 12, 0), 2),
		at(3, 29, 3, 30), at(3, 30, 3, 30))
	// Fall back (25 October 2026, 03:00 → 02:00): 02:30 happens twice and
	// fires once, at its first (summer time) occurrence.
	checkRuns(t, "daily 02:30 over fall back", runs(t, "30 2 * * *", "Europe/Berlin", at(10, 24, 12, 0), 2),
		time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), time.Date(2026, 10, 26, 1, 30, 0, 0, time.UTC))
	// Hourly: the repeated 02:00 fires once too.
	checkRuns(t, "hourly over fall back", runs(t, "0 * * * *", "Europe/Berlin", at(10, 25, 0, 30), 3),
		time.Date(2026, 10, 24, 23, 0, 0, 0, time.UTC), time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 25, 2, 0, 0, 0, time.UTC))
}

func TestNextDSTNewYork(t *testing.T) {
	ny := zone(t, "America/New_York")
	// Spring forward (8 March 2026, 02:00 → 03:00).
	checkRuns(t, "daily 02:30 over spring forward", runs(t, "30 2 * * *", "America/New_York", time.Date(2026, 3, 7, 12, 0, 0, 0, ny), 2),
		time.Date(2026, 3, 9, 2, 30, 0, 0, ny), time.Date(2026, 3, 10, 2, 30, 0, 0, ny))
	// Fall back (1 November 2026, 02:00 → 01:00): 01:30 fires once, EDT.
	checkRuns(t, "daily 01:30 over fall back", runs(t, "30 1 * * *", "America/New_York", time.Date(2026, 10, 31, 12, 0, 0, 0, ny), 2),
		time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), time.Date(2026, 11, 2, 6, 30, 0, 0, time.UTC))
	// The same expression in UTC ignores New York's clock.
	checkRuns(t, "daily 01:30 UTC", runs(t, "30 1 * * *", "UTC", time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC), 2),
		time.Date(2026, 11, 1, 1, 30, 0, 0, time.UTC), time.Date(2026, 11, 2, 1, 30, 0, 0, time.UTC))
}

func TestNextMonthEndsAndLeapDay(t *testing.T) {
	utc := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	checkRuns(t, "the 31st", runs(t, "0 0 31 * *", "UTC", utc(2026, 1, 31, 12), 3),
		utc(2026, 3, 31, 0), utc(2026, 5, 31, 0), utc(2026, 7, 31, 0))
	checkRuns(t, "the 30th skips February", runs(t, "0 6 30 * *", "UTC", utc(2026, 1, 30, 12), 2),
		utc(2026, 3, 30, 6), utc(2026, 4, 30, 6))
	checkRuns(t, "leap day", runs(t, "0 12 29 2 *", "UTC", utc(2026, 1, 1, 0), 2),
		utc(2028, 2, 29, 12), utc(2032, 2, 29, 12))
	checkRuns(t, "a date that never comes", runs(t, "0 0 30 2 *", "UTC", utc(2026, 1, 1, 0), 1))
	checkRuns(t, "every five minutes", runs(t, "*/5 * * * *", "UTC", time.Date(2026, 12, 31, 23, 57, 10, 0, time.UTC), 2),
		utc(2027, 1, 1, 0), time.Date(2027, 1, 1, 0, 5, 0, 0, time.UTC))
}

func TestParseTimingRefuses(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name string
		at   *time.Time
		expr *string
		tz   string
		want string
	}{
		{"neither", nil, nil, "", "exactly one"},
		{"both", &at, s("* * * * *"), "", "exactly one"},
		{"CRON_TZ", nil, s("CRON_TZ=Europe/Berlin 0 3 * * *"), "", "timezone field"},
		{"TZ", nil, s("TZ=UTC 0 3 * * *"), "", "timezone field"},
		{"six fields", nil, s("0 0 3 * * *"), "", "five fields"},
		{"descriptor", nil, s("@daily"), "", "five fields"},
		{"bad field", nil, s("61 * * * *"), "", "cron"},
		{"bad zone", nil, s("* * * * *"), "Mars/Olympus", "IANA"},
		{"Local", nil, s("* * * * *"), "Local", "IANA"},
	} {
		_, err := ParseTiming(tc.at, tc.expr, tc.tz)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
	}
	if tm, err := ParseTiming(nil, s("0 3 * * 1-5"), ""); err != nil || tm.loc != time.UTC {
		t.Errorf("default zone: %v, %v", tm.loc, err)
	}
}

func TestOneOff(t *testing.T) {
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	tm, err := ParseTiming(&at, nil, "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if n := tm.Next(at.Add(-time.Second)); n == nil || !n.Equal(at) {
		t.Errorf("before: %v, want %v", n, at)
	}
	if n := tm.Next(at); n != nil {
		t.Errorf("at or after its time: %v, want none", n)
	}
}
