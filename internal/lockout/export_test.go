package lockout

import "time"

// SetNow makes g read the time from now instead of the wall clock, so a
// test moves time on rather than waiting for a lock or a window to end.
func SetNow(g *Guard, now func() time.Time) { g.now = now }
