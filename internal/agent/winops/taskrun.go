package winops

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// maxOutput bounds what a program may print to stdout; every task's XML
// of a busy host is a few MiB at most.
const (
	maxOutput    = 32 << 20
	maxErrOutput = 64 << 10
)

// execRunner runs real programs; decode turns their console output into
// text (nil: bytes as they are).
type execRunner struct {
	decode func([]byte) string
}

func (e execRunner) run(ctx context.Context, program string, args ...string) (cmdOutput, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	// Once the program has exited or been killed, do not wait long on a
	// grandchild still holding the output pipes.
	cmd.WaitDelay = time.Second
	hideWindow(cmd)
	stdout := &cappedBuffer{max: maxOutput}
	stderr := &cappedBuffer{max: maxErrOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return cmdOutput{}, ctxErr
	}
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil:
		// The program exited and its output was read, but something it
		// started (Wine's console host does this) still holds the pipes.
		code = cmd.ProcessState.ExitCode()
	case err != nil:
		return cmdOutput{}, err
	}
	if stdout.over {
		return cmdOutput{}, fmt.Errorf("%s printed more than %d bytes", program, maxOutput)
	}
	return cmdOutput{Stdout: e.text(stdout.b), Stderr: e.text(stderr.b), ExitCode: code}, nil
}

func (e execRunner) text(b []byte) string {
	if e.decode == nil {
		return string(b)
	}
	return e.decode(b)
}

// cappedBuffer keeps the first max bytes written and drops the rest, so
// that a chatty program can neither block on a full pipe nor fill memory.
type cappedBuffer struct {
	b    []byte
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - len(c.b)
	if len(p) > room {
		c.over = true
		c.b = append(c.b, p[:max(room, 0)]...)
		return len(p), nil
	}
	c.b = append(c.b, p...)
	return len(p), nil
}
