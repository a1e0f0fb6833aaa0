package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFigureOf(t *testing.T) {
	floors := map[string]float64{"floor_ws p50": 0.5, "floor_zero p50": 0}
	tests := []struct {
		name       string
		row        row
		floorValue float64 // 0: no floor value and no ratio
		ratio      float64
		better     string
		machine    bool
	}{
		{"against a measured floor", row{scenario: "api read", backend: "sqlite", metric: "p50", value: 2, unit: "ms", floor: "floor_ws p50", better: "lower"},
			0.5, 4, "lower", false},
		{"floor not measured in this run", row{scenario: "api read", backend: "sqlite", metric: "p95", value: 2, unit: "ms", floor: "floor_ws p95", better: "lower"},
			0, 0, "lower", false},
		{"floor of zero gives no ratio", row{scenario: "x", backend: "pg", metric: "p50", value: 2, unit: "ms", floor: "floor_zero p50", better: "lower"},
			0, 0, "lower", false},
		{"a machine floor", row{scenario: "floor ws", backend: "-", metric: "throughput c=16", value: 900, unit: "/s", better: "higher"},
			0, 0, "higher", true},
		{"direction from the unit: memory", row{scenario: "idle fleet 1000", backend: "sqlite", metric: "hub RSS per agent", value: 9.6, unit: "KiB"},
			0, 0, "lower", false},
		{"direction from the unit: share answered", row{scenario: "scale-out", backend: "pg", metric: "answered", value: 100, unit: "%"},
			0, 0, "higher", false},
		{"the scenario's direction wins", row{scenario: "x", backend: "pg", metric: "m", value: 1, unit: "s", better: "higher"},
			0, 0, "higher", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := figureOf(tt.row, floors)
			if f.Scenario != tt.row.scenario || f.Backend != tt.row.backend || f.Metric != tt.row.metric ||
				f.Value != tt.row.value || f.Unit != tt.row.unit || f.Floor != tt.row.floor {
				t.Fatalf("figure %+v does not carry row %+v", f, tt.row)
			}
			if tt.floorValue == 0 {
				if f.FloorValue != nil || f.Ratio != nil {
					t.Fatalf("floor value %v, ratio %v; want none", f.FloorValue, f.Ratio)
				}
			} else if f.FloorValue == nil || *f.FloorValue != tt.floorValue || f.Ratio == nil || *f.Ratio != tt.ratio {
				t.Fatalf("floor value %v, ratio %v; want %v, %v", f.FloorValue, f.Ratio, tt.floorValue, tt.ratio)
			}
			if f.Better != tt.better || f.MachineFloor != tt.machine {
				t.Fatalf("better %q, machine floor %v; want %q, %v", f.Better, f.MachineFloor, tt.better, tt.machine)
			}
		})
	}
}

func TestBetterByUnit(t *testing.T) {
	for unit, want := range map[string]string{
		"ms": "lower", "s": "lower", "KiB": "lower", "MiB": "lower", "% of a core": "lower",
		"%": "higher", "/s": "higher", "hosts/s": "higher", "widgets": "",
	} {
		if got := betterByUnit(unit); got != want {
			t.Errorf("betterByUnit(%q) = %q, want %q", unit, got, want)
		}
	}
}

// The JSON written by -json carries the run's settings and machine, and
// every row with its floor and ratio, null when there is none; reading it
// back gives the same report.
func TestReportJSON(t *testing.T) {
	b := &bench{
		settings: Settings{Run: []string{"floor", "api"}, Duration: "2s", PG: true, Fleet: []int{1000}, ScaleAgents: 100000, ScaleHubs: 6, ScaleJobConcurrency: 50},
		floors:   map[string]float64{"floor_ws p50": 0.25},
		commit:   "1cf58b5e0e0e",
		dirty:    true,
		rows: []row{
			{scenario: "floor ws", backend: "-", metric: "p50", value: 0.25, unit: "ms", better: "lower"},
			{scenario: "api read", backend: "sqlite", metric: "p50", value: 1, unit: "ms", floor: "floor_ws p50", better: "lower"},
			{scenario: "webhook", backend: "pg", metric: "deliveries", value: 120, unit: "/s"},
		},
	}
	now := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	rep := b.report(now, []error{os.ErrDeadlineExceeded})
	name := filepath.Join(t.TempDir(), "bench.json")
	if err := writeJSON(name, rep); err != nil {
		t.Fatal(err)
	}
	got, err := readReport(name)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rep) {
		t.Fatalf("read back %+v\nwrote %+v", got, rep)
	}
	if got.Kind != "run" || !got.Time.Equal(now) || got.Commit != "1cf58b5e0e0e" || !got.Dirty || got.Machine.CPUs < 1 || got.Machine.Go == "" || len(got.Failed) != 1 {
		t.Fatalf("header %+v", got)
	}
	if len(got.Figures) != 3 || *got.Figures[1].Ratio != 4 || !got.Figures[0].MachineFloor || got.Figures[2].Better != "higher" {
		t.Fatalf("figures %+v", got.Figures)
	}

	// The file's field names are the documented ones.
	data, _ := os.ReadFile(name)
	var raw struct {
		Settings map[string]any   `json:"settings"`
		Machine  map[string]any   `json:"machine"`
		Figures  []map[string]any `json:"figures"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "backend", "metric", "value", "unit", "floor", "floor_value", "ratio", "better"} {
		if _, ok := raw.Figures[2][k]; !ok {
			t.Errorf("figure without %q: %v", k, raw.Figures[2])
		}
	}
	if raw.Figures[2]["ratio"] != nil || raw.Figures[2]["floor_value"] != nil {
		t.Errorf("a figure without a floor has ratio %v, floor_value %v; want null", raw.Figures[2]["ratio"], raw.Figures[2]["floor_value"])
	}
	for _, k := range []string{"cpus", "memory_bytes", "go"} {
		if _, ok := raw.Machine[k]; !ok {
			t.Errorf("machine without %q", k)
		}
	}
	if raw.Settings["d"] != "2s" || raw.Settings["pg"] != true {
		t.Errorf("settings %v", raw.Settings)
	}
}

func TestReadReportRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.json")
	if err := writeJSON(base, Baseline{Schema: reportSchema, Kind: "baseline"}); err != nil {
		t.Fatal(err)
	}
	if _, err := readReport(base); err == nil || !strings.Contains(err.Error(), "not a run") {
		t.Fatalf("readReport(baseline) = %v, want not a run", err)
	}
	run := filepath.Join(dir, "bench.json")
	if err := writeJSON(run, Report{Schema: reportSchema, Kind: "run"}); err != nil {
		t.Fatal(err)
	}
	if _, err := readBaseline(run); err == nil || !strings.Contains(err.Error(), "not a baseline") {
		t.Fatalf("readBaseline(run) = %v, want not a baseline", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readReport(bad); err == nil {
		t.Fatal("readReport of broken JSON succeeded")
	}
}
