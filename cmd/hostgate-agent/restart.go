package main

import (
	"fmt"
	"io"
	"os"

	"hostgate/internal/agent"
)

// restart starts the agent again from re.Exe with this process's
// arguments, after agent.Run stopped for it (an upgrade put a new
// executable in place, or a rollback the previous one). On Unix that is
// an exec, which does not return when it works. If it fails, the upgrade
// is undone where the record allows it, and the exit is non-zero so that
// a supervisor starts the agent again, from the previous executable.
func restart(re *agent.RestartError, stderr io.Writer) int {
	err := startAgain(re.Exe, os.Args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "hostgate-agent: restart into %s failed: %v\n", re.Exe, err)
	if aerr := re.Abandon(err); aerr != nil {
		fmt.Fprintln(stderr, "hostgate-agent: could not put the previous executable back:", aerr)
	}
	return exitInternal
}
