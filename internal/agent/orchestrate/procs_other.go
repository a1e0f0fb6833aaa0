//go:build !linux && !windows

package orchestrate

import (
	"runtime"

	"hostgate/internal/agentproto"
)

// otherProcs answers every call with unsupported_platform: orchestration
// runs on Windows and Linux agents only.
type otherProcs struct{}

func systemProcs() procs { return otherProcs{} }

func unsupported() error {
	return &agentproto.Error{Code: agentproto.CodeUnsupportedOS,
		Message: "game-engine orchestration is available on Windows and Linux hosts only, not on " + runtime.GOOS}
}

func (otherProcs) start(string, string, []string) (int, error) { return 0, unsupported() }
func (otherProcs) under(string) ([]process, error)             { return nil, unsupported() }
func (otherProcs) alive(process) bool                          { return false }
func (otherProcs) quit(process) error                          { return unsupported() }
func (otherProcs) close(process) error                         { return unsupported() }
func (otherProcs) kill(process) error                          { return unsupported() }
