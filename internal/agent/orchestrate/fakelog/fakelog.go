// Package fakelog reads the event log the orchestration tests' fake game
// programs write (testdata/fake on Linux, testdata/winfake on Windows):
// one JSON object per line, one line per start, signal, message or exit.
// Test support only: the unit tests of orchestrate and the end-to-end
// test share it.
package fakelog

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// Event is one line of the log; each fake fills the fields it knows.
type Event struct {
	Event      string   `json:"event"`
	Exe        string   `json:"exe"`
	PID        int      `json:"pid"`
	SID        int      `json:"sid"`         // Linux: session id
	Cwd        string   `json:"cwd"`         //
	Args       []string `json:"args"`        //
	StartTicks uint64   `json:"start_ticks"` // Linux: start time in clock ticks
	Signal     string   `json:"signal"`      // Linux
	Mode       string   `json:"mode"`        //
	HWND       uintptr  `json:"hwnd"`        // Windows: the fake's window
	DwData     uintptr  `json:"dw_data"`     // Windows: WM_COPYDATA's dwData
}

// Read returns the events in path, none when the file does not exist yet.
func Read(t testing.TB, path string) []Event {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("fake log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
