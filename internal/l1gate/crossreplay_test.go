package l1gate_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
	"hostgate/internal/l1"
)

// TestGatewayCrossReceiverReplay: the hub's /gateway and the agent's local
// listener share one nonce memory (docs/l1.md §3). A frame carried out by
// the listener is refused by /gateway with the one invalid answer and not
// charged; a frame carried out through /gateway (and charged once) is
// refused by the listener. Each appends to the file once.
func TestGatewayCrossReceiverReplay(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		user := h.Register(t)
		listen := freeAddr(t)
		var bid int64
		var key string
		h.ConnectAgent(t, user.User.ID, func(c *agent.Config) { bid, key, c.L1Listen = c.BID, c.SecretKey, listen })
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+user.User.ID+"/balance/adjust",
			map[string]any{"tokens": 10, "reason": "l1 cross replay test"}).Want(t, 200, "")

		file := filepath.Join(t.TempDir(), "log.txt")
		frame := func(line string) string {
			data, _ := json.Marshal(line)
			return encode(t, bid, key, l1.NewRequest(agentproto.CtlStrAd, agentproto.ControlArgs{Path: file, Data: data}, time.Now()))
		}

		// The local listener first, then /gateway: refused, nothing charged.
		a := frame("local\n")
		if got := postLocal(t, listen, bid, a); !strings.HasPrefix(got, `{"code":0`) {
			t.Fatalf("local listener: %s", got)
		}
		if r := post(t, h, bid, a); r.Status != 200 || string(r.Body) != invalid {
			t.Errorf("/gateway after the listener: %d %s, want 200 %s", r.Status, r.Body, invalid)
		}
		checkFile(t, file, "local\n")
		if b := balance(t, h, user.AccessToken); b != 10 {
			t.Errorf("balance %v after a refused /gateway frame, want 10", b)
		}

		// /gateway first (charged once), then the local listener: refused.
		b := frame("hub\n")
		if r := post(t, h, bid, b); r.Status != 200 || !strings.HasPrefix(string(r.Body), `{"code":0`) {
			t.Fatalf("/gateway: %d %s", r.Status, r.Body)
		}
		if got := postLocal(t, listen, bid, b); got != invalid {
			t.Errorf("listener after /gateway: %s, want %s", got, invalid)
		}
		checkFile(t, file, "local\nhub\n")
		if n := charges(t, h, user.AccessToken); n != 1 {
			t.Errorf("%d file-write charges, want 1", n)
		}
	})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// postLocal sends body to the agent's local listener at addr and returns
// the answer's body without its trailing newline.
func postLocal(t *testing.T, addr string, bid int64, body string) string {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("http://%s/gateway?bid=%d", addr, bid), "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatalf("local listener: %v", err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return strings.TrimSuffix(string(out), "\n")
}
