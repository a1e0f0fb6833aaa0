package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/billing"
	"hostgate/internal/eventually"
	"hostgate/internal/l1"
)

// l1Invalid is the one answer to a refused L1 message (docs/l1.md §4).
const l1Invalid = `{"code":7,"data":null,"msg":"invalid message"}`

// TestL1CrossReceiverReplay: a real hub and a real agent process share one
// L1 nonce memory (docs/l1.md §3). A STR_AD frame sent to the agent's
// local listener and then to the hub's /gateway appends once and is not
// charged by the hub; a second frame sent to /gateway and then to the
// listener appends once and is charged once. Each second answer is the
// invalid one, byte for byte.
func TestL1CrossReceiverReplay(t *testing.T) {
	e := NewEnv(t, false)
	h := e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "l1")
	listen := freeAddr(t)
	_, bin := binaries(t)
	start(t, bin, nil, "run", "--host-id", creds.HostID, "--bid", fmt.Sprint(creds.BID), "--secret-key", creds.SecretKey,
		"--install-token", creds.InstallToken, "--agent-privkey-seed", creds.AgentPrivkeySeed, "--agent-pubkey", creds.AgentPubkey,
		"--ws-url", creds.WSURL, "--api-endpoint", creds.APIEndpoint, "--state-dir", t.TempDir(), "--l1-listen", listen)
	eventually.True(t, 20*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	cust.Fund(h, 10)
	funded := cust.Balance(h)

	codec := must[*l1.Codec](t, "codec")(l1.NewCodec(creds.BID, creds.SecretKey))
	file := filepath.Join(t.TempDir(), "l1.log")
	frame := func(line string) string {
		data, _ := json.Marshal(line)
		req := l1.NewRequest(agentproto.CtlStrAd, agentproto.ControlArgs{Path: file, Data: data}, time.Now())
		return must[string](t, "encode")(codec.Encode(req))
	}
	hub := h.URL + "/gateway"
	local := "http://" + listen + "/gateway"

	// The local listener first, then /gateway.
	a := frame("local\n")
	if got := l1Post(t, local, creds.BID, a); !strings.HasPrefix(got, `{"code":0`) {
		t.Fatalf("local listener: %s", got)
	}
	if got := l1Post(t, hub, creds.BID, a); got != l1Invalid {
		t.Errorf("/gateway after the local listener: %s, want %s", got, l1Invalid)
	}
	fileHolds(t, file, "local\n")
	if b := cust.Balance(h); b != funded {
		t.Errorf("balance %v after /gateway refused the frame, want %v (not charged)", b, funded)
	}

	// /gateway first, then the local listener.
	b := frame("hub\n")
	if got := l1Post(t, hub, creds.BID, b); !strings.HasPrefix(got, `{"code":0`) {
		t.Fatalf("/gateway: %s", got)
	}
	charged := funded - cust.Balance(h)
	if got := l1Post(t, local, creds.BID, b); got != l1Invalid {
		t.Errorf("local listener after /gateway: %s, want %s", got, l1Invalid)
	}
	fileHolds(t, file, "local\nhub\n")
	if n := fileWriteCharges(t, h, cust); n != 1 {
		t.Errorf("%d file-write charges, want 1 (the /gateway frame)", n)
	}
	if after := funded - cust.Balance(h); after != charged || charged <= 0 {
		t.Errorf("charged %v by /gateway and %v in all, want one positive charge", charged, after)
	}
}

// l1Post sends an L1 body to url (a hub's or an agent's /gateway) and
// returns the answer without its trailing newline.
func l1Post(t *testing.T, url string, bid int64, body string) string {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("%s?bid=%d", url, bid), "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

func fileHolds(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q", path, got, err, want)
	}
}

// fileWriteCharges counts the customer's file-write charges.
func fileWriteCharges(t *testing.T, h *Hub, c Customer) int {
	t.Helper()
	var page struct {
		Items []struct {
			Kind     string `json:"kind"`
			RuleCode string `json:"rule_code"`
		}
	}
	if s := call(t, "GET", h.URL+"/v1/user/billing/events", c.Token, nil, &page); s != 200 {
		t.Fatalf("billing events: %d", s)
	}
	n := 0
	for _, e := range page.Items {
		if e.Kind == "charge" && e.RuleCode == billing.RuleFileWrite {
			n++
		}
	}
	return n
}
