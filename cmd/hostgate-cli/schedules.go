package main

import (
	"context"
	"fmt"
	"time"

	hostgate "hostgate/sdk/go"
)

const schedulesUsage = "hostgate-cli schedules list|create|pause|resume|delete|runs ..."

// schedules dispatches the schedules subcommands.
func (a *app) schedules(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("schedules: missing subcommand", schedulesUsage)
	}
	sub := map[string]func(context.Context, []string) error{
		"list":   a.schedulesList,
		"create": a.schedulesCreate,
		"pause":  a.scheduleAction("pause", a.client.PauseSchedule),
		"resume": a.scheduleAction("resume", a.client.ResumeSchedule),
		"delete": a.schedulesDelete,
		"runs":   a.schedulesRuns,
	}[args[0]]
	if sub == nil {
		return usageErr(fmt.Sprintf("schedules: unknown subcommand %q", args[0]), schedulesUsage)
	}
	return sub(ctx, args[1:])
}

func (a *app) schedulesList(ctx context.Context, args []string) error {
	if _, err := newCommand("schedules list", "hostgate-cli schedules list").parse(args, 0); err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	ss, err := a.client.ListSchedules(cctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(ss)
	}
	t := newTable(a.stdout)
	row(t, "ID", "NAME", "WHEN", "PAUSED", "NEXT RUN", "LAST RUN", "LAST JOB")
	for _, s := range ss {
		row(t, s.ID, s.Name, whenText(s), yesNo(s.Paused), timeOrDash(s.NextRunAt), timeOrDash(s.LastRunAt), ptrOrDash(s.LastJobID))
	}
	return t.Flush()
}

// whenText is a schedule's cron line and time zone, or its one time.
func whenText(s hostgate.Schedule) string {
	if s.Cron != nil && *s.Cron != "" {
		return *s.Cron + " (" + dash(s.Timezone) + ")"
	}
	return "at " + timeOrDash(s.At)
}

func (a *app) schedulesCreate(ctx context.Context, args []string) error {
	c := newCommand("schedules create", "hostgate-cli schedules create NAME (--cron EXPR [--timezone TZ] | --at TIME) [--paused] "+jobFlagsUsage)
	jf := addJobFlags(c.fs)
	cron := c.fs.String("cron", "", "")
	tz := c.fs.String("timezone", "", "")
	at := c.fs.String("at", "", "")
	paused := c.fs.Bool("paused", false, "")
	if err := c.fs.Parse(args); err != nil {
		return c.flagErr(err)
	}
	if c.fs.NArg() == 0 {
		return usageErr("schedules create: missing NAME", c.usage)
	}
	name := c.fs.Arg(0)
	if err := c.fs.Parse(c.fs.Args()[1:]); err != nil {
		return c.flagErr(err)
	}
	req := hostgate.ScheduleRequest{Name: name, Cron: *cron, Timezone: *tz, Paused: *paused}
	if (*cron == "") == (*at == "") {
		return usageErr("schedules create: give --cron or --at (one)", c.usage)
	}
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			return usageErr("schedules create: --at is an RFC 3339 time (2026-01-02T03:00:00Z)", c.usage)
		}
		req.At = &t
	}
	job, err := jf.request(ctx, a, c, c.fs.Args())
	if err != nil {
		return err
	}
	req.Job = job
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	s, err := a.client.CreateSchedule(cctx, req)
	if err != nil {
		return err
	}
	return a.printSchedule(s)
}

func (a *app) printSchedule(s hostgate.Schedule) error {
	if a.json {
		return a.printJSON(s)
	}
	t := newTable(a.stdout)
	for _, f := range [][2]string{
		{"id", s.ID}, {"name", s.Name}, {"when", whenText(s)}, {"paused", yesNo(s.Paused)},
		{"next_run_at", timeOrDash(s.NextRunAt)}, {"last_run_at", timeOrDash(s.LastRunAt)}, {"last_job_id", ptrOrDash(s.LastJobID)},
	} {
		row(t, f[0]+":", f[1])
	}
	return t.Flush()
}

// scheduleAction is pause or resume.
func (a *app) scheduleAction(name string, call func(context.Context, string) (hostgate.Schedule, error)) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		pos, err := newCommand("schedules "+name, "hostgate-cli schedules "+name+" SCHEDULE").parse(args, 1)
		if err != nil {
			return err
		}
		cctx, cancel := a.callCtx(ctx, 0)
		defer cancel()
		s, err := call(cctx, pos[0])
		if err != nil {
			return err
		}
		return a.printSchedule(s)
	}
}

func (a *app) schedulesDelete(ctx context.Context, args []string) error {
	pos, err := newCommand("schedules delete", "hostgate-cli schedules delete SCHEDULE").parse(args, 1)
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	if err := a.client.DeleteSchedule(cctx, pos[0]); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"id": pos[0], "deleted": true})
	}
	fmt.Fprintf(a.stdout, "deleted schedule %s\n", pos[0])
	return nil
}

func (a *app) schedulesRuns(ctx context.Context, args []string) error {
	c := newCommand("schedules runs", "hostgate-cli schedules runs SCHEDULE [--limit N] [--offset N]")
	limit := c.fs.Int("limit", 0, "")
	offset := c.fs.Int("offset", 0, "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if *limit < 0 || *limit > 200 || *offset < 0 {
		return usageErr("schedules runs: --limit must be 1-200 (0: the hub's default, 50), --offset not negative", c.usage)
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	p, err := a.client.ScheduleRuns(cctx, pos[0], *limit, *offset)
	if err != nil {
		return err
	}
	if p.Items == nil {
		p.Items = []hostgate.ScheduleRun{}
	}
	if a.json {
		return a.printJSON(p)
	}
	t := newTable(a.stdout)
	row(t, "AT", "JOB", "ERROR", "MESSAGE")
	for _, r := range p.Items {
		row(t, stamp(r.At), ptrOrDash(r.JobID), dash(r.Error), dash(r.Message))
	}
	return t.Flush()
}
