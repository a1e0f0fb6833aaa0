// Package battery ties tests to the numbered reliability and security battery
// of docs/reliability.md (T01…T65). A test that implements a battery entry
// calls Report with the entry's id and what it measured; the figure shows in
// the test log and, when HOSTGATE_BATTERY_OUT names a file, is appended to it
// as one JSON line, from which `make reliability` renders the figures column
// of docs/reliability.md.
package battery

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"
)

// EnvOut names the file Report appends its JSON lines to.
const EnvOut = "HOSTGATE_BATTERY_OUT"

// Figure is one reported measurement.
type Figure struct {
	ID     string    `json:"id"`
	Test   string    `json:"test"`
	Figure string    `json:"figure"`
	At     time.Time `json:"at"`
}

var (
	idRE = regexp.MustCompile(`^T[0-9]{2}$`)
	mu   sync.Mutex
)

// Report records that the running test implements battery entry id (T01…T65)
// and what it measured, for example
//
//	battery.Report(t, "T16", "%d notifies → %d credit, %d ledger row (%s)", n, credits, rows, engine)
//
// Call it once the test's assertions have passed: a failed test reports
// nothing.
func Report(t testing.TB, id, format string, args ...any) {
	t.Helper()
	if !idRE.MatchString(id) {
		t.Fatalf("battery.Report: %q is not a battery id (T01…T65)", id)
	}
	if t.Failed() {
		return
	}
	f := Figure{ID: id, Test: t.Name(), Figure: fmt.Sprintf(format, args...), At: time.Now().UTC()}
	t.Logf("battery %s: %s", f.ID, f.Figure)
	path := os.Getenv(EnvOut)
	if path == "" {
		return
	}
	line, err := json.Marshal(f)
	if err != nil {
		t.Fatalf("battery.Report: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	// One write of one line with O_APPEND: lines from parallel test
	// processes do not interleave.
	file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("battery.Report: %v", err)
	}
	defer file.Close()
	if _, err := file.Write(append(line, '\n')); err != nil {
		t.Fatalf("battery.Report: %v", err)
	}
}
