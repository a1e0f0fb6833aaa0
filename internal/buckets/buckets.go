// Package buckets is the time buckets the admin dashboard's series group
// by: whole UTC hours or whole UTC days. A series of n buckets ends with
// the bucket that holds now, so its last point is still filling.
//
// The storage groups rows by a bucket's key, the bucket's start written as
// text (Key): every engine can cut that text from a time, SQLite from the
// fixed-width text it stores, PostgreSQL with to_char in UTC.
package buckets

import (
	"fmt"
	"time"
)

// Unit is a bucket's length.
type Unit string

// The units.
const (
	Hour Unit = "hour"
	Day  Unit = "day"
)

// Parse returns the unit named s; "" is Hour.
func Parse(s string) (Unit, error) {
	switch Unit(s) {
	case "", Hour:
		return Hour, nil
	case Day:
		return Day, nil
	}
	return "", fmt.Errorf("bucket must be hour or day")
}

// Step is the unit's length.
func (u Unit) Step() time.Duration {
	if u == Day {
		return 24 * time.Hour
	}
	return time.Hour
}

// Start is the start of the bucket holding t, in UTC.
func (u Unit) Start(t time.Time) time.Time {
	t = t.UTC()
	if u == Day {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// KeyLayout is the layout of a bucket's key: the start's text up to the
// hour ("2006-01-02T15") or the day ("2006-01-02"), a prefix of the
// RFC 3339 form, so that a stored time's text starts with its bucket's key.
func (u Unit) KeyLayout() string {
	if u == Day {
		return "2006-01-02"
	}
	return "2006-01-02T15"
}

// Key is the key of the bucket starting at start.
func (u Unit) Key(start time.Time) string { return start.UTC().Format(u.KeyLayout()) }

// ParseKey returns the start of the bucket of key k.
func (u Unit) ParseKey(k string) (time.Time, error) {
	t, err := time.ParseInLocation(u.KeyLayout(), k, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("bucket key %q: %w", k, err)
	}
	return t, nil
}

// Window is the n buckets that end with the one holding now: from the
// start of the first (inclusive) to the end of the last (exclusive).
func (u Unit) Window(now time.Time, n int) (from, to time.Time) {
	last := u.Start(now) // UTC has no daylight saving: every day is 24 h
	return last.Add(-time.Duration(n-1) * u.Step()), last.Add(u.Step())
}

// Index is the place in a window starting at from of the bucket starting
// at start, or -1 when start is before from.
func (u Unit) Index(from, start time.Time) int {
	if start.Before(from) {
		return -1
	}
	return int(start.Sub(from) / u.Step())
}
