//go:build !windows

package procops

import (
	"os/exec"

	"hostgate/internal/agentproto"
)

// pathSeparators are the characters that give a path a directory part.
const pathSeparators = "/"

// command returns the exec.Cmd of p: its arguments are split by POSIX
// shell-word rules (splitPOSIX), argv[0] is the name the caller gave.
func (p program) command() (*exec.Cmd, error) {
	words, err := splitPOSIX(p.args)
	if err != nil {
		return nil, agentproto.ArgsError("arguments: %v", err)
	}
	return &exec.Cmd{Path: p.path, Args: append([]string{p.name}, words...)}, nil
}
