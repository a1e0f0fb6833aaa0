// Package leak finds goroutines a test leaves running (battery T65), as
// go.uber.org/goleak does, without the dependency: it compares the
// goroutines running when a test (or a package's tests) ends with those
// that ran when it began, waits a bounded time for stragglers to finish
// (a stopped hub's connections and workers take a moment to notice), and
// fails with the stacks of those still running. It is imported only by
// tests.
//
// Check suits a test that runs alone (no t.Parallel siblings running at
// the same time, whose goroutines it would count); VerifyTestMain checks
// a whole package after its tests ran.
package leak

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Wait is how long Check and VerifyTestMain wait for goroutines to finish
// before they call them leaked.
const Wait = 10 * time.Second

// Goroutine is one running goroutine as runtime.Stack prints it.
type Goroutine struct {
	ID    int
	State string // e.g. "running", "select", "IO wait, 3 minutes"
	Stack string // the whole record, header included
}

// Top is the function the goroutine is in now (the first frame).
func (g Goroutine) Top() string { return frame(g.Stack, 0) }

// Origin is the function that started the goroutine ("created by …"),
// or "" for the main goroutine.
func (g Goroutine) Origin() string {
	_, after, ok := strings.Cut(g.Stack, "\ncreated by ")
	if !ok {
		return ""
	}
	fn, _, _ := strings.Cut(after, " in goroutine")
	fn, _, _ = strings.Cut(fn, "\n")
	return strings.TrimSpace(fn)
}

// frame is the function name of the n-th frame of a goroutine record.
func frame(record string, n int) string {
	lines := strings.Split(record, "\n")
	// lines[0] is the header; then pairs of function, file:line.
	i := 1 + 2*n
	if i >= len(lines) {
		return ""
	}
	fn := lines[i]
	if p := strings.LastIndexByte(fn, '('); p > 0 {
		fn = fn[:p]
	}
	return strings.TrimSpace(fn)
}

// Current returns every running goroutine but the caller's.
func Current() []Goroutine {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	records := bytes.Split(buf, []byte("\n\n"))
	out := make([]Goroutine, 0, len(records))
	for i, r := range records {
		if i == 0 {
			continue // runtime.Stack prints the calling goroutine first
		}
		if g, ok := parse(string(r)); ok {
			out = append(out, g)
		}
	}
	return out
}

// parse reads a record's header: "goroutine 12 [select, 2 minutes]:".
func parse(record string) (Goroutine, bool) {
	record = strings.TrimSpace(record)
	header, _, _ := strings.Cut(record, "\n")
	rest, ok := strings.CutPrefix(header, "goroutine ")
	if !ok {
		return Goroutine{}, false
	}
	idText, state, ok := strings.Cut(rest, " [")
	if !ok {
		return Goroutine{}, false
	}
	id, err := strconv.Atoi(idText)
	if err != nil {
		return Goroutine{}, false
	}
	return Goroutine{ID: id, State: strings.TrimSuffix(state, "]:"), Stack: record}, true
}

// ignored are goroutines of the runtime and the test framework, not of
// the code under test, that may start during a test: like goleak's
// default filters.
func ignored(g Goroutine) bool {
	top, origin := g.Top(), g.Origin()
	for _, fn := range []string{
		"testing.(*T).Run", "testing.(*T).Parallel", "testing.(*F).Fuzz", "testing.runTests", "testing.runFuzzing",
		"testing.tRunner", "testing.(*M).Run", "runtime.goexit", "runtime.ReadTrace", "os/signal.signal_recv",
		"os/signal.loop", "runtime.ensureSigM",
	} {
		if top == fn || origin == fn && strings.HasPrefix(fn, "os/signal") {
			return true
		}
	}
	// A parallel test waiting for its turn, or the testing package's
	// alarm for -timeout.
	return strings.Contains(g.Stack, "testing.(*T).Parallel(") || strings.Contains(g.Stack, "testing.(*M).startAlarm") ||
		origin == "testing.(*M).startAlarm"
}

// Since returns the goroutines running now that were not in before and
// are not the runtime's or the test framework's.
func Since(before []Goroutine) []Goroutine {
	known := make(map[int]bool, len(before))
	for _, g := range before {
		known[g.ID] = true
	}
	var out []Goroutine
	for _, g := range Current() {
		if !known[g.ID] && !ignored(g) {
			out = append(out, g)
		}
	}
	return out
}

// Find waits up to wait for the goroutines started since before to end
// and returns those still running then (none: nil).
func Find(before []Goroutine, wait time.Duration) []Goroutine {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		left := Since(before)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		// Polling a condition no channel reports: the other goroutines'
		// exits. Not a synchronisation sleep; the deadline bounds it.
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Describe formats leaked goroutines for a failure message, most common
// origin first, at most max stacks in full.
func Describe(gs []Goroutine, max int) string {
	count := map[string]int{}
	for _, g := range gs {
		count[g.Origin()+" → "+g.Top()]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return count[b] - count[a] })
	var b strings.Builder
	fmt.Fprintf(&b, "%d goroutines leaked:\n", len(gs))
	for _, k := range keys {
		fmt.Fprintf(&b, "  %4d × %s\n", count[k], k)
	}
	for i, g := range gs {
		if i == max {
			fmt.Fprintf(&b, "… %d more\n", len(gs)-max)
			break
		}
		b.WriteString("\n" + g.Stack + "\n")
	}
	return b.String()
}

// Result is what Check found once the test ended.
type Result struct {
	// Peak is the most goroutines started since the baseline that Note
	// saw (0 without Note).
	Peak int
	// Settled is how long after the test's other cleanups those
	// goroutines took to end.
	Settled time.Duration
}

// Tracker is a running Check.
type Tracker struct {
	before []Goroutine
	peak   int
	after  []func(Result)
}

// Note counts the goroutines started since the baseline now, for Result's
// Peak: call it while the code under test runs at its busiest.
func (tr *Tracker) Note() int {
	n := len(Since(tr.before))
	tr.peak = max(tr.peak, n)
	return n
}

// Then runs f with the result once the check passed (not when it failed),
// e.g. to report it.
func (tr *Tracker) Then(f func(Result)) { tr.after = append(tr.after, f) }

// Check records the goroutines running now and, when t and its subtests
// have finished and every cleanup registered after this call has run (a
// hub's stop, say), fails t if goroutines started since are still running
// after Wait. Call it first in a test that does not run in parallel with
// others (their goroutines would count as the test's).
func Check(t testing.TB) *Tracker {
	t.Helper()
	tr := &Tracker{before: Current()}
	t.Cleanup(func() {
		start := time.Now()
		if left := Find(tr.before, Wait); len(left) > 0 {
			t.Errorf("leak: %s", Describe(left, 5))
			return
		}
		r := Result{Peak: tr.peak, Settled: time.Since(start)}
		for _, f := range tr.after {
			f(r)
		}
	})
	return tr
}

// VerifyTestMain runs a package's tests and then fails the package (exit
// status 1) if goroutines started by them are still running after Wait.
// Use it as TestMain:
//
//	func TestMain(m *testing.M) { leak.VerifyTestMain(m) }
func VerifyTestMain(m *testing.M) {
	before := Current()
	code := m.Run()
	if code == 0 {
		if left := Find(before, Wait); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "leak: after the package's tests: %s", Describe(left, 5))
			code = 1
		}
	}
	os.Exit(code)
}
