// Command hostgate-bench runs hostgate's load scenarios, each bounded in
// time, on loopback, and prints one table with every figure beside a floor
// measured in the same run (docs/performance.md):
//
//	go run ./cmd/hostgate-bench [-run floor,api,cross,webhook,terminal,hostlist,search,tags,fleet,scale,jobs] [-d 3s] [-pg]
//	    [-run capacity [-capacity-agents 5000]]
//	    [-fleet 1000,5000,19000] [-scale-agents 100000] [-scale-hubs 6] [-scale-job-concurrency 50] [-profile dir]
//	    [-json file] [-baseline file]
//	go run ./cmd/hostgate-bench compare [-all] BASELINE RUN
//	go run ./cmd/hostgate-bench baseline [-k 2] [-min 0.1] [-accept-failed] [-o bench/baseline.json] RUN1 RUN2
//	go run ./cmd/hostgate-bench soak [-d 30m] [-warmup 5m] [-out build/soak] [-pg]
//
// With -json the figures are also written as JSON (report.go); with
// -baseline they are compared with a baseline after the table, and the
// command fails when a figure got worse by more than the baseline's
// run-to-run spread (compare.go; baselines are made in baseline.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "echo-peer" {
		if err := echoPeer(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "echo-peer:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := run
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "compare":
			cmd = func(_ context.Context, args []string, out io.Writer) error { return compareCmd(args[1:], out) }
		case "baseline":
			cmd = func(_ context.Context, args []string, out io.Writer) error { return baselineCmd(args[1:], out) }
		case "soak":
			cmd = func(ctx context.Context, args []string, out io.Writer) error { return soakMain(ctx, args[1:], out) }
		}
	}
	if err := cmd(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hostgate-bench:", err)
		os.Exit(1)
	}
}

// bench is one run's settings and what it has measured.
type bench struct {
	dur   time.Duration
	pg    bool
	fleet []int
	bins  string // directory of the built binaries
	work  string // scratch directory
	rows  []row
	// settings are the flags that shape the figures, for the JSON.
	settings Settings
	// commit and dirty describe the checkout the binaries were built from.
	commit string
	dirty  bool
	floors map[string]float64 // floor name → value, for the ratios
	out    io.Writer
	log    io.Writer // the children's output
	// logName is the log's file, for error messages.
	logName string
	// scaleAgents simulated agents on scaleHubs instances: the scale-out scenario.
	scaleAgents, scaleHubs int
	// scaleJobConcurrency is the concurrency of the scale-out scenario's job.
	scaleJobConcurrency int
	// capacityAgents is the fleet of the capacity scenario.
	capacityAgents int
	// profile, when set, is a directory for CPU profiles of the hub taken
	// during the client API scenarios.
	profile string
}

// row is one line of the table.
type row struct {
	scenario, backend, metric string
	value                     float64
	unit                      string
	floor                     string // floor name, "" for none
	better                    string // "lower" or "higher": how to read the ratio
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("hostgate-bench", flag.ContinueOnError)
	scenarios := fs.String("run", "floor,api,cross,webhook,terminal,hostlist,search,tags,fleet,scale,jobs",
		"scenarios: floor, api, cross (needs -pg), webhook, terminal, hostlist, search, tags, fleet, scale (needs -pg), jobs; capacity (needs -pg) only when named")
	dur := fs.Duration("d", 3*time.Second, "length of each measured run")
	pg := fs.Bool("pg", pgReachable(), "also run on PostgreSQL + Redis (127.0.0.1:5432, 127.0.0.1:6379)")
	fleetSizes := fs.String("fleet", "1000,5000,19000", "idle fleet sizes on one hub (up to 19000 on this machine); the hub restarts under the last")
	scaleAgents := fs.Int("scale-agents", 100000, "agents of the scale-out scenario")
	scaleHubs := fs.Int("scale-hubs", 6, "hub instances of the scale-out scenario")
	scaleJobConc := fs.Int("scale-job-concurrency", 50, "concurrency of the scale-out scenario's job over the whole fleet (1..1000)")
	capacityAgents := fs.Int("capacity-agents", 5000, "agents of the capacity scenario (-run capacity, needs -pg; not run by default)")
	profile := fs.String("profile", "", "directory for hub CPU profiles taken during the client API scenarios")
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file")
	baseline := fs.String("baseline", "", "after the run, compare its figures with this baseline (bench/baseline.json) and fail if any got worse")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (subcommands: compare, baseline)", fs.Arg(0))
	}
	var base Baseline
	if *baseline != "" { // read first: a wrong path fails before the run, not after it
		var err error
		if base, err = readBaseline(*baseline); err != nil {
			return err
		}
	}
	b := &bench{dur: *dur, pg: *pg, floors: map[string]float64{}, out: out, profile: *profile,
		scaleAgents: *scaleAgents, scaleHubs: *scaleHubs, scaleJobConcurrency: *scaleJobConc, capacityAgents: *capacityAgents}
	for _, s := range strings.Split(*fleetSizes, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			b.fleet = append(b.fleet, n)
		}
	}
	want := strings.Split(*scenarios, ",")
	b.settings = Settings{Run: want, Duration: b.dur.String(), PG: b.pg, Fleet: b.fleet,
		ScaleAgents: b.scaleAgents, ScaleHubs: b.scaleHubs, ScaleJobConcurrency: b.scaleJobConcurrency}
	var err error
	if b.work, err = os.MkdirTemp("", "hostgate-bench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.work)
	logFile, err := os.CreateTemp("", "hostgate-bench-*.log")
	if err != nil {
		return err
	}
	defer logFile.Close()
	b.log, b.logName = logFile, logFile.Name()
	fmt.Fprintln(os.Stderr, "hub and agent output:", logFile.Name())
	b.bins = filepath.Join(b.work, "bin")
	fmt.Fprintln(os.Stderr, "building binaries…")
	b.commit, b.dirty = gitCommit()
	build := exec.CommandContext(ctx, "go", "build", "-o", b.bins+"/", "./cmd/hostgate", "./cmd/hostgate-agent", "./cmd/hostgate-fleet")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w (run from the repository root)", err)
	}
	steps := []struct {
		name string
		f    func(context.Context) error
	}{
		{"floor", b.floorScenarios}, {"api", b.apiScenarios}, {"cross", b.crossScenario},
		{"webhook", b.webhookScenario}, {"terminal", b.terminalScenario}, {"hostlist", b.hostListScenario},
		{"search", b.searchScenario}, {"tags", b.tagsScenario}, {"fleet", b.fleetScenarios}, {"scale", b.scaleOutScenario}, {"jobs", b.jobsScenario},
		{"capacity", b.capacityScenario},
	}
	// A failed scenario does not cost the others' figures: the table is
	// printed with what was measured, and the failures after it.
	var failed []error
	for _, s := range steps {
		if !slices.Contains(want, s.name) || ctx.Err() != nil {
			continue
		}
		fmt.Fprintf(os.Stderr, "scenario %s…\n", s.name)
		if err := s.f(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "  %s failed: %v\n", s.name, err)
			failed = append(failed, fmt.Errorf("%s: %w", s.name, err))
		}
	}
	b.print()
	rep := b.report(time.Now(), failed)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			failed = append(failed, fmt.Errorf("json: %w", err))
		} else {
			fmt.Fprintln(os.Stderr, "figures written to", *jsonOut)
		}
	}
	if *baseline != "" {
		fmt.Fprintf(b.out, "\nAgainst the baseline %s:\n\n", *baseline)
		c := compare(base, rep)
		c.write(b.out, false)
		if err := c.err(); err != nil {
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	fmt.Fprintf(os.Stderr, "  %s %s %s: %.3g %s\n", r.scenario, r.backend, r.metric, r.value, r.unit)
}

// print writes the table in Markdown.
func (b *bench) print() {
	host, _ := os.Hostname()
	fmt.Fprintf(b.out, "hostgate-bench, %s, %s, %d CPUs, %s, Go %s; each run %v\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, runtime.NumCPU(), memTotal(), runtime.Version(), b.dur)
	fmt.Fprintln(b.out, "| scenario | backend | metric | value | floor | ratio |")
	fmt.Fprintln(b.out, "|---|---|---|---|---|---|")
	for _, r := range b.rows {
		floor, ratio := "", ""
		if f, ok := b.floors[r.floor]; ok && f > 0 {
			floor = fmt.Sprintf("%s %s", format(f), r.unit)
			ratio = fmt.Sprintf("%.2f×", r.value/f)
		}
		fmt.Fprintf(b.out, "| %s | %s | %s | %s %s | %s | %s |\n", r.scenario, r.backend, r.metric, format(r.value), r.unit, floor, ratio)
	}
}

func format(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func memTotal() string {
	n := memBytes()
	if n == 0 {
		return "memory unknown"
	}
	return fmt.Sprintf("%.0f GiB", float64(n)/(1<<30))
}

// memBytes is the machine's memory (MemTotal), 0 when unknown.
func memBytes() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
