package schedules

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// parser reads the five standard fields (minute, hour, day of month,
// month, day of week) and nothing else: no seconds, no @descriptors.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// Timing is a parsed schedule timing: a one-off time or a cron
// expression in a time zone.
type Timing struct {
	at   *time.Time
	spec cron.Schedule
	loc  *time.Location
}

// ParseTiming checks a schedule's timing: exactly one of at and expr,
// expr five cron fields without a CRON_TZ= or TZ= prefix (the zone is
// tz), tz an IANA name ("" is UTC). Its errors are safe to show.
func ParseTiming(at *time.Time, expr *string, tz string) (Timing, error) {
	if tz == "" {
		tz = "UTC"
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "Local" {
		return Timing{}, fmt.Errorf("timezone %q is not an IANA time zone name", tz)
	}
	switch {
	case (at == nil) == (expr == nil):
		return Timing{}, fmt.Errorf("exactly one of at and cron is required")
	case at != nil:
		t := at.UTC()
		return Timing{at: &t, loc: loc}, nil
	}
	e := strings.TrimSpace(*expr)
	if strings.Contains(e, "TZ=") {
		return Timing{}, fmt.Errorf("cron must not name a time zone (CRON_TZ=): use the timezone field")
	}
	if len(strings.Fields(e)) != 5 {
		return Timing{}, fmt.Errorf("cron must have five fields: minute hour day-of-month month day-of-week")
	}
	spec, err := parser.Parse(e)
	if err != nil {
		return Timing{}, fmt.Errorf("cron: %v", err)
	}
	return Timing{spec: spec, loc: loc}, nil
}

// Next is the first run strictly after t, in UTC, or nil when there is
// none: a one-off time at or before t, or a cron expression that never
// matches (February 30th).
//
// Cron times are wall-clock times in the zone. One that does not exist on
// a day (spring forward) is skipped that day; one that occurs twice (fall
// back) fires once, at its first occurrence: a candidate showing the same
// wall-clock minute as t is passed over.
func (tm Timing) Next(t time.Time) *time.Time {
	return tm.NextAfterRun(t, t)
}

// NextAfterRun is Next(now) for a schedule whose run planned at was has
// just been claimed: a candidate showing was's wall-clock minute (the
// second occurrence of a fall-back time) is passed over too.
func (tm Timing) NextAfterRun(was, now time.Time) *time.Time {
	if tm.at != nil {
		if tm.at.After(now) {
			return tm.at
		}
		return nil
	}
	n := tm.spec.Next(now.In(tm.loc))
	for !n.IsZero() && (tm.sameWall(n, now) || tm.sameWall(n, was)) {
		n = tm.spec.Next(n)
	}
	if n.IsZero() {
		return nil
	}
	n = n.UTC()
	return &n
}

// sameWall reports whether a and b read the same minute on the zone's
// clock (at different instants: around a fall-back hour).
func (tm Timing) sameWall(a, b time.Time) bool {
	a, b = a.In(tm.loc), b.In(tm.loc)
	return !a.Equal(b) && a.Format("2006-01-02T15:04") == b.Format("2006-01-02T15:04")
}

// OneOff reports whether the timing is an `at` time.
func (tm Timing) OneOff() bool { return tm.at != nil }
