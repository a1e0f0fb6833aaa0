package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	hostgate "hostgate/sdk/go"
)

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// jobFlags are the flags that describe a job, shared by jobs run and
// schedules create.
type jobFlags struct {
	tags, hosts  listFlag
	filter       string
	name         string
	offline      string
	expires      time.Duration
	concurrency  int
	waveSize     int
	wavePause    time.Duration
	stopIfFailed int
	notifyURL    string
	raw          string
	timeoutS     int
	set          map[string]bool
}

const jobFlagsUsage = "(--tag K=V ... | --host HOST ... | --filter FILTER) [--name N] [--offline skip|queue] " +
	"[--expires D] [--concurrency N] [--wave-size N [--wave-pause D] [--stop-if-failed PCT]] [--notify-url URL] " +
	"(--raw JSON | [--timeout-s N] -- PROGRAM [ARGS...])"

func addJobFlags(fs *flag.FlagSet) *jobFlags {
	j := &jobFlags{}
	fs.Var(&j.tags, "tag", "")
	fs.Var(&j.hosts, "host", "")
	fs.StringVar(&j.filter, "filter", "", "")
	fs.StringVar(&j.name, "name", "", "")
	fs.StringVar(&j.offline, "offline", "", "")
	fs.DurationVar(&j.expires, "expires", 0, "")
	fs.IntVar(&j.concurrency, "concurrency", 0, "")
	fs.IntVar(&j.waveSize, "wave-size", 0, "")
	fs.DurationVar(&j.wavePause, "wave-pause", 0, "")
	fs.IntVar(&j.stopIfFailed, "stop-if-failed", 0, "")
	fs.StringVar(&j.notifyURL, "notify-url", "", "")
	fs.StringVar(&j.raw, "raw", "", "")
	fs.IntVar(&j.timeoutS, "timeout-s", 0, "")
	return j
}

// request checks the flags and builds the job; argv is the command line
// after the flags (PROGRAM [ARGS...]), empty with --raw.
func (j *jobFlags) request(ctx context.Context, a *app, c command, argv []string) (hostgate.JobRequest, error) {
	var req hostgate.JobRequest
	name := c.fs.Name()
	j.set = map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { j.set[f.Name] = true })
	targets := 0
	for _, n := range []string{"tag", "host", "filter"} {
		if j.set[n] {
			targets++
		}
	}
	if targets != 1 {
		return req, usageErr(name+": give the hosts by --tag, --host or --filter (one kind)", c.usage)
	}
	switch {
	case j.offline != "" && j.offline != "skip" && j.offline != "queue":
		return req, usageErr(name+": --offline is skip or queue", c.usage)
	case j.set["expires"] && (j.expires < time.Minute || j.expires > 7*24*time.Hour):
		return req, usageErr(name+": --expires must be 1m to 168h", c.usage)
	case j.set["concurrency"] && (j.concurrency < 1 || j.concurrency > 1000):
		return req, usageErr(name+": --concurrency must be 1-1000", c.usage)
	case (j.set["wave-pause"] || j.set["stop-if-failed"]) && !j.set["wave-size"]:
		return req, usageErr(name+": --wave-pause and --stop-if-failed need --wave-size", c.usage)
	case j.set["wave-size"] && (j.waveSize < 1 || j.waveSize > 100000):
		return req, usageErr(name+": --wave-size must be 1-100000", c.usage)
	case j.wavePause < 0 || j.wavePause > 24*time.Hour:
		return req, usageErr(name+": --wave-pause must be 0 to 24h", c.usage)
	case j.set["stop-if-failed"] && (j.stopIfFailed < 0 || j.stopIfFailed > 100):
		return req, usageErr(name+": --stop-if-failed must be 0-100", c.usage)
	case j.timeoutS < 0:
		return req, usageErr(name+": --timeout-s must not be negative", c.usage)
	case j.raw != "" && (len(argv) > 0 || j.set["timeout-s"]):
		return req, usageErr(name+": give --raw or a command line, not both", c.usage)
	case j.raw == "" && len(argv) == 0:
		return req, usageErr(name+": missing PROGRAM (or --raw)", c.usage)
	}
	req.Name, req.Offline, req.NotifyURL, req.Concurrency = j.name, j.offline, j.notifyURL, j.concurrency
	req.ExpiresInS = int(j.expires / time.Second)
	if j.set["wave-size"] {
		req.Waves = &hostgate.JobWaves{Size: j.waveSize, PauseS: int(j.wavePause / time.Second)}
		if j.set["stop-if-failed"] {
			req.Waves.StopIfFailedPct = &j.stopIfFailed
		}
	}
	req.Target.Tags = j.tags
	if j.filter != "" {
		id, err := a.resolveFilter(ctx, j.filter)
		if err != nil {
			return req, err
		}
		req.Target.FilterID = id
	}
	if len(j.hosts) > 0 {
		ids, err := a.resolveHosts(ctx, j.hosts)
		if err != nil {
			return req, err
		}
		req.Target.HostIDs = ids
	}
	if j.raw != "" {
		dec := json.NewDecoder(strings.NewReader(j.raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req.Operation); err != nil || req.Operation.Controls == 0 {
			return req, usageErr(fmt.Sprintf(`%s: --raw is the operation {"controls": N, "path": "...", "data": ...} (%v)`, name, err), c.usage)
		}
		return req, nil
	}
	req.Operation = hostgate.ShellOperation(argv[0], jobCommandLine(argv[1:]), j.timeoutS)
	return req, nil
}

// jobCommandLine joins args into the one argument string of process.shell,
// quoted as the agent on Linux splits it (POSIX single quotes) when an
// argument needs it; the hosts of a job may be of several systems, so a
// Windows command line that needs quoting is given with --raw.
func jobCommandLine(args []string) string {
	q := make([]string, len(args))
	for i, s := range args {
		q[i] = quotePOSIX(s)
	}
	return strings.Join(q, " ")
}

// resolveFilter turns FILTER, a saved filter's id or unique name, into an
// id.
func (a *app) resolveFilter(ctx context.Context, arg string) (string, error) {
	if hostIDPattern.MatchString(arg) {
		return arg, nil
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	fs, err := a.client.ListFilters(cctx)
	if err != nil {
		return "", err
	}
	for _, f := range fs {
		if f.Name == arg {
			return f.ID, nil
		}
	}
	return "", &hostgate.Error{Status: 404, Code: "not_found", Message: fmt.Sprintf("no saved filter with the id or name %q", arg)}
}
