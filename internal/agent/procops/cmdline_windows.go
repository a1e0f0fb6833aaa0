package procops

import (
	"os/exec"
	"syscall"
)

// pathSeparators are the characters that give a path a directory part.
const pathSeparators = `\/`

// cmdLine is the Windows command line of p: the program's path in quotes,
// then the caller's argument string untouched. A Windows program splits
// its own command line (the C runtime's rules, or cmd.exe's), so the
// agent must not split and re-quote it.
func (p program) cmdLine() string {
	if p.args == "" {
		return `"` + p.path + `"`
	}
	return `"` + p.path + `" ` + p.args
}

// command returns the exec.Cmd of p with the raw command line.
func (p program) command() (*exec.Cmd, error) {
	return &exec.Cmd{
		Path:        p.path,
		Args:        []string{p.name},
		SysProcAttr: &syscall.SysProcAttr{CmdLine: p.cmdLine()},
	}, nil
}
