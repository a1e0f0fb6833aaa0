package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

// l1NonceCmd sends OpL1Nonce for r's nonce, as the hub's /gateway does
// before it charges and sends r's control, and returns the answer.
func l1NonceCmd(t *testing.T, c *hubConn, id string, bid int64, r l1.Request) agentproto.Response {
	t.Helper()
	c.cmd(id, agentproto.OpL1Nonce, 5*time.Second, agentproto.L1Nonce{BID: bid, Nonce: r.Nonce, ExpiresAt: r.NonceExpiry().Unix()})
	return c.resp(t, id)
}

func recorded(t *testing.T, resp agentproto.Response) bool {
	t.Helper()
	if !resp.OK || resp.Error != nil {
		t.Fatalf("l1.nonce answered %+v", resp)
	}
	var r agentproto.L1NonceResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		t.Fatalf("l1.nonce result %s: %v", resp.Result, err)
	}
	return r.Recorded
}

// TestL1NonceSharedWithLocalListener: the hub's OpL1Nonce and the local
// listener check one memory, both ways. A frame carried out by the
// listener is reported held when the hub forwards its nonce (so the hub
// refuses it and charges nothing), and a frame whose nonce the hub
// recorded is refused by the listener and not carried out.
func TestL1NonceSharedWithLocalListener(t *testing.T) {
	h := newFakeHub(t)
	cfg, dirs := l1Config(t, h)
	codec := mustCodec(t, cfg.BID, cfg.SecretKey)
	ta := start(t, cfg)
	c := h.conn(t, 1)
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return ta.Status().L1Listen != "" })

	// Local listener first, then the hub.
	first := l1.NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: "local-first"}, time.Now())
	body, err := codec.Encode(first)
	if err != nil {
		t.Fatal(err)
	}
	if r := l1Post(t, ta, cfg.BID, body); r.Code != l1.CodeOK {
		t.Fatalf("local listener: %+v", r)
	}
	if recorded(t, l1NonceCmd(t, c, "n1", cfg.BID, first)) {
		t.Error("the hub's nonce of a frame the listener carried out was recorded as new")
	}

	// The hub first, then the local listener.
	second := l1.NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: "hub-first"}, time.Now())
	if !recorded(t, l1NonceCmd(t, c, "n2", cfg.BID, second)) {
		t.Fatal("a new nonce from the hub was not recorded")
	}
	if recorded(t, l1NonceCmd(t, c, "n3", cfg.BID, second)) {
		t.Error("the same nonce from the hub twice was recorded twice")
	}
	body, err = codec.Encode(second)
	if err != nil {
		t.Fatal(err)
	}
	if r := l1Post(t, ta, cfg.BID, body); r.Code != l1.CodeFailure || r.Msg != l1.MsgInvalid {
		t.Errorf("listener after the hub: %+v, want invalid", r)
	}

	// A nonce of another bid is another scope: recorded, not confused.
	if !recorded(t, l1NonceCmd(t, c, "n4", cfg.BID+1, first)) {
		t.Error("the nonce under another bid was refused")
	}

	dirs.mu.Lock()
	defer dirs.mu.Unlock()
	if got := strings.Join(dirs.paths, ","); got != "local-first" {
		t.Errorf("DIR_MK carried out for %q, want local-first only", got)
	}
}

// TestL1NonceSurvivesRestart: a nonce the hub recorded is in the state
// directory, so the listener of the restarted agent refuses the frame.
func TestL1NonceSurvivesRestart(t *testing.T) {
	h := newFakeHub(t)
	cfg, dirs := l1Config(t, h)
	codec := mustCodec(t, cfg.BID, cfg.SecretKey)
	ta := start(t, cfg)
	r := l1.NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: "via-hub"}, time.Now())
	if !recorded(t, l1NonceCmd(t, h.conn(t, 1), "n1", cfg.BID, r)) {
		t.Fatal("a new nonce was not recorded")
	}
	ta.stop(t)

	tb := start(t, cfg)
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return tb.Status().L1Listen != "" })
	body, err := codec.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if resp := l1Post(t, tb, cfg.BID, body); resp.Code != l1.CodeFailure || resp.Msg != l1.MsgInvalid {
		t.Errorf("listener after a restart: %+v, want invalid", resp)
	}
	dirs.mu.Lock()
	defer dirs.mu.Unlock()
	if len(dirs.paths) != 0 {
		t.Errorf("DIR_MK carried out for %v", dirs.paths)
	}
}

// TestL1NonceBadArgs: malformed arguments are invalid_args and record
// nothing.
func TestL1NonceBadArgs(t *testing.T) {
	h := newFakeHub(t)
	cfg, _ := l1Config(t, h)
	start(t, cfg)
	c := h.conn(t, 1)
	exp := time.Now().Add(time.Minute).Unix()
	for i, args := range []any{
		map[string]any{"bid": 0, "nonce": "abcdefghijklmnop", "expires_at": exp},
		map[string]any{"bid": cfg.BID, "nonce": "short", "expires_at": exp},
		map[string]any{"bid": cfg.BID, "nonce": "abcdefghijklmno!", "expires_at": exp},
		map[string]any{"bid": cfg.BID, "nonce": "abcdefghijklmnop", "expires_at": 0},
		map[string]any{"bid": cfg.BID, "nonce": "abcdefghijklmnop", "expires_at": exp, "extra": 1},
	} {
		id := "bad" + string(rune('a'+i))
		c.cmd(id, agentproto.OpL1Nonce, 5*time.Second, args)
		if resp := c.resp(t, id); resp.OK || resp.Error == nil || resp.Error.Code != agentproto.CodeBadArgs {
			t.Errorf("args %v: %+v, want invalid_args", args, resp)
		}
	}
	// None of them was recorded: the valid nonce is still new.
	c.cmd("good", agentproto.OpL1Nonce, 5*time.Second, agentproto.L1Nonce{BID: cfg.BID, Nonce: "abcdefghijklmnop", ExpiresAt: exp})
	if !recorded(t, c.resp(t, "good")) {
		t.Error("a nonce was recorded by a refused command")
	}
}

// TestNonceUntilCoversHubClock: a nonce is kept until its expiry on the
// agent's clock, and longer by the hub's lag when the hub's clock is
// behind, so that the hub never accepts a frame the agent forgot.
func TestNonceUntilCoversHubClock(t *testing.T) {
	a := &Agent{}
	exp := time.Unix(1_767_268_800, 0)
	for _, c := range []struct {
		skew time.Duration // hub clock minus agent clock
		want time.Time
	}{
		{0, exp.Add(l1ClockMargin)},
		{90 * time.Second, exp.Add(l1ClockMargin)},
		{-90 * time.Second, exp.Add(90*time.Second + l1ClockMargin)},
		{-1500 * time.Millisecond, exp.Add(2*time.Second + l1ClockMargin)}, // rounded up to a whole second
	} {
		a.skewMs.Store(c.skew.Milliseconds())
		if got := a.nonceUntil(exp); !got.Equal(c.want) {
			t.Errorf("skew %v: kept until %v, want %v", c.skew, got, c.want)
		}
	}
}
