package httpapi

import (
	"net/url"
	"testing"

	"hostgate/internal/apperr"
)

// FuzzTermSize parses a terminal WebSocket's query (?cols=&rows=) as the
// route does: a size is 0 (absent) or 1..65535, anything else a clear
// invalid_query error, never a panic.
func FuzzTermSize(f *testing.F) {
	for _, s := range []string{"cols=80&rows=24", "", "cols=0", "rows=65536", "cols=-1&rows=x", "cols=%zz", "cols=1e3&cols=2", "rows=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw)
		cols, rows, err := termSize(q)
		if err != nil {
			if !apperr.Is(err, apperr.CodeInvalidQuery) {
				t.Fatalf("%q: %v is not invalid_query", raw, err)
			}
			return
		}
		for _, n := range []int{cols, rows} {
			if n < 0 || n > 65535 {
				t.Fatalf("%q: size %d accepted", raw, n)
			}
		}
	})
}
