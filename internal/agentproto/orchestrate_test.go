package agentproto

import (
	"encoding/json"
	"testing"
)

// TestValidateOrchestrate: what the hub refuses with 400 invalid_body
// before any charge, and what it lets through.
func TestValidateOrchestrate(t *testing.T) {
	tests := []struct {
		ctl  int64
		path string
		data string
		ok   bool
	}{
		{CtlOrchestratedStart, `D:\game`, `{}`, true},
		{CtlOrchestratedStart, "/srv/game", ``, true},
		{CtlOrchestratedStart, `\\nas\game`, `{"run_gate_count":16,"spawn_delay_ms":0,"ports":{"DBServer.GatePort":1,"A.B.Port":65535},"enabled":{"SelGate":false}}`, true},
		{CtlOrchestratedStart, "/g", `{"controller_exe":"Center.exe","resolve_game_dir":true,"spawn_subprocesses":true}`, true},
		{CtlOrchestratedStart, "", `{}`, false},
		{CtlOrchestratedStart, "game", `{}`, false},
		{CtlOrchestratedStart, "/g", `{"run_gate_count":0}`, false},
		{CtlOrchestratedStart, "/g", `{"run_gate_count":17}`, false},
		{CtlOrchestratedStart, "/g", `{"spawn_delay_ms":-1}`, false},
		{CtlOrchestratedStart, "/g", `{"spawn_delay_ms":60001}`, false},
		{CtlOrchestratedStart, "/g", `{"ports":{"GatePort":5000}}`, false},
		{CtlOrchestratedStart, "/g", `{"ports":{".GatePort":5000}}`, false},
		{CtlOrchestratedStart, "/g", `{"ports":{"DB.":5000}}`, false},
		{CtlOrchestratedStart, "/g", `{"ports":{"DB.Port":0}}`, false},
		{CtlOrchestratedStart, "/g", `{"ports":{"DB.Port":65536}}`, false},
		{CtlOrchestratedStart, "/g", `{"ports":{"D]B.Port":80}}`, false},
		{CtlOrchestratedStart, "/g", `{"enabled":{"":true}}`, false},
		{CtlOrchestratedStart, "/g", `{"enabled":{"A\nB":true}}`, false},
		{CtlOrchestratedStart, "/g", `{"controller_exe":"..\\x.exe"}`, false},
		{CtlOrchestratedStart, "/g", `{"controller_exe":"C:x.exe"}`, false},
		{CtlOrchestratedStart, "/g", `{"run_gate_count":"3"}`, false},
		{CtlOrchestratedStart, "/g", `{"unknown":1}`, false},
		{CtlOrchestratedShutdown, "/g", `{"timeout_override_s":0}`, true},
		{CtlOrchestratedShutdown, "/g", `{"timeout_override_s":600,"controller_exe":"X.exe","resolve_game_dir":true}`, true},
		{CtlOrchestratedShutdown, "/g", `{"timeout_override_s":-1}`, false},
		{CtlOrchestratedShutdown, "/g", `{"timeout_override_s":601}`, false},
		{CtlOrchestratedShutdown, "", `{}`, false},
		{CtlOrchestratedShutdown, "/g", `{"run_gate_count":3}`, false},
	}
	for _, tt := range tests {
		err := ValidateArgs(tt.ctl, ControlArgs{Path: tt.path, Data: json.RawMessage(tt.data)})
		if (err == nil) != tt.ok {
			t.Errorf("ValidateArgs(%d, %q, %s) = %v, want ok %v", tt.ctl, tt.path, tt.data, err, tt.ok)
		}
		if err != nil {
			if e, isErr := err.(*Error); !isErr || e.Code != CodeBadArgs {
				t.Errorf("%s: error %v, want code %s", tt.data, err, CodeBadArgs)
			}
		}
	}
}

func TestOrchestrateDefaults(t *testing.T) {
	var d OrchestrateStartData
	if d.Controller() != "GameCenter.exe" || d.SpawnDelay() != 3000 || d.RunGates() != 1 {
		t.Errorf("defaults %q %d %d", d.Controller(), d.SpawnDelay(), d.RunGates())
	}
	zero := 0
	d.SpawnDelayMs = &zero
	if d.SpawnDelay() != 0 {
		t.Errorf("spawn_delay_ms 0 read as %d", d.SpawnDelay())
	}
}
