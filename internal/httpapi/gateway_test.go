package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
	"hostgate/internal/l1"
)

// l1Host is a host reachable over /gateway: its id, bid and secret key.
type l1Host struct {
	ID  string
	BID int64
	Key string
}

func connectL1Host(t *testing.T, h *hubtest.Hub, owner string) l1Host {
	var l l1Host
	l.ID = h.ConnectAgent(t, owner, func(c *agent.Config) { l.BID, l.Key = c.BID, c.SecretKey })
	return l
}

// message encrypts a fresh request for host.
func (l l1Host) message(t *testing.T, key string, control int64, args agentproto.ControlArgs) string {
	t.Helper()
	c, err := l1.NewCodec(l.BID, key)
	if err != nil {
		t.Fatal(err)
	}
	body, err := c.Encode(l1.NewRequest(control, args, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func postGateway(t *testing.T, h *hubtest.Hub, bid int64, body string) *hubtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/gateway?bid=%d", h.URL, bid), bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	return h.Client(t).Send(req)
}

const gatewayInvalid = `{"code":7,"data":null,"msg":"invalid message"}`

// TestGateway runs the legacy entry end to end in both modes: charging,
// insufficient balance, a real agent's answer, uniform refusals, a ban and
// the per-address rate limit.
func TestGateway(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		const rate = 20
		h := hubtest.Start(t, mode, hubtest.WithEnv("HOSTGATE_L1_RATE_PER_MIN", fmt.Sprint(rate)))
		user := h.Register(t)
		host := connectL1Host(t, h, user.User.ID)
		file := filepath.Join(t.TempDir(), "motd.txt")
		if err := os.WriteFile(file, []byte("hello over L1"), 0o600); err != nil {
			t.Fatal(err)
		}
		read := agentproto.ControlArgs{Path: file}
		sent := 0
		post := func(bid int64, body string) *hubtest.Response {
			sent++
			return postGateway(t, h, bid, body)
		}

		// No balance: refused with the client API's code, nothing run.
		r := post(host.BID, host.message(t, host.Key, agentproto.CtlStrRd, read))
		var ans struct {
			Code int
			Data *agentproto.ReadResult
			Msg  string
		}
		r.JSON(t, &ans)
		if r.Status != 200 || ans.Code != 7 || ans.Data != nil || !bytes.HasPrefix([]byte(ans.Msg), []byte("insufficient_balance: ")) {
			t.Fatalf("without balance: %d %s", r.Status, r.Body)
		}

		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+user.User.ID+"/balance/adjust",
			map[string]any{"tokens": 10, "reason": "l1 test"}).Want(t, 200, "")
		good := host.message(t, host.Key, agentproto.CtlStrRd, read)
		r = post(host.BID, good)
		r.JSON(t, &ans)
		if r.Status != 200 || ans.Code != 0 || ans.Msg != "ok" || ans.Data == nil || ans.Data.Content != "hello over L1" {
			t.Fatalf("read: %d %s", r.Status, r.Body)
		}
		if b := balanceOf(t, h, user.AccessToken); b != 9.5 {
			t.Fatalf("balance %v after one STR_RD, want 9.5 (control.file_read.per_call)", b)
		}

		// Arguments the operation refuses: code 7 with the reason.
		r = post(host.BID, host.message(t, host.Key, agentproto.CtlStrRd, agentproto.ControlArgs{}))
		r.JSON(t, &ans)
		if r.Status != 200 || ans.Code != 7 || !bytes.HasPrefix([]byte(ans.Msg), []byte("invalid_body: ")) {
			t.Fatalf("no path: %d %s", r.Status, r.Body)
		}

		for name, c := range map[string]struct {
			bid  int64
			body string
		}{
			"replay":      {host.BID, good},
			"wrong key":   {host.BID, host.message(t, "0123456789abcdef0123456789abcdef", agentproto.CtlStrRd, read)},
			"corrupted":   {host.BID, good[:len(good)-8] + "AAAAAAA="},
			"unknown bid": {host.BID + 1, l1Host{BID: host.BID + 1}.message(t, host.Key, agentproto.CtlStrRd, read)},
		} {
			if r := post(c.bid, c.body); r.Status != 200 || string(r.Body) != gatewayInvalid {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}

		op, _ := h.Admin(t, "operator")
		h.Client(t).As(op).Do("POST", "/v1/admin/hosts/"+host.ID+"/ban", nil).Want(t, 200, "")
		if r := post(host.BID, host.message(t, host.Key, agentproto.CtlStrRd, read)); r.Status != 200 || string(r.Body) != gatewayInvalid {
			t.Errorf("banned host: %d %s", r.Status, r.Body)
		}
		if b := balanceOf(t, h, user.AccessToken); b != 9.5 {
			t.Fatalf("balance %v, want 9.5: a refused message was charged", b)
		}

		for sent < rate {
			if r := post(host.BID, "x"); r.Status != 200 {
				t.Fatalf("request %d of %d: %d %s", sent, rate, r.Status, r.Body)
			}
		}
		if r := post(host.BID, "x"); r.Status != http.StatusTooManyRequests || string(r.Body) != `{"code":7,"data":null,"msg":"rate limited"}` {
			t.Fatalf("over the rate: %d %s", r.Status, r.Body)
		}
	})
}
