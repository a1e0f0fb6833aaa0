// Package orchestrate starts a game server family and shuts it down in
// three stages: ORCHESTRATED_START (op "orchestrate.start") and
// ORCHESTRATED_SHUTDOWN ("orchestrate.shutdown"), issue 18 and spec 4.5.
//
// A family is a controller (GameCenter.exe by default) and the children of
// a manifest (DefaultManifest, or orchestrate.json beside the controller).
// Start merges the caller's overrides into the family's GBK Config.ini
// (package ini), starts the controller and then the enabled children, all
// detached from the agent so that an agent restart does not stop them.
// Shutdown finds the family's processes by their executable paths, so it
// needs nothing remembered from the start: (1) the controller is killed,
// (2) each child in reverse start order gets the quit message and its
// kind's wait, (3) a child still running gets the window close, then is
// terminated. The operating system parts sit behind the procs interface
// (procs_linux.go, procs_windows.go), so the stages are tested once, with
// real processes, on Linux. docs/orchestration.md is the user's guide.
package orchestrate

import (
	"context"
	"fmt"
	"time"

	"hostgate/internal/agentproto"
)

// Error codes of this package, besides agentproto's invalid_args and
// failed.
const (
	// CodeGameDirNotFound: base_path (or, with resolve_game_dir, no
	// directory up to three levels below it) holds the controller.
	CodeGameDirNotFound = "game_dir_not_found"
	// CodeConfigInvalid: Config.ini is not GBK text; it was left untouched.
	CodeConfigInvalid = "config_invalid"
	// CodeManifestInvalid: orchestrate.json is not a valid manifest.
	CodeManifestInvalid = "manifest_invalid"
	// CodeAlreadyRunning: start found the family's controller running.
	CodeAlreadyRunning = "already_running"
	// CodePermissionDenied: the system refused to start or stop a process.
	CodePermissionDenied = "permission_denied"
)

// StartRequest is ORCHESTRATED_START: base_path and the start body.
type StartRequest struct {
	BasePath string `json:"base_path"`
	agentproto.OrchestrateStartData
}

// StartResult answers Start.
type StartResult = agentproto.OrchestrateStartResult

// ShutdownRequest is ORCHESTRATED_SHUTDOWN: base_path and the shutdown
// body.
type ShutdownRequest struct {
	BasePath string `json:"base_path"`
	agentproto.OrchestrateShutdownData
}

// ShutdownResult answers Shutdown.
type ShutdownResult = agentproto.OrchestrateShutdownResult

// Orchestrator carries out starts and shutdowns over a process system.
type Orchestrator struct {
	sys procs
	// waits are the stage-2 waits by kind (KindWaits), closeWait stage
	// 3's; a request's timeout_override_s replaces both.
	waits     map[string]time.Duration
	closeWait time.Duration
	// settle bounds the wait for a killed process to be gone.
	settle time.Duration
	// poll is how often a wait looks whether a process has ended.
	poll time.Duration
}

// New returns an Orchestrator over the operating system's processes with
// the spec's waits.
func New() *Orchestrator {
	return &Orchestrator{
		sys:       systemProcs(),
		waits:     KindWaits,
		closeWait: agentproto.OrchestrateCloseWait,
		settle:    agentproto.OrchestrateSettle,
		poll:      50 * time.Millisecond,
	}
}

// Handlers returns the operations of this package keyed by op name.
func Handlers() map[string]agentproto.Handler {
	o := New()
	return agentproto.ControlHandlers(map[int64]agentproto.ControlFunc{
		agentproto.CtlOrchestratedStart: func(ctx context.Context, a agentproto.ControlArgs) (any, error) {
			req := StartRequest{BasePath: a.Path}
			if err := agentproto.DecodeData(a.Data, &req.OrchestrateStartData); err != nil {
				return nil, err
			}
			return o.Start(ctx, req)
		},
		agentproto.CtlOrchestratedShutdown: func(ctx context.Context, a agentproto.ControlArgs) (any, error) {
			req := ShutdownRequest{BasePath: a.Path}
			if err := agentproto.DecodeData(a.Data, &req.OrchestrateShutdownData); err != nil {
				return nil, err
			}
			return o.Shutdown(ctx, req)
		},
	})
}

// fail is an *agentproto.Error with code and a formatted message.
func fail(code, format string, a ...any) *agentproto.Error {
	return &agentproto.Error{Code: code, Message: fmt.Sprintf(format, a...)}
}
