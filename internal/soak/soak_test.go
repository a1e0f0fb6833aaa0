package soak

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"testing"
	"time"
)

// series makes a sample every 10 s for 30 minutes from f(minute).
func series(name string, f func(min float64) float64) []Sample {
	var out []Sample
	for at := time.Duration(0); at <= 30*time.Minute; at += 10 * time.Second {
		out = append(out, Sample{At: at, Values: map[string]float64{name: f(at.Minutes())}})
	}
	return out
}

func TestJudge(t *testing.T) {
	rss := Metric{Name: "rss", Title: "RSS", Unit: "MiB", Abs: 16, Rel: 0.10}
	cases := []struct {
		name string
		f    func(m float64) float64
		grew bool
	}{
		// A warm-up that climbs and then holds: steady.
		{"levels off in the warm-up", func(m float64) float64 { return 100 + 50*math.Min(m, 4)/4 }, false},
		// Noise of ±10 MiB around a level: steady.
		{"noisy level", func(m float64) float64 { return 150 + 10*math.Sin(m*7) }, false},
		// 2 MiB a minute after the warm-up: 50 MiB over 25 minutes.
		{"steady leak", func(m float64) float64 { return 150 + 2*m }, true},
		// 0.6 MiB a minute: the thirds differ by about 10 MiB, within the
		// allowance, but it is 36 MiB an hour.
		{"slow leak the thirds alone miss", func(m float64) float64 { return 150 + 0.6*m }, true},
		// 0.2 MiB a minute: 12 MiB an hour, within the allowance both ways.
		{"creep within the allowance", func(m float64) float64 { return 150 + 0.2*m }, false},
		// A sawtooth (a cache that empties each 5 minutes, swinging 20 MiB)
		// is no leak. (A swing well above the allowance can tilt the slope
		// of a window that ends mid-tooth; such a metric needs a longer run.)
		{"sawtooth", func(m float64) float64 { return 150 + 4*math.Mod(m, 5) }, false},
		// A cache that takes 20 minutes to fill 15 MiB, then holds: the
		// thirds differ by less than the allowance and the end is level.
		{"slow fill that levels off", func(m float64) float64 { return 150 + 15*math.Min(m, 20)/20 }, false},
		// Growth that starts late still shows in the last third.
		{"late leak", func(m float64) float64 { return 150 + 10*math.Max(0, m-20) }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := Judge(series("rss", c.f), []Metric{rss}, 5*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			f := fs[0]
			if f.Grew != c.grew || Grew(fs) != c.grew {
				t.Fatalf("grew = %v, want %v (early %.1f late %.1f allowed %.1f per hour %.1f)", f.Grew, c.grew, f.Early, f.Late, f.Allowed, f.PerHour)
			}
			if f.Samples != 151 {
				t.Fatalf("samples after the warm-up = %d, want 151", f.Samples)
			}
		})
	}
}

func TestJudgeSlopeAndAllowance(t *testing.T) {
	fs, err := Judge(series("g", func(m float64) float64 { return 1000 + m }), []Metric{{Name: "g", Abs: 5, Rel: 0.05}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := fs[0]
	if math.Abs(f.PerHour-60) > 1e-6 {
		t.Fatalf("slope = %v per hour, want 60", f.PerHour)
	}
	if f.Allowed < 50 || f.Allowed > 51 { // 5 % of about 1005
		t.Fatalf("allowed = %v, want 5 %% of the early median", f.Allowed)
	}
	if f.Peak != 1030 {
		t.Fatalf("peak = %v, want 1030", f.Peak)
	}
}

func TestJudgeLoadIsNotJudged(t *testing.T) {
	fs, err := Judge(series("agents", func(m float64) float64 { return 100 * m }), []Metric{{Name: "agents", Load: true}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fs[0].Grew || Grew(fs) {
		t.Fatal("a load series was judged to grow")
	}
	if fs[0].Growth <= 0 {
		t.Fatalf("growth = %v, still measured", fs[0].Growth)
	}
}

func TestJudgeTooFew(t *testing.T) {
	s := series("x", func(float64) float64 { return 1 })
	if _, err := Judge(s, []Metric{{Name: "x"}}, 29*time.Minute); !errors.Is(err, ErrTooFew) {
		t.Fatalf("err = %v, want ErrTooFew", err)
	}
	// A metric never read is too few as well, not a pass.
	if _, err := Judge(s, []Metric{{Name: "missing"}}, 0); !errors.Is(err, ErrTooFew) {
		t.Fatalf("err = %v, want ErrTooFew", err)
	}
}

func TestPlotWritesAPNG(t *testing.T) {
	samples := series("rss", func(m float64) float64 { return 100 + m })
	for i := range samples {
		samples[i].Values["fds"] = 40
	}
	metrics := []Metric{{Name: "rss", Title: "hub RSS", Unit: "MiB", Abs: 16}, {Name: "fds", Title: "open files", Abs: 5}, {Name: "rss", Title: "again", Abs: 1}}
	fs, err := Judge(samples, metrics, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Plot(&buf, "soak test", samples, fs, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 700 {
		t.Fatalf("image %v: want two columns of panels, two rows", b)
	}
}
