package orchestrate

import (
	"encoding/json"
	"errors"
	"testing"

	"hostgate/internal/agentproto"
)

// TestHandlersRefuseBadArgs: the agent is as strict as the hub.
func TestHandlersRefuseBadArgs(t *testing.T) {
	hs := Handlers()
	tests := []struct {
		op   string
		args string
	}{
		{"orchestrate.start", `{"path":"/g","data":{"run_gate_count":17}}`},
		{"orchestrate.start", `{"path":"/g","data":{"run_gate_count":0}}`},
		{"orchestrate.start", `{"path":"/g","data":{"spawn_delay_ms":-1}}`},
		{"orchestrate.start", `{"path":"/g","data":{"ports":{"GatePort":5000}}}`},
		{"orchestrate.start", `{"path":"/g","data":{"ports":{"DB.GatePort":65536}}}`},
		{"orchestrate.start", `{"path":"/g","data":{"controller_exe":"a/b.exe"}}`},
		{"orchestrate.start", `{"path":"","data":{}}`},
		{"orchestrate.start", `{"path":"/g","data":{"colour":"red"}}`},
		{"orchestrate.shutdown", `{"path":"/g","data":{"timeout_override_s":-1}}`},
		{"orchestrate.shutdown", `{"path":"/g","data":{"timeout_override_s":601}}`},
	}
	for _, tt := range tests {
		h, ok := hs[tt.op]
		if !ok {
			t.Fatalf("no handler for %s", tt.op)
		}
		_, err := h(t.Context(), json.RawMessage(tt.args))
		if code(err) != agentproto.CodeBadArgs {
			t.Errorf("%s %s: %v, want %s", tt.op, tt.args, err, agentproto.CodeBadArgs)
		}
	}
}

// TestResultJSON pins the field names of the results (issue 18).
func TestResultJSON(t *testing.T) {
	start := StartResult{GameDir: "/g", Controller: agentproto.OrchestrateProcess{Exe: "/g/GameCenter.exe", PID: 1},
		Started:       []agentproto.OrchestrateStarted{{Section: "RunGate", Exe: "/g/RunGate/RunGate.exe", PID: 2, Instance: 1}, {Section: "DBServer", Exe: "/g/DBServer/DBServer.exe", PID: 3}},
		Skipped:       []agentproto.OrchestrateSkipped{{Section: "SelGate", Reason: "disabled"}},
		ConfigChanged: []string{"DBServer.GatePort"}}
	want := `{"game_dir":"/g","controller":{"exe":"/g/GameCenter.exe","pid":1},"started":[{"section":"RunGate","exe":"/g/RunGate/RunGate.exe","pid":2,"instance":1},{"section":"DBServer","exe":"/g/DBServer/DBServer.exe","pid":3}],"skipped":[{"section":"SelGate","reason":"disabled"}],"config_changed":["DBServer.GatePort"]}`
	if b, _ := json.Marshal(start); string(b) != want {
		t.Errorf("start result\ngot  %s\nwant %s", b, want)
	}
	sd := ShutdownResult{GameDir: "/g", Controller: agentproto.OrchestrateKilled{PID: 1, Killed: true},
		Stopped: []agentproto.OrchestrateStopped{{Section: "SelGate", Exe: "/g/SelGate/SelGate.exe", Stage: "not_running"}}}
	want = `{"game_dir":"/g","controller":{"pid":1,"killed":true},"stopped":[{"section":"SelGate","exe":"/g/SelGate/SelGate.exe","pid":0,"stage":"not_running"}]}`
	if b, _ := json.Marshal(sd); string(b) != want {
		t.Errorf("shutdown result\ngot  %s\nwant %s", b, want)
	}
}

// code is the agent error code of err ("" for none).
func code(err error) string {
	var ae *agentproto.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}
