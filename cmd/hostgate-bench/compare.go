package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// verdicts of a compared figure.
const (
	verdictWorse   = "worse"   // worse by more than allowed: the comparison fails
	verdictMachine = "machine" // a machine floor worse by more than allowed: reported, not failing
	verdictBetter  = "better"  // better by more than allowed
	verdictSame    = "same"    // within the spread
	verdictUngated = "ungated" // no direction, or a baseline of 0: shown, never judged
)

// Line is one figure compared with its baseline: by value, and by its
// ratio to its floor when both the baseline and the run have one.
type Line struct {
	Key, Unit, Better string
	Value             Delta
	Ratio             *Delta // nil: compared by value only
	Verdict           string
}

// Delta is one quantity compared. Change is (Now - Base) / Base; Allowed
// is the relative change allowed in the worse direction.
type Delta struct {
	Base, Now, Change, Allowed float64
}

// Comparison is a run compared with a baseline.
type Comparison struct {
	Baseline Baseline
	Lines    []Line
	Missing  []string // in the baseline, not in the run
	New      []string // in the run, not in the baseline
	Notes    []string
}

// compare judges every figure of run that the baseline has. A figure
// without a floor is judged by its value. A figure with a floor is worse
// only when its value and its ratio to the floor (measured in the same
// run) both got worse by more than their spreads: a slower hostgate moves
// both, while a busy machine moves the value, and a noisy floor the
// ratio, alone.
func compare(base Baseline, run Report) Comparison {
	c := Comparison{Baseline: base, Notes: settingsNotes(base, run)}
	now := map[string]Figure{}
	for _, f := range run.Figures {
		if _, dup := now[f.key()]; dup {
			c.Notes = append(c.Notes, "figure measured twice in the run, the first compared: "+f.key())
			continue
		}
		now[f.key()] = f
	}
	seen := map[string]bool{}
	for _, bf := range base.Figures {
		k := bf.key()
		seen[k] = true
		f, ok := now[k]
		if !ok {
			c.Missing = append(c.Missing, k)
			continue
		}
		c.Lines = append(c.Lines, judge(bf, f))
	}
	for _, f := range run.Figures {
		if !seen[f.key()] {
			seen[f.key()] = true
			c.New = append(c.New, f.key())
		}
	}
	return c
}

func judge(bf BaseFigure, f Figure) Line {
	l := Line{Key: bf.key(), Unit: bf.Unit, Better: bf.Better,
		Value: Delta{Base: bf.Value, Now: f.Value, Allowed: bf.AllowedValue}}
	if l.Better == "" {
		l.Better = f.Better
	}
	if bf.Ratio != nil && f.Ratio != nil && bf.AllowedRatio != nil {
		l.Ratio = &Delta{Base: *bf.Ratio, Now: *f.Ratio, Allowed: *bf.AllowedRatio}
	}
	if l.Better != "lower" && l.Better != "higher" {
		l.Verdict = verdictUngated
		return l
	}
	v := l.Value.judge(l.Better)
	if l.Ratio != nil {
		if r := l.Ratio.judge(l.Better); r != v {
			v = verdictSame // the two disagree: noise on one side
		}
	}
	if v == verdictWorse && bf.MachineFloor {
		v = verdictMachine
	}
	l.Verdict = v
	return l
}

// judge sets d.Change and says whether it is worse or better than
// allowed, or within it; a base of 0 or less is not judged.
func (d *Delta) judge(better string) string {
	if d.Base <= 0 {
		return verdictUngated
	}
	d.Change = (d.Now - d.Base) / d.Base
	worseBy := d.Change
	if better == "higher" {
		worseBy = -worseBy
	}
	// A hair of tolerance, so a change of exactly the allowed percentage
	// passes whatever the floating point makes of it.
	const eps = 1e-9
	switch {
	case worseBy > d.Allowed+eps:
		return verdictWorse
	case -worseBy > d.Allowed+eps:
		return verdictBetter
	}
	return verdictSame
}

// settingsNotes says where the run was made differently from the
// baseline: its figures are then less comparable.
func settingsNotes(base Baseline, run Report) []string {
	var n []string
	bs, rs := base.Settings, run.Settings
	if bs.Duration != rs.Duration {
		n = append(n, fmt.Sprintf("measured runs of %s, the baseline's of %s", rs.Duration, bs.Duration))
	}
	if bs.PG != rs.PG {
		n = append(n, fmt.Sprintf("-pg=%v, the baseline -pg=%v", rs.PG, bs.PG))
	}
	if !slices.Equal(bs.Fleet, rs.Fleet) || bs.ScaleAgents != rs.ScaleAgents || bs.ScaleHubs != rs.ScaleHubs ||
		bs.ScaleJobConcurrency != rs.ScaleJobConcurrency {
		n = append(n, "fleet or scale settings differ from the baseline's")
	}
	bm, rm := base.Machine, run.Machine
	if bm.CPUs != rm.CPUs || bm.MemoryBytes != rm.MemoryBytes || bm.OS != rm.OS || bm.Arch != rm.Arch {
		n = append(n, fmt.Sprintf("another machine kind: %d CPUs, %s, %s/%s; the baseline's %d CPUs, %s, %s/%s",
			rm.CPUs, gib(rm.MemoryBytes), rm.OS, rm.Arch, bm.CPUs, gib(bm.MemoryBytes), bm.OS, bm.Arch))
	}
	if bm.Go != rm.Go {
		n = append(n, fmt.Sprintf("Go %s, the baseline's %s", rm.Go, bm.Go))
	}
	for _, f := range run.Failed {
		n = append(n, "scenario failed in this run: "+f)
	}
	return n
}

func gib(n int64) string { return fmt.Sprintf("%.0f GiB", float64(n)/(1<<30)) }

// worse is the number of figures that fail the comparison.
func (c Comparison) worse() int {
	n := 0
	for _, l := range c.Lines {
		if l.Verdict == verdictWorse {
			n++
		}
	}
	return n
}

// err is non-nil when a figure got worse by more than its spread.
func (c Comparison) err() error {
	if n := c.worse(); n > 0 {
		return fmt.Errorf("%d figure(s) worse than the baseline by more than the run-to-run spread", n)
	}
	return nil
}

// write prints the comparison in Markdown: a summary, then the figures
// worse than allowed, the machine floors that got worse, the figures
// better than allowed (with all, every figure), the figures missing on
// either side (without all, only their number when there are many), and
// the notes.
func (c Comparison) write(w io.Writer, all bool) {
	count := map[string]int{}
	for _, l := range c.Lines {
		count[l.Verdict]++
	}
	b := c.Baseline
	fmt.Fprintf(w, "%d figures compared with the baseline of %s (commit %s, -d %s): %d worse, %d better, %d within their spread, %d machine floors worse, %d not judged; %d not in this run, %d new.\n",
		len(c.Lines), b.Time.UTC().Format("2006-01-02 15:04 UTC"), orNone(b.Commit), b.Settings.Duration,
		count[verdictWorse], count[verdictBetter], count[verdictSame], count[verdictMachine], count[verdictUngated],
		len(c.Missing), len(c.New))
	if n := count[verdictMachine]; n > 0 {
		fmt.Fprintf(w, "\n**%d machine floor(s) worse than at the baseline: the machine was busier. Rerun on a quiet machine before reading a worse figure as a slower hostgate.**\n", n)
	}
	sections := []struct {
		title    string
		verdicts []string
	}{
		{"Worse than the baseline by more than the run-to-run spread (this fails the run)", []string{verdictWorse}},
		{"Machine floors worse than the baseline (not failing: they measure the machine, which was busier)", []string{verdictMachine}},
		{"Better than the baseline by more than the spread (refresh the baseline once accepted: make bench-baseline)", []string{verdictBetter}},
	}
	if all {
		sections = append(sections, struct {
			title    string
			verdicts []string
		}{"Within the spread, or not judged", []string{verdictSame, verdictUngated}})
	}
	for _, s := range sections {
		var ls []Line
		for _, l := range c.Lines {
			if slices.Contains(s.verdicts, l.Verdict) {
				ls = append(ls, l)
			}
		}
		if len(ls) > 0 {
			fmt.Fprintf(w, "\n%s:\n\n", s.title)
			writeLines(w, ls)
		}
	}
	writeList(w, "In the baseline, not in this run (not failing)", grouped(c.Missing), all)
	writeList(w, "New in this run, not in the baseline (not failing)", grouped(c.New), all)
	writeList(w, "Notes", c.Notes, true)
}

// writeLines prints a table of lines; a figure with a floor shows its
// ratio beside its value.
func writeLines(w io.Writer, ls []Line) {
	fmt.Fprintln(w, "| figure | baseline | now | change | allowed |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, l := range ls {
		base, now := format(l.Value.Base)+" "+l.Unit, format(l.Value.Now)+" "+l.Unit
		sign := "+"
		if l.Better == "higher" {
			sign = "-"
		}
		pct := func(d Delta) (string, string) {
			if l.Verdict == verdictUngated || d.Base <= 0 {
				return "", ""
			}
			return fmt.Sprintf("%+.0f%%", d.Change*100), fmt.Sprintf("%s%.0f%%", sign, d.Allowed*100)
		}
		change, allowed := pct(l.Value)
		if r := l.Ratio; r != nil {
			base += fmt.Sprintf(", %.2f×", r.Base)
			now += fmt.Sprintf(", %.2f×", r.Now)
			rc, ra := pct(*r)
			change, allowed = change+", ratio "+rc, allowed+", ratio "+ra
		}
		if allowed != "" {
			allowed += " (" + l.Better + " is better)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", l.Key, base, now, change, allowed)
	}
}

// grouped shortens a list of figure names to a line per scenario and
// backend: "scenario · backend: metric, metric".
func grouped(keys []string) []string {
	var heads []string
	metrics := map[string][]string{}
	for _, k := range keys {
		head, metric := k, ""
		if i := strings.LastIndex(k, " · "); i >= 0 {
			head, metric = k[:i], k[i+len(" · "):]
		}
		if _, ok := metrics[head]; !ok {
			heads = append(heads, head)
			metrics[head] = nil
		}
		if metric != "" {
			metrics[head] = append(metrics[head], metric)
		}
	}
	out := make([]string, len(heads))
	for i, h := range heads {
		out[i] = strings.TrimSpace(h + ": " + strings.Join(metrics[h], ", "))
	}
	return out
}

// maxList is how many lines of a list are printed without -all.
const maxList = 10

func writeList(w io.Writer, title string, items []string, all bool) {
	if len(items) == 0 {
		return
	}
	if !all && len(items) > maxList {
		fmt.Fprintf(w, "\n%s: %d scenarios and backends (compare -all lists them).\n", title, len(items))
		return
	}
	fmt.Fprintf(w, "\n%s:\n\n", title)
	for _, s := range items {
		fmt.Fprintln(w, "- "+s)
	}
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// compareCmd is `hostgate-bench compare [-all] BASELINE RUN`.
func compareCmd(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("hostgate-bench compare", flag.ContinueOnError)
	all := fs.Bool("all", false, "also list the figures within their spread")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("usage: hostgate-bench compare [-all] BASELINE RUN (bench/baseline.json build/bench.json)")
	}
	base, err := readBaseline(fs.Arg(0))
	if err != nil {
		return err
	}
	run, err := readReport(fs.Arg(1))
	if err != nil {
		return err
	}
	c := compare(base, run)
	c.write(out, *all)
	return c.err()
}
