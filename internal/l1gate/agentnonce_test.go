package l1gate

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/l1"
)

// TestGatewayRefusesNonceTheAgentHolds: a frame the agent's local
// listener already carried out gets the one invalid answer, byte for
// byte, and Run (which charges) is never called; a fresh frame's nonce is
// recorded on the agent, with the host's bid and the frame's expiry,
// before it runs, so the listener would refuse it in turn.
func TestGatewayRefusesNonceTheAgentHolds(t *testing.T) {
	run := &fakeRunner{result: json.RawMessage(`{"content":"hi"}`)}
	agents := newAgents()
	var logs bytes.Buffer
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	s := New(withNonces(fakeStore{bid: {candidate("h1", "u1", keyA)}}), plainKeys{}, run, agents, c, 100,
		slog.New(slog.NewTextHandler(&logs, nil)))

	usedLocally := readReq(time.Now())
	agents.holds(t, "h1", bid, usedLocally)
	if st, got := serve(s, "10.0.0.1", bid, encode(t, bid, keyA, usedLocally)); st != 200 || got != invalid {
		t.Fatalf("frame the agent holds: %d %s, want 200 %s", st, got, invalid)
	}
	if len(run.calls) != 0 {
		t.Fatalf("a frame the agent holds was run (and charged): %+v", run.calls)
	}
	if !strings.Contains(logs.String(), "reason=replayed_on_agent") {
		t.Errorf("refusal not logged as replayed_on_agent:\n%s", logs.String())
	}

	fresh := readReq(time.Now())
	if _, got := serve(s, "10.0.0.1", bid, encode(t, bid, keyA, fresh)); got != `{"code":0,"data":{"content":"hi"},"msg":"ok"}` {
		t.Fatalf("fresh frame: %s", got)
	}
	if len(run.calls) != 1 {
		t.Fatalf("fresh frame ran %d times", len(run.calls))
	}
	last := agents.sent[len(agents.sent)-1]
	if last != (agentproto.L1Nonce{BID: bid, Nonce: fresh.Nonce, ExpiresAt: fresh.NonceExpiry().Unix()}) {
		t.Errorf("sent %+v for %+v", last, fresh)
	}
	added, err := agents.nonces.AddNonce(context.Background(), "h1/"+strconv.FormatInt(bid, 10), fresh.Nonce, time.Now(), fresh.NonceExpiry())
	if err != nil || added {
		t.Errorf("the agent does not hold the nonce of a frame the hub ran (added %v, %v)", added, err)
	}
}

// TestGatewayNonceNotShared: when the agent cannot record the nonce the
// call is neither run nor charged, and the sender learns why; an agent
// too old for OpL1Nonce (unknown_op) still gets the call.
func TestGatewayNonceNotShared(t *testing.T) {
	for _, c := range []struct {
		name    string
		resp    *agentproto.Response
		err     error
		want    string
		wantRun bool
	}{
		{name: "offline", err: apperr.New("host_offline", "the host's agent is not connected"),
			want: `{"code":7,"data":null,"msg":"host_offline: the host's agent is not connected"}`},
		{name: "timeout", err: apperr.New("agent_timeout", "the agent did not answer in time"),
			want: `{"code":7,"data":null,"msg":"agent_timeout: the agent did not answer in time"}`},
		{name: "store failed", resp: &agentproto.Response{Error: &agentproto.Error{Code: agentproto.CodeFailed, Message: "the agent cannot record the L1 nonce"}},
			want: `{"code":7,"data":null,"msg":"operation_failed: failed: the agent cannot record the L1 nonce"}`},
		{name: "no result", resp: &agentproto.Response{OK: true}, want: invalid},
		{name: "old agent", resp: &agentproto.Response{Error: &agentproto.Error{Code: agentproto.CodeUnknownOp, Message: "unknown op l1.nonce"}},
			want: `{"code":0,"data":{"content":"hi"},"msg":"ok"}`, wantRun: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := &fakeRunner{result: json.RawMessage(`{"content":"hi"}`)}
			agents := newAgents()
			agents.resp, agents.err = c.resp, c.err
			s := newServiceWith(t, fakeStore{bid: {candidate("h1", "u1", keyA)}}, run, agents, 100)
			if _, got := serve(s, "ip", bid, encode(t, bid, keyA, readReq(time.Now()))); got != c.want {
				t.Errorf("answer %s, want %s", got, c.want)
			}
			if ran := len(run.calls) > 0; ran != c.wantRun {
				t.Errorf("run %v, want %v", ran, c.wantRun)
			}
		})
	}
}

// TestGatewaySharesNoNonceForRefusedArgs: a call Run refuses before the
// agent (UPLOAD_FILE, bad arguments) sends no nonce to the agent.
func TestGatewaySharesNoNonceForRefusedArgs(t *testing.T) {
	agents := newAgents()
	run := &fakeRunner{err: apperr.New("invalid_body", "path is required")}
	s := newServiceWith(t, fakeStore{bid: {candidate("h1", "u1", keyA)}}, run, agents, 100)
	for _, r := range []l1.Request{
		l1.NewRequest(agentproto.CtlUploadFile, agentproto.ControlArgs{Path: "/x"}, time.Now()),
		l1.NewRequest(agentproto.CtlStrRd, agentproto.ControlArgs{}, time.Now()),
	} {
		serve(s, "ip", bid, encode(t, bid, keyA, r))
	}
	if len(agents.sent) != 0 {
		t.Errorf("nonces sent for calls refused before the agent: %+v", agents.sent)
	}
	if len(run.calls) != 2 {
		t.Errorf("Run called %d times, want 2 (it answers the refusal)", len(run.calls))
	}
}
