// Package soak judges a long run's resource samples: whether a hub's
// memory, goroutines, open files or connections grew while the load
// stayed the same (docs/reliability.md, "The soak"), and draws them.
//
// The judgement leaves out a warm-up and then asks two questions of what
// is left, each against the growth the metric allows (an absolute amount
// or a share of the early level, whichever is larger):
//   - does the median of its last third sit above the median of its first
//     third by more than that? A leak climbs, so its last third sits above
//     its first by about two thirds of what it gained; a cache filling up
//     and a pool at its working size level off during the warm-up, and
//     noise cancels in the medians;
//   - has it climbed by at least half that, and does the least-squares
//     slope of its last half still gain more than that in an hour? A run
//     of half an hour shows only half an hour of a slow leak, which the
//     medians alone would let through; a leak still climbs at the end,
//     while a cache that took long to fill has levelled off by then. The
//     slope of a short window is noisy, hence the climb it must confirm.
package soak

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Sample is what was read at one moment: At from the start of the run,
// and a value per metric name (a metric missing from a sample was not
// read then).
type Sample struct {
	At     time.Duration      `json:"at_ns"`
	Values map[string]float64 `json:"values"`
}

// Metric is one series to judge and draw.
type Metric struct {
	Name  string `json:"name"`  // key in Sample.Values
	Title string `json:"title"` // for people: "hub RSS"
	Unit  string `json:"unit"`  // "MiB", "", …
	// Allowed growth from the early level to the late one: the larger of
	// Abs (in Unit) and Rel × the early level.
	Abs, Rel float64
	// Load marks a series drawn for context (how much load there was),
	// never judged to grow.
	Load bool `json:"load,omitempty"`
}

// Finding is the judgement of one metric.
type Finding struct {
	Metric  Metric  `json:"metric"`
	Early   float64 `json:"early"`    // median of the first third of the steady part
	Late    float64 `json:"late"`     // median of its last third
	Peak    float64 `json:"peak"`     // largest value of the steady part
	Growth  float64 `json:"growth"`   // Late - Early
	Allowed float64 `json:"allowed"`  // the growth this metric may show, late over early and in an hour
	PerHour float64 `json:"per_hour"` // least-squares slope over the steady part
	// LatePerHour is the slope over the steady part's last half.
	LatePerHour float64 `json:"late_per_hour"`
	Samples     int     `json:"samples"`
	Grew        bool    `json:"grew"`
}

// ErrTooFew is returned when the steady part holds too few samples to
// judge anything.
var ErrTooFew = errors.New("soak: fewer than 9 samples after the warm-up")

// Judge judges each metric over the samples taken at or after warmup.
func Judge(samples []Sample, metrics []Metric, warmup time.Duration) ([]Finding, error) {
	out := make([]Finding, 0, len(metrics))
	for _, m := range metrics {
		var ts, vs []float64
		for _, s := range samples {
			v, ok := s.Values[m.Name]
			if !ok || s.At < warmup || math.IsNaN(v) {
				continue
			}
			ts, vs = append(ts, s.At.Hours()), append(vs, v)
		}
		if len(vs) < 9 {
			return nil, fmt.Errorf("%w: %s has %d", ErrTooFew, m.Name, len(vs))
		}
		third, half := len(vs)/3, len(vs)/2
		f := Finding{Metric: m, Samples: len(vs), Early: median(vs[:third]), Late: median(vs[len(vs)-third:]),
			Peak: slices.Max(vs), PerHour: slope(ts, vs), LatePerHour: slope(ts[half:], vs[half:])}
		f.Growth = f.Late - f.Early
		f.Allowed = max(m.Abs, m.Rel*math.Abs(f.Early))
		f.Grew = !m.Load && (f.Growth > f.Allowed || (f.Growth > f.Allowed/2 && f.LatePerHour > f.Allowed))
		out = append(out, f)
	}
	return out, nil
}

// Grew reports whether any finding grew.
func Grew(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Grew })
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// slope is the least-squares slope of v over t.
func slope(t, v []float64) float64 {
	var mt, mv float64
	for i := range t {
		mt += t[i]
		mv += v[i]
	}
	n := float64(len(t))
	mt, mv = mt/n, mv/n
	var num, den float64
	for i := range t {
		num += (t[i] - mt) * (v[i] - mv)
		den += (t[i] - mt) * (t[i] - mt)
	}
	if den == 0 {
		return 0
	}
	return num / den
}
