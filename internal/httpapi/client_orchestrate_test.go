package httpapi_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// TestOrchestrateRoutes: the orchestration routes through a real hub and
// an in-process agent. Out-of-range input is 400 invalid_body and costs
// nothing; a start and a shutdown are charged control.orchestrate.per_call
// (5 tokens) each and answer the agent's results; a base_path without the
// controller is 404 game_dir_not_found. The stages themselves are tested
// in internal/agent/orchestrate.
func TestOrchestrateRoutes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the game stand-in is a Linux program")
	}
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	key := apiKey(t, h, u.AccessToken)
	id := h.ConnectAgent(t, u.User.ID, nil)
	fin, _ := h.Admin(t, "finance")
	h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
		map[string]any{"tokens": 100, "reason": "orchestration test"}).Want(t, 200, "")

	// A controller that exits at once (sleep without an operand), so no
	// process outlives the test.
	game := t.TempDir()
	sleep, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skip("no /bin/sleep to stand in for the controller")
	}
	if err := os.WriteFile(filepath.Join(game, "GameCenter.exe"), sleep, 0o755); err != nil {
		t.Fatal(err)
	}
	start := "/v1/api/hosts/" + id + "/orchestrate/start?base_path=" + game
	shutdown := "/v1/api/hosts/" + id + "/orchestrate/shutdown?base_path=" + game
	c := h.Client(t).As(key)

	for _, body := range []map[string]any{
		{"run_gate_count": 17}, {"run_gate_count": 0}, {"spawn_delay_ms": -1},
		{"ports": map[string]any{"GatePort": 5000}}, {"ports": map[string]any{"DBServer.GatePort": 65536}},
		{"controller_exe": "bin/GameCenter.exe"},
	} {
		c.Do("POST", start, body).Want(t, 400, "invalid_body")
	}
	c.Do("POST", shutdown, map[string]any{"timeout_override_s": -1}).Want(t, 400, "invalid_body")
	c.Do("POST", "/v1/api/hosts/"+id+"/orchestrate/start", nil).Want(t, 400, "invalid_body") // no base_path
	if b := balanceOf(t, h, u.AccessToken); b != 100 {
		t.Fatalf("balance %v after refused calls, want 100 (nothing charged)", b)
	}

	var res struct {
		GameDir    string `json:"game_dir"`
		Controller struct {
			Exe string `json:"exe"`
			PID int    `json:"pid"`
		} `json:"controller"`
		Started       []any    `json:"started"`
		Skipped       []any    `json:"skipped"`
		ConfigChanged []string `json:"config_changed"`
	}
	c.Do("POST", start, map[string]any{"ports": map[string]any{"DBServer.GatePort": 5101}}).Want(t, 200, "").JSON(t, &res)
	if res.GameDir != game || res.Controller.PID == 0 || len(res.ConfigChanged) != 1 || res.Started == nil || res.Skipped == nil {
		t.Errorf("start result %+v", res)
	}
	cfg, _ := os.ReadFile(filepath.Join(game, "Config.ini"))
	if string(cfg) != "[DBServer]\r\nGatePort=5101\r\n" {
		t.Errorf("Config.ini %q", cfg)
	}
	var sd struct {
		Controller struct {
			PID    int  `json:"pid"`
			Killed bool `json:"killed"`
		} `json:"controller"`
		Stopped []struct{ Section, Stage string } `json:"stopped"`
	}
	c.Do("POST", shutdown, map[string]any{"timeout_override_s": 0}).Want(t, 200, "").JSON(t, &sd)
	if len(sd.Stopped) != 7 || sd.Stopped[0].Section != "LoginGate" || sd.Stopped[0].Stage != "not_running" {
		t.Errorf("shutdown result %+v", sd)
	}
	c.Do("POST", "/v1/api/hosts/"+id+"/orchestrate/shutdown?base_path="+filepath.Join(game, "nowhere"), nil).
		Want(t, 404, "game_dir_not_found")
	if b := balanceOf(t, h, u.AccessToken); b != 85 {
		t.Errorf("balance %v after three calls, want 85 (5 tokens each)", b)
	}

	// Another user's key: the host is not theirs, whatever the body.
	other := h.Register(t)
	oc := h.Client(t).As(apiKey(t, h, other.AccessToken))
	oc.Do("POST", start, nil).Want(t, 404, "not_found")
	oc.Do("POST", shutdown, nil).Want(t, 404, "not_found")
	oc.Do("POST", "/v1/api/hosts/"+id+"/controls/raw",
		map[string]any{"controls": agentproto.CtlOrchestratedStart, "path": game}).Want(t, 404, "not_found")

	// The same operations through controls/raw: the same validation before
	// any charge, the same results, the same price.
	raw := "/v1/api/hosts/" + id + "/controls/raw"
	c.Do("POST", raw, map[string]any{"controls": 0, "path": game}).Want(t, 400, "invalid_body") // no value
	c.Do("POST", raw, map[string]any{"controls": agentproto.CtlOrchestratedStart, "path": game,
		"data": map[string]any{"run_gate_count": 17}}).Want(t, 400, "invalid_body")
	res.GameDir = ""
	c.Do("POST", raw, map[string]any{"controls": agentproto.CtlOrchestratedStart, "path": game}).Want(t, 200, "").JSON(t, &res)
	if res.GameDir != game || res.Controller.PID == 0 {
		t.Errorf("raw start result %+v", res)
	}
	sd.Stopped = nil
	c.Do("POST", raw, map[string]any{"controls": agentproto.CtlOrchestratedShutdown, "path": game,
		"data": map[string]any{"timeout_override_s": 0}}).Want(t, 200, "").JSON(t, &sd)
	if len(sd.Stopped) != 7 {
		t.Errorf("raw shutdown result %+v", sd)
	}
	if b := balanceOf(t, h, u.AccessToken); b != 75 {
		t.Errorf("balance %v after five calls, want 75 (5 tokens each)", b)
	}
}
