package upgrade

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"hostgate/internal/clip"
)

// ProbeTimeout bounds the run of a new executable's "version".
const ProbeTimeout = 15 * time.Second

// maxProbeOutput is how much of the probe's output is kept; the version
// line is far shorter.
const maxProbeOutput = 4 << 10

// Probe runs exe with the argument "version" and checks that it answers
// as the agent of version does ("hostgate-agent <version> (...)"). It
// catches a file that is not a runnable agent for this machine, or is
// another version than announced, before anything is swapped.
func Probe(ctx context.Context, exe, version string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	out := &cappedBuffer{max: maxProbeOutput}
	cmd := exec.CommandContext(ctx, exe, "version")
	cmd.Stdout = out
	// A child that keeps the pipe open must not hold the probe past its
	// timeout.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the new executable did not answer \"version\" within %s", ProbeTimeout)
	case ctx.Err() != nil:
		return errors.New("the check of the new executable was cancelled (the agent is stopping)")
	case err != nil:
		return fmt.Errorf("the new executable does not run: %w", err)
	}
	return checkVersionLine(out.String(), version)
}

// checkVersionLine compares the output of "hostgate-agent version" (see
// cmd/hostgate-agent) with the version wanted.
func checkVersionLine(out, want string) error {
	if strings.HasPrefix(out, "hostgate-agent "+want+" ") {
		return nil
	}
	line, _, _ := strings.Cut(out, "\n")
	if rest, ok := strings.CutPrefix(line, "hostgate-agent "); ok {
		got, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if got != want {
			return fmt.Errorf("the new executable reports version %s, want %s", clip.Ellipsis(got, 64), want)
		}
	}
	return fmt.Errorf("the new executable is not a hostgate agent: \"version\" printed %q", clip.Ellipsis(strings.TrimSpace(line), 80))
}

// cappedBuffer keeps the first max bytes written and drops the rest
// without failing the writer.
type cappedBuffer struct {
	max int
	b   []byte
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string { return string(c.b) }
