package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// reportSchema is the version of the JSON written by -json; a reader
// refuses any other.
const reportSchema = 1

// Report is one run's figures as written by -json (build/bench.json under
// `make bench`): what was measured, where and how.
type Report struct {
	Schema   int       `json:"schema"`
	Kind     string    `json:"kind"` // "run"
	Time     time.Time `json:"time"`
	Commit   string    `json:"commit"` // "" outside a git checkout
	Dirty    bool      `json:"dirty"`  // uncommitted changes in the checkout
	Machine  Machine   `json:"machine"`
	Settings Settings  `json:"settings"`
	// Failed lists the scenarios that failed; their figures may be missing.
	Failed  []string `json:"failed"`
	Figures []Figure `json:"figures"`
}

// Machine describes where a run was measured.
type Machine struct {
	Hostname    string `json:"hostname"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes"` // 0 when unknown
	Go          string `json:"go"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
}

// Settings are the run's flags that shape its figures.
type Settings struct {
	Run                 []string `json:"run"`
	Duration            string   `json:"d"`
	PG                  bool     `json:"pg"`
	Fleet               []int    `json:"fleet"`
	ScaleAgents         int      `json:"scale_agents"`
	ScaleHubs           int      `json:"scale_hubs"`
	ScaleJobConcurrency int      `json:"scale_job_concurrency"`
}

// Figure is one line of the table. Scenario, backend and metric together
// name it; the name is the same from run to run (see key).
type Figure struct {
	Scenario string  `json:"scenario"`
	Backend  string  `json:"backend"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	// Floor names the floor the figure is measured against, "" for none;
	// FloorValue and Ratio (Value / FloorValue) are null then.
	Floor      string   `json:"floor"`
	FloorValue *float64 `json:"floor_value"`
	Ratio      *float64 `json:"ratio"`
	// Better is "lower" or "higher"; "" when the direction is unknown.
	Better string `json:"better"`
	// MachineFloor marks the floors themselves (floor http, ws, exec): what
	// the machine does with nothing of hostgate in the way.
	MachineFloor bool `json:"machine_floor,omitempty"`
}

// key is the figure's identity across runs.
func (f Figure) key() string { return f.Scenario + " · " + f.Backend + " · " + f.Metric }

// report gathers the run's figures, ratios computed against the floors
// measured in the same run.
func (b *bench) report(now time.Time, failed []error) Report {
	r := Report{Schema: reportSchema, Kind: "run", Time: now.UTC().Truncate(time.Second), Settings: b.settings,
		Commit: b.commit, Dirty: b.dirty, Machine: machine(), Failed: []string{}, Figures: []Figure{}}
	for _, err := range failed {
		r.Failed = append(r.Failed, err.Error())
	}
	for _, rw := range b.rows {
		r.Figures = append(r.Figures, figureOf(rw, b.floors))
	}
	return r
}

// figureOf turns a row into a figure: the floor's value and the ratio when
// the floor was measured, and the direction inferred from the unit when
// the scenario did not give one.
func figureOf(rw row, floors map[string]float64) Figure {
	f := Figure{Scenario: rw.scenario, Backend: rw.backend, Metric: rw.metric, Value: rw.value, Unit: rw.unit,
		Floor: rw.floor, Better: rw.better, MachineFloor: strings.HasPrefix(rw.scenario, "floor ") && rw.floor == ""}
	if fv, ok := floors[rw.floor]; ok && fv > 0 {
		ratio := rw.value / fv
		f.FloorValue, f.Ratio = &fv, &ratio
	}
	if f.Better == "" {
		f.Better = betterByUnit(rw.unit)
	}
	return f
}

// betterByUnit is the direction of a figure whose scenario did not say:
// times, memory and CPU are better lower; rates and shares of successes
// are better higher.
func betterByUnit(unit string) string {
	switch {
	case unit == "ms", unit == "s", unit == "KiB", unit == "MiB", strings.HasPrefix(unit, "% of a core"):
		return "lower"
	case unit == "%", strings.HasSuffix(unit, "/s"):
		return "higher"
	}
	return ""
}

func machine() Machine {
	host, _ := os.Hostname()
	return Machine{Hostname: host, CPUs: runtime.NumCPU(), MemoryBytes: memBytes(),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// gitCommit is the checkout's commit and whether it has uncommitted
// changes; "" outside a git checkout.
func gitCommit() (string, bool) {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), err == nil && len(bytes.TrimSpace(st)) > 0
}

// writeJSON writes v to name, indented, through a temporary file so that a
// reader never sees half of it.
func writeJSON(name string, v any) error {
	var buf bytes.Buffer
	if err := writeJSONTo(&buf, v); err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func writeJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// readReport reads a report written by -json.
func readReport(name string) (Report, error) {
	var r Report
	if err := readJSON(name, &r); err != nil {
		return r, err
	}
	if r.Schema != reportSchema || r.Kind != "run" {
		return r, fmt.Errorf("%s: not a run of hostgate-bench -json (schema %d, kind %q)", name, r.Schema, r.Kind)
	}
	return r, nil
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
