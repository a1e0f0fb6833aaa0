package hostgate

import (
	"context"
	"net/http"
	"net/url"
)

// Game-engine orchestration (controls 16384 and 32768; the hub's
// docs/orchestration.md).

// OrchestrateStart is the body of OrchestrateStart. Nil pointers take the
// hub's defaults (spawn_delay_ms 3000, run_gate_count 1).
type OrchestrateStart struct {
	// ControllerExe is the controller's file name (default GameCenter.exe).
	ControllerExe string `json:"controller_exe,omitempty"`
	// ResolveGameDir searches up to three levels below base_path.
	ResolveGameDir bool `json:"resolve_game_dir,omitempty"`
	// SpawnSubprocesses starts the manifest's children after the
	// controller.
	SpawnSubprocesses bool `json:"spawn_subprocesses,omitempty"`
	// SpawnDelayMs is the gap before each child (0..60000).
	SpawnDelayMs *int `json:"spawn_delay_ms,omitempty"`
	// Enabled overrides sections' GetStart flags in Config.ini.
	Enabled map[string]bool `json:"enabled,omitempty"`
	// RunGateCount is the number of RunGate instances (1..16).
	RunGateCount *int `json:"run_gate_count,omitempty"`
	// Ports sets Config.ini values: "Section.Key" → 1..65535.
	Ports map[string]int `json:"ports,omitempty"`
}

// OrchestrateStartResult answers OrchestrateStart.
type OrchestrateStartResult struct {
	GameDir    string `json:"game_dir"`
	Controller struct {
		Exe string `json:"exe"`
		PID int    `json:"pid"`
	} `json:"controller"`
	// Started lists the children in start order; Instance (1-based) is
	// set for a section started several times (RunGate).
	Started []struct {
		Section  string `json:"section"`
		Exe      string `json:"exe"`
		PID      int    `json:"pid"`
		Instance int    `json:"instance,omitempty"`
	} `json:"started"`
	// Skipped lists sections not started; Reason is "missing" or
	// "disabled".
	Skipped []struct {
		Section string `json:"section"`
		Reason  string `json:"reason"`
	} `json:"skipped"`
	// ConfigChanged lists the Config.ini keys changed ("Section.Key").
	ConfigChanged []string `json:"config_changed"`
}

// OrchestrateShutdown is the body of OrchestrateShutdown.
type OrchestrateShutdown struct {
	ControllerExe  string `json:"controller_exe,omitempty"`
	ResolveGameDir bool   `json:"resolve_game_dir,omitempty"`
	// TimeoutOverrideS replaces every wait of stages 2 and 3 (0..600).
	TimeoutOverrideS *int `json:"timeout_override_s,omitempty"`
}

// OrchestrateShutdownResult answers OrchestrateShutdown.
type OrchestrateShutdownResult struct {
	GameDir    string `json:"game_dir"`
	Controller struct {
		PID    int  `json:"pid"`
		Killed bool `json:"killed"`
	} `json:"controller"`
	// Stopped lists the children in the order they were stopped; Stage
	// is "quit", "close", "kill" or "not_running".
	Stopped []struct {
		Section string `json:"section"`
		Exe     string `json:"exe"`
		PID     int    `json:"pid"`
		Stage   string `json:"stage"`
	} `json:"stopped"`
}

// OrchestrateStart starts the game server family in basePath (or, with
// ResolveGameDir, below it): Config.ini merged, the controller, then the
// children in manifest order.
func (c *Client) OrchestrateStart(ctx context.Context, hostID, basePath string, req OrchestrateStart) (OrchestrateStartResult, error) {
	var r OrchestrateStartResult
	return r, c.do(ctx, http.MethodPost, hostPath(hostID)+"/orchestrate/start?base_path="+url.QueryEscape(basePath), req, &r)
}

// OrchestrateShutdown shuts the family down in three stages: controller
// killed, quit message and wait, window close and forced termination.
func (c *Client) OrchestrateShutdown(ctx context.Context, hostID, basePath string, req OrchestrateShutdown) (OrchestrateShutdownResult, error) {
	var r OrchestrateShutdownResult
	return r, c.do(ctx, http.MethodPost, hostPath(hostID)+"/orchestrate/shutdown?base_path="+url.QueryEscape(basePath), req, &r)
}
