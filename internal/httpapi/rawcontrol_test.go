package httpapi_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
	"hostgate/internal/l1"
)

// rawHost is a connected in-process agent's host with its state
// directory, an API key of its owner and 100 tokens.
type rawHost struct {
	l1Host
	state string
	owner hubtest.Auth
	key   *hubtest.Client
}

func connectRawHost(t *testing.T, h *hubtest.Hub) rawHost {
	t.Helper()
	r := rawHost{state: t.TempDir(), owner: h.Register(t)}
	r.ID = h.ConnectAgent(t, r.owner.User.ID, func(c *agent.Config) {
		r.BID, r.Key, c.StateDir = c.BID, c.SecretKey, r.state
	})
	r.key = h.Client(t).As(apiKey(t, h, r.owner.AccessToken))
	fin, _ := h.Admin(t, "finance")
	h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+r.owner.User.ID+"/balance/adjust",
		map[string]any{"tokens": 100, "reason": "raw control test"}).Want(t, 200, "")
	return r
}

func (r rawHost) raw(controls int64, path string) *hubtest.Response {
	return r.key.Do("POST", "/v1/api/hosts/"+r.ID+"/controls/raw", map[string]any{"controls": controls, "path": path})
}

// savedWatchDir reads the agent's watch-dir.json.
func (r rawHost) savedWatchDir(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.state, "watch-dir.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Dir string }
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Dir
}

// TestRawControlAnyValue: controls/raw carries a value the client API has
// no operation for to the agent, which answers 501 unsupported_control
// naming it (the name can only come from the agent's table); it is
// charged by control.raw.per_call, free until an admin prices it, and
// not refunded then. UPLOAD_FILE answers 501 not_implemented like
// files/upload; 0 and negative values are 400 and cost nothing.
func TestRawControlAnyValue(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	r := connectRawHost(t, h)

	for _, v := range []int64{65536, 1 << 40, 3} {
		p := r.raw(v, "/x").Want(t, 501, "unsupported_control")
		if !strings.Contains(string(p.Body), "controls "+jsonInt(v)) {
			t.Errorf("%d: message %q does not name the value", v, string(p.Body))
		}
	}
	if m := string(r.raw(65536, "").Want(t, 501, "unsupported_control").Body); !strings.Contains(m, "SHELL_OPEN") {
		t.Errorf("65536: %q, want the agent's name of the value", m)
	}
	r.raw(agentproto.CtlUploadFile, "/x").Want(t, 501, "not_implemented")
	r.key.Do("POST", "/v1/api/hosts/"+r.ID+"/controls/raw", map[string]any{"path": "/x"}).Want(t, 400, "invalid_body")
	r.raw(-1, "/x").Want(t, 400, "invalid_body")
	if b := balanceOf(t, h, r.owner.AccessToken); b != 100 {
		t.Fatalf("balance %v, want 100: control.raw.per_call has no price by default", b)
	}

	owner, _ := h.Admin(t, "owner")
	h.Client(t).As(owner).Do("POST", "/v1/admin/pricing-rules",
		map[string]any{"code": "control.raw.per_call", "token_amount": 0.5}).Want(t, 200, "")
	r.raw(1<<40, "").Want(t, 501, "unsupported_control")
	if b := balanceOf(t, h, r.owner.AccessToken); b != 99.5 {
		t.Errorf("balance %v, want 99.5: a priced unknown value is charged and not refunded (spec 8, rule 1)", b)
	}
}

func jsonInt(v int64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestChangeWatchDirRawAndGateway: CHANGE_WATCH_DIR (2048) changes the
// directory the agent watches, through controls/raw and /gateway alike:
// the answer names the new and the previous directory, and the agent keeps
// it in its state directory. A bad path changes nothing. UPLOAD_FILE over
// /gateway is code 7 not_implemented; a newer control is not an L1 control
// (spec 4.7).
func TestChangeWatchDirRawAndGateway(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	r := connectRawHost(t, h)
	first, second := t.TempDir(), t.TempDir()

	var res agentproto.WatchDirResult
	r.raw(agentproto.CtlChangeWatchDir, first).Want(t, 200, "").JSON(t, &res)
	if res.Dir != first || res.Previous != "" || r.savedWatchDir(t) != first {
		t.Fatalf("raw 2048: %+v, saved %s", res, r.savedWatchDir(t))
	}
	r.raw(agentproto.CtlChangeWatchDir, "relative/dir").Want(t, 400, "invalid_body")
	r.raw(agentproto.CtlChangeWatchDir, filepath.Join(first, "missing")).Want(t, 422, "target_not_found")
	r.raw(agentproto.CtlChangeWatchDir, "").Want(t, 400, "invalid_body")
	if r.savedWatchDir(t) != first {
		t.Fatalf("a refused change changed the directory to %s", r.savedWatchDir(t))
	}

	var ans struct {
		Code int
		Data agentproto.WatchDirResult
		Msg  string
	}
	postGateway(t, h, r.BID, r.message(t, r.Key, agentproto.CtlChangeWatchDir, agentproto.ControlArgs{Path: second})).
		Want(t, 200, "").JSON(t, &ans)
	if ans.Code != 0 || ans.Data.Dir != second || ans.Data.Previous != first || r.savedWatchDir(t) != second {
		t.Fatalf("/gateway 2048: %+v, saved %s", ans, r.savedWatchDir(t))
	}
	r.raw(agentproto.CtlChangeWatchDir, second).Want(t, 200, "").JSON(t, &res)
	if res.Previous != second {
		t.Errorf("follow-up: %+v, want previous %s", res, second)
	}

	ans = struct {
		Code int
		Data agentproto.WatchDirResult
		Msg  string
	}{}
	postGateway(t, h, r.BID, r.message(t, r.Key, agentproto.CtlUploadFile, agentproto.ControlArgs{Path: "/x"})).
		Want(t, 200, "").JSON(t, &ans)
	if ans.Code != l1.CodeFailure || !strings.HasPrefix(ans.Msg, "not_implemented: ") {
		t.Errorf("/gateway 512: %+v", ans)
	}
	// Three changes at control.dir.per_call (1 token); the refusals, the
	// agent's failure aside, cost nothing.
	if b := balanceOf(t, h, r.owner.AccessToken); b != 96 {
		t.Errorf("balance %v, want 96 (three changes and the failed one charged 1 each)", b)
	}
}
