package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Baseline is the last accepted run on this machine kind
// (bench/baseline.json): each figure's value, the mean of the runs it was
// made from, and how far a later run may move it for the worse before
// the comparison fails.
type Baseline struct {
	Schema   int          `json:"schema"`
	Kind     string       `json:"kind"` // "baseline"
	Time     time.Time    `json:"time"` // the last run's
	Commit   string       `json:"commit"`
	Dirty    bool         `json:"dirty"`
	Machine  Machine      `json:"machine"`
	Settings Settings     `json:"settings"`
	Spread   Spread       `json:"spread"`
	Runs     []RunRef     `json:"runs"`
	Figures  []BaseFigure `json:"figures"`
}

// Spread is the rule a baseline's allowed changes were made with: the
// runs' relative spread ((max-min)/mean) times K, and at least Min.
type Spread struct {
	K   float64 `json:"k"`
	Min float64 `json:"min"`
}

// RunRef names one of the runs a baseline was made from.
type RunRef struct {
	Time   time.Time `json:"time"`
	Commit string    `json:"commit"`
	Dirty  bool      `json:"dirty"`
}

// BaseFigure is one figure of a baseline. Allowed* are relative changes
// (0.12 is 12 %) in the worse direction.
type BaseFigure struct {
	Scenario     string    `json:"scenario"`
	Backend      string    `json:"backend"`
	Metric       string    `json:"metric"`
	Unit         string    `json:"unit"`
	Better       string    `json:"better"`
	MachineFloor bool      `json:"machine_floor,omitempty"`
	Floor        string    `json:"floor"`
	Value        float64   `json:"value"`
	Values       []float64 `json:"values"`
	AllowedValue float64   `json:"allowed_value"`
	// Ratio is null when the figure has no floor (or it was not measured
	// in every run).
	Ratio        *float64  `json:"ratio"`
	Ratios       []float64 `json:"ratios"`
	AllowedRatio *float64  `json:"allowed_ratio"`
}

func (f BaseFigure) key() string { return f.Scenario + " · " + f.Backend + " · " + f.Metric }

// makeBaseline folds runs made with the same settings into a baseline.
// A figure's allowed change is max(k × spread, min), its spread the
// relative difference between the runs; a figure measured in one run only
// gets min.
func makeBaseline(runs []Report, sp Spread) (Baseline, error) {
	if len(runs) == 0 {
		return Baseline{}, errors.New("no runs")
	}
	last := runs[len(runs)-1]
	for _, r := range runs[:len(runs)-1] {
		if !slices.Equal(r.Settings.Run, last.Settings.Run) || r.Settings.Duration != last.Settings.Duration || r.Settings.PG != last.Settings.PG {
			return Baseline{}, fmt.Errorf("the runs were made with different settings (%v, -d %s, -pg=%v and %v, -d %s, -pg=%v)",
				r.Settings.Run, r.Settings.Duration, r.Settings.PG, last.Settings.Run, last.Settings.Duration, last.Settings.PG)
		}
	}
	b := Baseline{Schema: reportSchema, Kind: "baseline", Time: last.Time, Commit: last.Commit, Dirty: last.Dirty,
		Machine: last.Machine, Settings: last.Settings, Spread: sp, Figures: []BaseFigure{}}
	byKey := map[string]int{}
	for _, r := range runs {
		b.Runs = append(b.Runs, RunRef{Time: r.Time, Commit: r.Commit, Dirty: r.Dirty})
		inRun := map[string]bool{}
		for _, f := range r.Figures {
			if inRun[f.key()] { // measured twice in one run: the first counts, as in compare
				continue
			}
			inRun[f.key()] = true
			i, ok := byKey[f.key()]
			if !ok {
				i = len(b.Figures)
				byKey[f.key()] = i
				b.Figures = append(b.Figures, BaseFigure{Scenario: f.Scenario, Backend: f.Backend, Metric: f.Metric,
					Unit: f.Unit, Better: f.Better, MachineFloor: f.MachineFloor, Floor: f.Floor})
			}
			bf := &b.Figures[i]
			bf.Values = append(bf.Values, f.Value)
			if f.Ratio != nil {
				bf.Ratios = append(bf.Ratios, *f.Ratio)
			}
		}
	}
	for i := range b.Figures {
		bf := &b.Figures[i]
		bf.Value, bf.AllowedValue = mean(bf.Values), allowed(bf.Values, sp)
		if len(bf.Ratios) == len(bf.Values) {
			r, a := mean(bf.Ratios), allowed(bf.Ratios, sp)
			bf.Ratio, bf.AllowedRatio = &r, &a
		} else {
			bf.Ratios = nil
		}
	}
	return b, nil
}

func mean(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// allowed is max(k × (max-min)/mean, min), rounded up to a whole percent.
func allowed(vs []float64, sp Spread) float64 {
	a := sp.Min
	if m := mean(vs); len(vs) > 1 && m > 0 {
		a = max(a, sp.K*(slices.Max(vs)-slices.Min(vs))/m)
	}
	return math.Ceil(a*100-1e-9) / 100
}

// readBaseline reads a baseline written by `hostgate-bench baseline`.
func readBaseline(name string) (Baseline, error) {
	var b Baseline
	if err := readJSON(name, &b); err != nil {
		return b, err
	}
	if b.Schema != reportSchema || b.Kind != "baseline" {
		return b, fmt.Errorf("%s: not a baseline of hostgate-bench (schema %d, kind %q)", name, b.Schema, b.Kind)
	}
	return b, nil
}

// baselineCmd is `hostgate-bench baseline [-k K] [-min M] [-accept-failed] [-o FILE] RUN...`.
func baselineCmd(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("hostgate-bench baseline", flag.ContinueOnError)
	k := fs.Float64("k", 2, "allowed change = max(k × the runs' relative spread, min)")
	minimum := fs.Float64("min", 0.10, "the smallest allowed relative change (0.10 is 10 %)")
	o := fs.String("o", "", "write the baseline to this file instead of standard output")
	acceptFailed := fs.Bool("accept-failed", false, "accept runs in which a scenario failed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("usage: hostgate-bench baseline [-k 2] [-min 0.1] [-accept-failed] [-o bench/baseline.json] RUN1 RUN2 (files written by -json)")
	}
	if *k < 0 || *minimum < 0 {
		return errors.New("-k and -min must not be negative")
	}
	var runs []Report
	for _, name := range fs.Args() {
		r, err := readReport(name)
		if err != nil {
			return err
		}
		if len(r.Failed) > 0 && !*acceptFailed {
			return fmt.Errorf("%s: scenarios failed (%s); rerun, or -accept-failed", name, strings.Join(r.Failed, "; "))
		}
		runs = append(runs, r)
	}
	b, err := makeBaseline(runs, Spread{K: *k, Min: *minimum})
	if err != nil {
		return err
	}
	if *o != "" {
		return writeJSON(*o, b)
	}
	return writeJSONTo(out, b)
}
