package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func ptr(v float64) *float64 { return &v }

func TestJudge(t *testing.T) {
	tests := []struct {
		name    string
		base    BaseFigure
		now     Figure
		ratio   bool // compared by ratio too
		verdict string
	}{
		{"lower is better, slower beyond the spread", BaseFigure{Value: 10, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 11.5}, false, verdictWorse},
		{"lower is better, slower within the spread", BaseFigure{Value: 10, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 10.9}, false, verdictSame},
		{"lower is better, faster beyond the spread", BaseFigure{Value: 10, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 8}, false, verdictBetter},
		{"higher is better, fewer beyond the spread", BaseFigure{Value: 1000, AllowedValue: 0.10, Better: "higher"},
			Figure{Value: 850}, false, verdictWorse},
		{"higher is better, more beyond the spread", BaseFigure{Value: 1000, AllowedValue: 0.10, Better: "higher"},
			Figure{Value: 1300}, false, verdictBetter},
		{"higher is better, a rise is never worse", BaseFigure{Value: 1000, AllowedValue: 0.01, Better: "higher"},
			Figure{Value: 5000}, false, verdictBetter},
		{"edge: exactly the allowed change passes", BaseFigure{Value: 3, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 3.3}, false, verdictSame},
		{"edge: just past the allowed change fails", BaseFigure{Value: 3, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 3.3001}, false, verdictWorse},
		{"edge: exactly the allowed drop passes", BaseFigure{Value: 200, AllowedValue: 0.25, Better: "higher"},
			Figure{Value: 150}, false, verdictSame},
		{"edge: just past the allowed drop fails", BaseFigure{Value: 200, AllowedValue: 0.25, Better: "higher"},
			Figure{Value: 149.9}, false, verdictWorse},
		{"edge: a spread of zero fails any worsening", BaseFigure{Value: 10, AllowedValue: 0, Better: "lower"},
			Figure{Value: 10.001}, false, verdictWorse},
		{"value and ratio: the value got worse, the ratio did not (a busy machine)",
			BaseFigure{Value: 1, AllowedValue: 0.10, Ratio: ptr(4), AllowedRatio: ptr(0.10), Better: "lower"},
			Figure{Value: 2, Ratio: ptr(4.2)}, true, verdictSame},
		{"value and ratio: the ratio got worse, the value did not (a faster floor)",
			BaseFigure{Value: 1, AllowedValue: 0.10, Ratio: ptr(4), AllowedRatio: ptr(0.10), Better: "lower"},
			Figure{Value: 1, Ratio: ptr(5)}, true, verdictSame},
		{"value and ratio: both worse",
			BaseFigure{Value: 1, AllowedValue: 0.10, Ratio: ptr(4), AllowedRatio: ptr(0.10), Better: "lower"},
			Figure{Value: 1.2, Ratio: ptr(5)}, true, verdictWorse},
		{"value and ratio: both better, higher is better",
			BaseFigure{Value: 100, AllowedValue: 0.10, Ratio: ptr(0.5), AllowedRatio: ptr(0.10), Better: "higher"},
			Figure{Value: 150, Ratio: ptr(0.7)}, true, verdictBetter},
		{"value and ratio: both worse, higher is better",
			BaseFigure{Value: 100, AllowedValue: 0.10, Ratio: ptr(0.5), AllowedRatio: ptr(0.10), Better: "higher"},
			Figure{Value: 80, Ratio: ptr(0.4)}, true, verdictWorse},
		{"value and ratio: the value worse, the ratio better",
			BaseFigure{Value: 1, AllowedValue: 0.10, Ratio: ptr(4), AllowedRatio: ptr(0.10), Better: "lower"},
			Figure{Value: 2, Ratio: ptr(3)}, true, verdictSame},
		{"value only when the run measured no floor",
			BaseFigure{Value: 1, AllowedValue: 0.10, Ratio: ptr(4), AllowedRatio: ptr(0.10), Better: "lower"},
			Figure{Value: 1.5}, false, verdictWorse},
		{"value only when the baseline has no ratio",
			BaseFigure{Value: 1, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 1.05, Ratio: ptr(9)}, false, verdictSame},
		{"a machine floor got slower: reported, not failing", BaseFigure{Value: 0.2, AllowedValue: 0.10, Better: "lower", MachineFloor: true},
			Figure{Value: 0.4}, false, verdictMachine},
		{"a machine floor got faster", BaseFigure{Value: 0.2, AllowedValue: 0.10, Better: "lower", MachineFloor: true},
			Figure{Value: 0.1}, false, verdictBetter},
		{"no direction: not judged", BaseFigure{Value: 10, AllowedValue: 0.10},
			Figure{Value: 100}, false, verdictUngated},
		{"the run's direction when the baseline has none", BaseFigure{Value: 10, AllowedValue: 0.10},
			Figure{Value: 100, Better: "lower"}, false, verdictWorse},
		{"a baseline of zero: not judged", BaseFigure{Value: 0, AllowedValue: 0.10, Better: "lower"},
			Figure{Value: 5}, false, verdictUngated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := judge(tt.base, tt.now)
			if (l.Ratio != nil) != tt.ratio || l.Verdict != tt.verdict {
				t.Fatalf("by ratio %v, verdict %s (value %+v, ratio %+v); want %v, %s",
					l.Ratio != nil, l.Verdict, l.Value, l.Ratio, tt.ratio, tt.verdict)
			}
		})
	}
}

func figure(scenario, metric string, v float64, better string) Figure {
	return Figure{Scenario: scenario, Backend: "sqlite", Metric: metric, Value: v, Unit: "ms", Better: better}
}

func baseOf(fs ...Figure) Baseline {
	b, err := makeBaseline([]Report{{Figures: fs}}, Spread{K: 2, Min: 0.10})
	if err != nil {
		panic(err)
	}
	return b
}

// Figures on one side only are listed, and do not fail the comparison.
func TestCompareMissingAndNew(t *testing.T) {
	base := baseOf(figure("api", "p50", 1, "lower"), figure("tags", "p50", 5, "lower"))
	run := Report{Figures: []Figure{figure("api", "p50", 1.02, "lower"), figure("keyset", "p50", 2, "lower")}}
	c := compare(base, run)
	if err := c.err(); err != nil {
		t.Fatalf("err = %v, want nil", err)
	}
	if !slices.Equal(c.Missing, []string{"tags · sqlite · p50"}) || !slices.Equal(c.New, []string{"keyset · sqlite · p50"}) {
		t.Fatalf("missing %v, new %v", c.Missing, c.New)
	}
	if len(c.Lines) != 1 || c.Lines[0].Verdict != verdictSame {
		t.Fatalf("lines %+v", c.Lines)
	}
	var out bytes.Buffer
	c.write(&out, false)
	for _, want := range []string{"- tags · sqlite: p50", "- keyset · sqlite: p50", "0 worse"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// A worse figure fails the comparison and is printed with its baseline,
// its value now, the change and the change allowed; an empty run or
// baseline fails nothing.
func TestCompareWorse(t *testing.T) {
	base := baseOf(figure("api", "p50", 1, "lower"), Figure{Scenario: "api", Backend: "pg", Metric: "throughput c=16", Value: 400, Unit: "/s", Better: "higher"})
	run := Report{Figures: []Figure{figure("api", "p50", 1.5, "lower"), {Scenario: "api", Backend: "pg", Metric: "throughput c=16", Value: 300, Unit: "/s", Better: "higher"}}}
	c := compare(base, run)
	if err := c.err(); err == nil || !strings.Contains(err.Error(), "2 figure(s) worse") {
		t.Fatalf("err = %v, want 2 worse", err)
	}
	var out bytes.Buffer
	c.write(&out, false)
	for _, want := range []string{
		"| figure | baseline | now | change | allowed |",
		"| api · sqlite · p50 | 1 ms | 1.5 ms | +50% | +10% (lower is better) |",
		"| api · pg · throughput c=16 | 400 /s | 300 /s | -25% | -10% (higher is better) |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := compare(Baseline{}, run).err(); err != nil {
		t.Errorf("empty baseline: %v", err)
	}
	if err := compare(base, Report{}).err(); err != nil {
		t.Errorf("empty run: %v", err)
	}
}

// A figure with a floor is printed with its ratio beside its value.
func TestCompareWorseByRatio(t *testing.T) {
	base := baseOf(Figure{Scenario: "api read file", Backend: "pg+redis", Metric: "p50", Value: 1, Unit: "ms", Ratio: ptr(4), Better: "lower"})
	run := Report{Figures: []Figure{{Scenario: "api read file", Backend: "pg+redis", Metric: "p50", Value: 1.3, Unit: "ms", Ratio: ptr(5), Better: "lower"}}}
	c := compare(base, run)
	var out bytes.Buffer
	c.write(&out, false)
	want := "| api read file · pg+redis · p50 | 1 ms, 4.00× | 1.3 ms, 5.00× | +30%, ratio +25% | +10%, ratio +10% (lower is better) |"
	if c.err() == nil || !strings.Contains(out.String(), want) {
		t.Fatalf("err %v; output lacks %q:\n%s", c.err(), want, out.String())
	}
}

// A slower machine floor fails nothing, and the output warns that the
// machine was busier.
func TestCompareMachineFloor(t *testing.T) {
	floor := Figure{Scenario: "floor ws", Backend: "-", Metric: "p50", Value: 0.07, Unit: "ms", Better: "lower", MachineFloor: true}
	base := baseOf(floor)
	floor.Value = 0.14
	c := compare(base, Report{Figures: []Figure{floor}})
	var out bytes.Buffer
	c.write(&out, false)
	if c.err() != nil || !strings.Contains(out.String(), "1 machine floor(s) worse than at the baseline") ||
		!strings.Contains(out.String(), "| floor ws · - · p50 | 0.07 ms | 0.14 ms | +100% | +10% (lower is better) |") {
		t.Fatalf("err %v, output:\n%s", c.err(), out.String())
	}
}

func TestCompareNotes(t *testing.T) {
	base := baseOf(figure("api", "p50", 1, "lower"))
	base.Settings.Duration, base.Machine.CPUs = "2s", 2
	run := Report{Settings: Settings{Duration: "3s"}, Machine: Machine{CPUs: 8}, Failed: []string{"search: p95 over 100 ms"},
		Figures: []Figure{figure("api", "p50", 1, "lower"), figure("api", "p50", 9, "lower")}}
	c := compare(base, run)
	joined := strings.Join(c.Notes, "\n")
	for _, want := range []string{"measured runs of 3s, the baseline's of 2s", "another machine kind: 8 CPUs", "scenario failed in this run: search", "measured twice"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
	if c.err() != nil || c.Lines[0].Value.Now != 1 {
		t.Errorf("the duplicate was compared: %+v", c.Lines)
	}
}

func TestMakeBaseline(t *testing.T) {
	at := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	settings := Settings{Run: []string{"floor", "api"}, Duration: "2s"}
	run1 := Report{Time: at, Commit: "aaa", Settings: settings, Figures: []Figure{
		{Scenario: "api", Backend: "sqlite", Metric: "p50", Value: 1.0, Ratio: ptr(4.0), Better: "lower"},
		{Scenario: "api", Backend: "sqlite", Metric: "throughput c=16", Value: 100, Ratio: ptr(0.5), Better: "higher"},
		{Scenario: "floor ws", Backend: "-", Metric: "p50", Value: 0.25, Better: "lower", MachineFloor: true},
		{Scenario: "only in the first", Backend: "pg", Metric: "p50", Value: 3, Better: "lower"},
		{Scenario: "only in the first", Backend: "pg", Metric: "p50", Value: 30, Better: "lower"}, // twice: the first counts
	}}
	run2 := Report{Time: at.Add(time.Hour), Commit: "bbb", Settings: settings, Figures: []Figure{
		{Scenario: "api", Backend: "sqlite", Metric: "p50", Value: 1.1, Ratio: ptr(4.0), Better: "lower"},
		{Scenario: "api", Backend: "sqlite", Metric: "throughput c=16", Value: 100, Better: "higher"}, // no floor this time
		{Scenario: "floor ws", Backend: "-", Metric: "p50", Value: 0.25, Better: "lower", MachineFloor: true},
	}}
	b, err := makeBaseline([]Report{run1, run2}, Spread{K: 2, Min: 0.10})
	if err != nil {
		t.Fatal(err)
	}
	if b.Kind != "baseline" || b.Commit != "bbb" || !b.Time.Equal(run2.Time) || len(b.Runs) != 2 || b.Runs[0].Commit != "aaa" {
		t.Fatalf("header %+v", b)
	}
	want := map[string]struct {
		value, allowed float64
		ratio          *float64
		allowedRatio   float64
	}{
		// (1.1-1.0)/1.05 × 2 = 0.1905, rounded up to 0.20; the ratios agree: the minimum.
		"api · sqlite · p50": {1.05, 0.20, ptr(4), 0.10},
		// equal values: the minimum; a ratio in one run only: none.
		"api · sqlite · throughput c=16": {100, 0.10, nil, 0},
		"floor ws · - · p50":             {0.25, 0.10, nil, 0},
		// in one run only: its value, the minimum.
		"only in the first · pg · p50": {3, 0.10, nil, 0},
	}
	if len(b.Figures) != len(want) {
		t.Fatalf("%d figures, want %d", len(b.Figures), len(want))
	}
	for _, f := range b.Figures {
		w, ok := want[f.key()]
		if !ok {
			t.Fatalf("unexpected figure %s", f.key())
		}
		if !near(f.Value, w.value) || !near(f.AllowedValue, w.allowed) {
			t.Errorf("%s: value %v allowed %v, want %v %v", f.key(), f.Value, f.AllowedValue, w.value, w.allowed)
		}
		switch {
		case w.ratio == nil && (f.Ratio != nil || f.AllowedRatio != nil):
			t.Errorf("%s: ratio %v, want none", f.key(), *f.Ratio)
		case w.ratio != nil && (f.Ratio == nil || !near(*f.Ratio, *w.ratio) || !near(*f.AllowedRatio, w.allowedRatio)):
			t.Errorf("%s: ratio %v allowed %v, want %v %v", f.key(), f.Ratio, f.AllowedRatio, *w.ratio, w.allowedRatio)
		}
	}
	if !b.Figures[2].MachineFloor {
		t.Error("the machine floor lost its mark")
	}

	other := run2
	other.Settings = Settings{Run: []string{"floor"}, Duration: "2s"}
	if _, err := makeBaseline([]Report{run1, other}, Spread{K: 2, Min: 0.1}); err == nil {
		t.Error("runs with different scenarios made a baseline")
	}
	if _, err := makeBaseline(nil, Spread{}); err == nil {
		t.Error("no runs made a baseline")
	}
}

// Long lists of missing figures are counted, and listed with -all.
func TestCompareLongLists(t *testing.T) {
	var fs []Figure
	for i := range maxList + 1 {
		fs = append(fs, figure(fmt.Sprintf("scenario %d", i), "p50", 1, "lower"))
	}
	c := compare(baseOf(fs...), Report{})
	var out bytes.Buffer
	c.write(&out, false)
	if !strings.Contains(out.String(), "not in this run (not failing): 11 scenarios and backends (compare -all lists them).") ||
		strings.Contains(out.String(), "- scenario 0") {
		t.Fatalf("without -all:\n%s", out.String())
	}
	out.Reset()
	c.write(&out, true)
	if !strings.Contains(out.String(), "- scenario 0 · sqlite: p50") || !strings.Contains(out.String(), "- scenario 10 · sqlite: p50") {
		t.Fatalf("with -all:\n%s", out.String())
	}
}

func TestGrouped(t *testing.T) {
	got := grouped([]string{"api · sqlite · p50", "api · sqlite · p99", "api · pg+redis · p50", "api · sqlite · throughput c=16", "odd"})
	want := []string{"api · sqlite: p50, p99, throughput c=16", "api · pg+redis: p50", "odd:"}
	if !slices.Equal(got, want) {
		t.Fatalf("grouped = %q, want %q", got, want)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestAllowed(t *testing.T) {
	sp := Spread{K: 2, Min: 0.10}
	tests := []struct {
		vs   []float64
		want float64
	}{
		{[]float64{5}, 0.10},                // one run: the minimum
		{[]float64{5, 5}, 0.10},             // no spread: the minimum
		{[]float64{100, 104.9}, 0.10},       // 2 × 4.8 % under the minimum
		{[]float64{100, 105.1}, 0.10},       // 2 × 4.97 % = 9.95 % rounds up to 10 %
		{[]float64{100, 110}, 0.20},         // 2 × 9.52 % = 19.05 % rounds up to 20 %
		{[]float64{1, 3}, 2.00},             // 2 × 100 %
		{[]float64{0, 0}, 0.10},             // a mean of zero: the minimum
		{[]float64{100, 105.2631579}, 0.11}, // 2 × 5.128 % = 10.26 % rounds up to 11 %
	}
	for _, tt := range tests {
		if got := allowed(tt.vs, sp); !near(got, tt.want) {
			t.Errorf("allowed(%v) = %v, want %v", tt.vs, got, tt.want)
		}
	}
}

// The subcommands read and write the files make bench and
// make bench-baseline use.
func TestSubcommands(t *testing.T) {
	dir := t.TempDir()
	run1, run2, now, base := filepath.Join(dir, "1.json"), filepath.Join(dir, "2.json"), filepath.Join(dir, "now.json"), filepath.Join(dir, "baseline.json")
	write := func(name string, v float64, failed ...string) {
		t.Helper()
		r := Report{Schema: reportSchema, Kind: "run", Failed: failed, Settings: Settings{Duration: "2s"},
			Figures: []Figure{figure("api", "p50", v, "lower")}}
		if err := writeJSON(name, r); err != nil {
			t.Fatal(err)
		}
	}
	write(run1, 1.0)
	write(run2, 1.0)
	var out bytes.Buffer
	if err := baselineCmd([]string{"-o", base, run1, run2}, &out); err != nil {
		t.Fatal(err)
	}
	write(now, 1.05)
	if err := compareCmd([]string{base, now}, &out); err != nil {
		t.Fatalf("within the spread: %v", err)
	}
	write(now, 1.2)
	out.Reset()
	if err := compareCmd([]string{base, now}, &out); err == nil || !strings.Contains(out.String(), "| api · sqlite · p50 | 1 ms | 1.2 ms | +20% | +10%") {
		t.Fatalf("a worse run: err %v, output:\n%s", err, out.String())
	}
	write(run2, 1.0, "search: failed")
	if err := baselineCmd([]string{"-o", base, run1, run2}, &out); err == nil {
		t.Fatal("a run with a failed scenario was accepted")
	}
	if err := baselineCmd([]string{"-accept-failed", "-o", base, run1, run2}, &out); err != nil {
		t.Fatalf("-accept-failed: %v", err)
	}
	if err := compareCmd([]string{base}, &out); err == nil {
		t.Fatal("compare with one file succeeded")
	}
}
