package procops

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"

	"hostgate/internal/agentproto"
)

// program is a program to run, found, with its arguments still as the
// one string the caller sent: each platform turns it into a command line
// its own way (cmdline_*.go).
type program struct {
	name string // as the caller gave it: argv[0] on Unix
	path string // the executable found for name
	args string
}

// findProgram checks name and args and looks name up (in PATH when it is
// a bare name).
func findProgram(name, args string) (program, error) {
	if err := checkProgram(name); err != nil {
		return program{}, err
	}
	if strings.IndexByte(args, 0) >= 0 {
		return program{}, agentproto.ArgsError("arguments must not contain a NUL byte")
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return program{}, startError(name, err)
	}
	return program{name: name, path: path, args: args}, nil
}

// workDir is where EXEC_PROGRAM starts p: the program's own directory
// when the caller gave its absolute path, as when it is started from a
// file manager (servers often find their files relative to it); the
// agent's working directory for a program found in PATH.
func (p program) workDir() string {
	if filepath.IsAbs(p.name) {
		return filepath.Dir(p.path)
	}
	return ""
}

// execProgram is EXEC_PROGRAM: it starts the program detached from the
// agent and returns its pid at once. The command's context does not
// reach the program: it is meant to outlive the command (a game server,
// a daemon), and the agent only reaps it when it ends.
func execProgram(_ context.Context, a agentproto.ControlArgs) (any, error) {
	args, err := agentproto.DataString(a.Data)
	if err != nil {
		return nil, err
	}
	p, err := findProgram(a.Path, args)
	if err != nil {
		return nil, err
	}
	pid, err := startDetached(p)
	if err != nil {
		return nil, startError(a.Path, err)
	}
	return agentproto.ExecResult{PID: pid}, nil
}
