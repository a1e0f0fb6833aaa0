package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	hostgate "hostgate/sdk/go"
)

const jobsUsage = "hostgate-cli jobs run|list|show|wait|cancel|retry|results|output ..."

// jobs dispatches the jobs subcommands.
func (a *app) jobs(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("jobs: missing subcommand", jobsUsage)
	}
	sub := map[string]func(context.Context, []string) error{
		"run":     a.jobsRun,
		"list":    a.jobsList,
		"show":    a.jobsShow,
		"wait":    a.jobsWait,
		"cancel":  a.jobsCancel,
		"retry":   a.jobsRetry,
		"results": a.jobsResults,
		"output":  a.jobsOutput,
	}[args[0]]
	if sub == nil {
		return usageErr(fmt.Sprintf("jobs: unknown subcommand %q", args[0]), jobsUsage)
	}
	return sub(ctx, args[1:])
}

// followFlags are --follow and --interval.
type followFlags struct {
	follow   *bool
	interval *time.Duration
}

func addFollowFlags(c command, follow bool) followFlags {
	f := followFlags{interval: c.fs.Duration("interval", time.Second, "")}
	if follow {
		f.follow = c.fs.Bool("follow", false, "")
	}
	return f
}

func (f followFlags) check(c command) error {
	if *f.interval <= 0 {
		return usageErr(c.fs.Name()+": --interval must be positive", c.usage)
	}
	return nil
}

func (a *app) jobsRun(ctx context.Context, args []string) error {
	c := newCommand("jobs run", "hostgate-cli jobs run "+jobFlagsUsage+" [--dry-run] [--follow [--interval D]]")
	jf := addJobFlags(c.fs)
	dry := c.fs.Bool("dry-run", false, "")
	ff := addFollowFlags(c, true)
	if err := c.fs.Parse(args); err != nil {
		return c.flagErr(err)
	}
	if err := ff.check(c); err != nil {
		return err
	}
	req, err := jf.request(ctx, a, c, c.fs.Args())
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	if *dry {
		d, err := a.client.DryRunJob(cctx, req)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(d)
		}
		return a.dryRunDetails(d)
	}
	j, err := a.client.CreateJob(cctx, req)
	if err != nil {
		return err
	}
	return a.afterStart(ctx, j, *ff.follow, *ff.interval)
}

// afterStart prints a job just created, or follows it to its end.
func (a *app) afterStart(ctx context.Context, j hostgate.Job, follow bool, interval time.Duration) error {
	if follow {
		if !a.json {
			fmt.Fprintf(a.stderr, "hostgate-cli: job %s started on %d hosts\n", j.ID, j.HostCount)
		}
		return a.followJob(ctx, j, interval)
	}
	if a.json {
		return a.printJSON(j)
	}
	return a.jobDetails(j)
}

// followJob polls the job and shows its counts until it is final, then
// prints every host's result; the exit status says whether every host
// succeeded (exitJobIncomplete otherwise).
func (a *app) followJob(ctx context.Context, j hostgate.Job, interval time.Duration) error {
	live := !a.json && a.stderrIsTerminal()
	last := ""
	show := func(j hostgate.Job) {
		if a.json {
			return
		}
		line := countLine(j)
		switch {
		case live:
			fmt.Fprintf(a.stderr, "\r\x1b[K%s", line)
		case line != last:
			fmt.Fprintln(a.stderr, line)
		}
		last = line
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for !j.Final() {
		show(j)
		select {
		case <-ctx.Done():
			if live {
				fmt.Fprintln(a.stderr)
			}
			fmt.Fprintf(a.stderr, "hostgate-cli: job %s goes on; hostgate-cli jobs show %s (or jobs cancel)\n", j.ID, j.ID)
			return ctx.Err()
		case <-t.C:
		}
		cctx, cancel := a.callCtx(ctx, 0)
		next, err := a.client.GetJob(cctx, j.ID)
		cancel()
		if ctx.Err() != nil {
			continue
		}
		if _, ok := errors.AsType[*hostgate.Error](err); ok {
			return err
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "hostgate-cli: %v (retrying)\n", err)
			continue
		}
		j = next
	}
	show(j)
	if live {
		fmt.Fprintln(a.stderr)
	}
	results, err := a.allResults(ctx, j.ID, "")
	if err != nil {
		return err
	}
	if a.json {
		err = a.printJSON(struct {
			Job     hostgate.Job         `json:"job"`
			Results []hostgate.JobResult `json:"results"`
		}{j, results})
	} else {
		err = a.resultTable(results)
	}
	if err != nil {
		return err
	}
	if !j.Succeeded() {
		if !a.json {
			fmt.Fprintf(a.stderr, "hostgate-cli: %d of %d hosts succeeded%s\n", j.Totals.Succeeded, j.HostCount, stopText(j))
		}
		return exitStatus(exitJobIncomplete)
	}
	return nil
}

func stopText(j hostgate.Job) string {
	if j.StopReason != "" {
		return "; the job stopped: " + j.StopReason
	}
	return ""
}

// countLine is the job's progress in one line.
func countLine(j hostgate.Job) string {
	t := j.Totals
	done := t.Succeeded + t.Failed + t.Skipped + t.Expired + t.Canceled
	return fmt.Sprintf("%s %d/%d done: %d succeeded, %d failed, %d skipped, %d expired, %d canceled; %d running, %d queued",
		j.State, done, j.HostCount, t.Succeeded, t.Failed, t.Skipped, t.Expired, t.Canceled, t.Running, t.Queued)
}

// allResults reads every result of a job, page by page, each page a call
// bounded by --timeout.
func (a *app) allResults(ctx context.Context, jobID, state string) ([]hostgate.JobResult, error) {
	out := []hostgate.JobResult{}
	for {
		cctx, cancel := a.callCtx(ctx, 0)
		p, err := a.client.ListJobResults(cctx, jobID, state, 200, len(out))
		cancel()
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if len(p.Items) == 0 || len(out) >= p.Total {
			return out, nil
		}
	}
}

func (a *app) jobsList(ctx context.Context, args []string) error {
	c := newCommand("jobs list", "hostgate-cli jobs list [--state running|finished|canceled] [--limit N] [--offset N]")
	state := c.fs.String("state", "", "")
	limit := c.fs.Int("limit", 0, "")
	offset := c.fs.Int("offset", 0, "")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if *limit < 0 || *limit > 200 || *offset < 0 {
		return usageErr("jobs list: --limit must be 1-200 (0: the hub's default, 50), --offset not negative", c.usage)
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	p, err := a.client.ListJobs(cctx, *state, *limit, *offset)
	if err != nil {
		return err
	}
	if p.Items == nil {
		p.Items = []hostgate.Job{}
	}
	if a.json {
		return a.printJSON(p)
	}
	t := newTable(a.stdout)
	row(t, "ID", "NAME", "STATE", "HOSTS", "SUCCEEDED", "FAILED", "OTHER", "CREATED")
	for _, j := range p.Items {
		other := j.HostCount - j.Totals.Succeeded - j.Totals.Failed
		row(t, j.ID, dash(j.Name), j.State, strconv.Itoa(j.HostCount), strconv.Itoa(j.Totals.Succeeded), strconv.Itoa(j.Totals.Failed),
			strconv.Itoa(other), stamp(j.CreatedAt))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if p.Total > p.Offset+len(p.Items) {
		fmt.Fprintf(a.stderr, "hostgate-cli: %d of %d jobs shown; --offset %d for more\n", len(p.Items), p.Total, p.Offset+len(p.Items))
	}
	return nil
}

// oneJob parses "jobs X JOB" and returns the job id.
func oneJob(c command, args []string) (string, error) {
	pos, err := c.parse(args, 1)
	if err != nil {
		return "", err
	}
	return pos[0], nil
}

func (a *app) jobsShow(ctx context.Context, args []string) error {
	id, err := oneJob(newCommand("jobs show", "hostgate-cli jobs show JOB"), args)
	if err != nil {
		return err
	}
	return a.showJob(ctx, id, a.client.GetJob)
}

// showJob prints the job that call answers for id, as JSON or details.
func (a *app) showJob(ctx context.Context, id string, call func(context.Context, string) (hostgate.Job, error)) error {
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	j, err := call(cctx, id)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(j)
	}
	return a.jobDetails(j)
}

func (a *app) jobsWait(ctx context.Context, args []string) error {
	c := newCommand("jobs wait", "hostgate-cli jobs wait JOB [--interval D]")
	ff := addFollowFlags(c, false)
	id, err := oneJob(c, args)
	if err != nil {
		return err
	}
	if err := ff.check(c); err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	j, err := a.client.GetJob(cctx, id)
	cancel()
	if err != nil {
		return err
	}
	return a.followJob(ctx, j, *ff.interval)
}

func (a *app) jobsCancel(ctx context.Context, args []string) error {
	id, err := oneJob(newCommand("jobs cancel", "hostgate-cli jobs cancel JOB"), args)
	if err != nil {
		return err
	}
	return a.showJob(ctx, id, a.client.CancelJob)
}

func (a *app) jobsRetry(ctx context.Context, args []string) error {
	c := newCommand("jobs retry", "hostgate-cli jobs retry JOB [--state failed|skipped|expired|canceled ...] [--follow [--interval D]]")
	var states listFlag
	c.fs.Var(&states, "state", "")
	ff := addFollowFlags(c, true)
	id, err := oneJob(c, args)
	if err != nil {
		return err
	}
	if err := ff.check(c); err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	j, err := a.client.RetryJob(cctx, id, states)
	if err != nil {
		return err
	}
	return a.afterStart(ctx, j, *ff.follow, *ff.interval)
}

func (a *app) jobsResults(ctx context.Context, args []string) error {
	c := newCommand("jobs results", "hostgate-cli jobs results JOB [--state S]")
	state := c.fs.String("state", "", "")
	id, err := oneJob(c, args)
	if err != nil {
		return err
	}
	results, err := a.allResults(ctx, id, *state)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(results)
	}
	return a.resultTable(results)
}

// jobsOutput writes one host's whole output of a job: stdout to stdout,
// stderr to stderr (the agent's result, for an operation other than a
// process).
func (a *app) jobsOutput(ctx context.Context, args []string) error {
	c := newCommand("jobs output", "hostgate-cli jobs output JOB HOST")
	pos, err := c.parse(args, 2)
	if err != nil {
		return err
	}
	host, _, err := a.resolveHost(ctx, pos[1])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	o, err := a.client.JobOutput(cctx, pos[0], host)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(o)
	}
	io.WriteString(a.stdout, o.Stdout)
	io.WriteString(a.stderr, o.Stderr)
	if o.ExitCode == nil && len(o.Result) > 0 && string(o.Result) != "null" {
		fmt.Fprintf(a.stdout, "%s\n", o.Result)
	}
	return nil
}

// jobDetails writes a job as "field value" lines.
func (a *app) jobDetails(j hostgate.Job) error {
	t := newTable(a.stdout)
	target := ""
	switch {
	case len(j.Target.Tags) > 0:
		target = "tags " + strings.Join(j.Target.Tags, " ")
	case j.Target.FilterID != "":
		target = "filter " + j.Target.FilterID
	default:
		target = fmt.Sprintf("%d host ids", len(j.Target.HostIDs))
	}
	op := fmt.Sprintf("controls %d %s %s", j.Operation.Controls, j.Operation.Path, j.Operation.Data)
	waves := "-"
	if j.Waves != nil {
		waves = fmt.Sprintf("size %d, pause %ds", j.Waves.Size, j.Waves.PauseS)
		if j.Waves.StopIfFailedPct != nil {
			waves += fmt.Sprintf(", stop if > %d%% failed", *j.Waves.StopIfFailedPct)
		}
		waves += fmt.Sprintf(" (now wave %d)", j.Wave)
	}
	for _, f := range [][2]string{
		{"id", j.ID}, {"name", dash(j.Name)}, {"state", j.State}, {"hosts", strconv.Itoa(j.HostCount)},
		{"progress", countLine(j)}, {"stop_reason", dash(j.StopReason)}, {"target", target}, {"operation", strings.TrimSpace(op)},
		{"offline", j.Offline}, {"concurrency", strconv.Itoa(j.Concurrency)}, {"waves", waves},
		{"expires_at", stamp(j.ExpiresAt)}, {"notify_url", dash(j.NotifyURL)}, {"retry_of", ptrOrDash(j.RetryOf)},
		{"schedule_id", ptrOrDash(j.ScheduleID)}, {"charged", strconv.FormatFloat(j.Charged, 'f', -1, 64)},
		{"created_at", stamp(j.CreatedAt)}, {"finished_at", timeOrDash(j.FinishedAt)},
	} {
		row(t, f[0]+":", f[1])
	}
	return t.Flush()
}

func (a *app) dryRunDetails(d hostgate.JobDryRun) error {
	fmt.Fprintf(a.stdout, "%d hosts; it can cost at most %s tokens\n", d.HostCount, strconv.FormatFloat(d.MaxCost, 'f', -1, 64))
	for _, id := range d.HostIDs {
		fmt.Fprintln(a.stdout, id)
	}
	if d.HostIDsTruncated {
		fmt.Fprintf(a.stderr, "hostgate-cli: %d of %d host ids shown\n", len(d.HostIDs), d.HostCount)
	}
	return nil
}

// resultTable writes one row per host; OUTPUT is the first line of its
// stdout (of its stderr when stdout is empty).
func (a *app) resultTable(results []hostgate.JobResult) error {
	t := newTable(a.stdout)
	row(t, "HOST", "NAME", "STATE", "EXIT", "ERROR", "OUTPUT")
	for _, r := range results {
		exit := "-"
		if r.ExitCode != nil {
			exit = strconv.Itoa(*r.ExitCode)
		}
		out := r.Stdout
		if strings.TrimSpace(out) == "" {
			out = r.Stderr
		}
		out, _, _ = strings.Cut(strings.TrimSpace(out), "\n")
		if rs := []rune(out); len(rs) > 60 {
			out = string(rs[:57]) + "..."
		}
		row(t, r.HostID, dash(r.HostName), r.State, exit, dash(r.Error), dash(strings.ReplaceAll(out, "\t", " ")))
	}
	return t.Flush()
}

func ptrOrDash(s *string) string {
	if s == nil {
		return "-"
	}
	return dash(*s)
}
