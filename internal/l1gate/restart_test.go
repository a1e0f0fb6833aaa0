package l1gate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
	"hostgate/internal/billing"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/l1"
)

const invalid = `{"code":7,"data":null,"msg":"invalid message"}`

// TestGatewayReplayAfterRestart: a captured /gateway request that appended
// to a file and was charged is refused when replayed after the hub
// restarts (and, scaled, after Redis loses its keys): the nonce memory is
// in the database. The agent is back online for the replay, so a replay
// that got through would append and charge again.
func TestGatewayReplayAfterRestart(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		user := h.Register(t)
		var bid int64
		var key string
		hostID := h.ConnectAgent(t, user.User.ID, func(c *agent.Config) { bid, key = c.BID, c.SecretKey })
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+user.User.ID+"/balance/adjust",
			map[string]any{"tokens": 10, "reason": "l1 replay test"}).Want(t, 200, "")

		file := filepath.Join(t.TempDir(), "log.txt")
		appendLine := func(line string) string {
			data, _ := json.Marshal(line)
			return encode(t, bid, key, l1.NewRequest(agentproto.CtlStrAd, agentproto.ControlArgs{Path: file, Data: data}, time.Now()))
		}
		captured := appendLine("once\n")
		if r := post(t, h, bid, captured); r.Status != 200 || !strings.HasPrefix(string(r.Body), `{"code":0`) {
			t.Fatalf("first send: %d %s", r.Status, r.Body)
		}
		checkFile(t, file, "once\n")
		charged := 10 - balance(t, h, user.AccessToken)
		if charged <= 0 {
			t.Fatalf("first send charged %v", charged)
		}

		h = restartInPlace(t, h, mode)
		eventually.Error(t, 20*time.Second, "agent of host "+hostID+" reconnecting", func() error {
			on, err := h.Dispatch.Online(t.Context(), hostID)
			if err == nil && !on {
				err = errors.New("offline")
			}
			return err
		})
		if r := post(t, h, bid, captured); r.Status != 200 || string(r.Body) != invalid {
			t.Errorf("replay after restart: %d %s, want 200 %s", r.Status, r.Body, invalid)
		}
		checkFile(t, file, "once\n")
		if b := balance(t, h, user.AccessToken); b != 10-charged {
			t.Errorf("balance %v after the replay, want %v: charged again", b, 10-charged)
		}
		if n := charges(t, h, user.AccessToken); n != 1 {
			t.Errorf("%d file-write charges, want 1", n)
		}

		// A fresh request still goes through: the agent was reachable.
		if r := post(t, h, bid, appendLine("fresh\n")); r.Status != 200 || !strings.HasPrefix(string(r.Body), `{"code":0`) {
			t.Fatalf("fresh send after restart: %d %s", r.Status, r.Body)
		}
		checkFile(t, file, "once\nfresh\n")
	})
}

// restartInPlace restarts h on its address, so that its agents
// reconnect; Scaled, coordination is emptied in between, as a Redis
// restart without persistence would.
func restartInPlace(t *testing.T, h *hubtest.Hub, mode hubtest.Mode) *hubtest.Hub {
	t.Helper()
	return h.RestartWith(t, func() {
		if mode == hubtest.Scaled {
			h.FlushCoordination(t)
		}
	})
}

func post(t *testing.T, h *hubtest.Hub, bid int64, body string) *hubtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/gateway?bid=%d", h.URL, bid), bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	return h.Client(t).Send(req)
}

func encode(t *testing.T, bid int64, key string, r l1.Request) string {
	t.Helper()
	c, err := l1.NewCodec(bid, key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("file holds %q (%v), want %q", got, err, want)
	}
}

func balance(t *testing.T, h *hubtest.Hub, token string) float64 {
	t.Helper()
	var b struct{ Tokens float64 }
	h.Client(t).As(token).Do("GET", "/v1/user/billing/balance", nil).Want(t, 200, "").JSON(t, &b)
	return b.Tokens
}

// charges counts the user's file-write charges.
func charges(t *testing.T, h *hubtest.Hub, token string) int {
	t.Helper()
	var page struct {
		Items []struct {
			Kind     string `json:"kind"`
			RuleCode string `json:"rule_code"`
		}
	}
	h.Client(t).As(token).Do("GET", "/v1/user/billing/events", nil).Want(t, 200, "").JSON(t, &page)
	n := 0
	for _, e := range page.Items {
		if e.Kind == "charge" && e.RuleCode == billing.RuleFileWrite {
			n++
		}
	}
	return n
}
