package agentgw_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
	"hostgate/internal/hubtest"
)

// TestOnlyHelloBeforeWelcome (T50): on a new agent socket every envelope
// type but hello closes the connection without a welcome; after the
// welcome, unknown types (random names) get an error frame naming
// unknown_type with the message's id, and the connection keeps serving.
func TestOnlyHelloBeforeWelcome(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	_, c, err := h.Hosts.Create(t.Context(), u.User.ID, "t50", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	var tok agentproto.TokenResponse
	h.Client(t).Do("POST", agentproto.PathOnline, agentproto.OnlineRequest{HostID: c.HostID, InstallToken: c.InstallToken}).
		Want(t, 200, "").JSON(t, &tok)
	e := &agentFuzzEnv{h: h, token: tok.AgentToken}

	pre := []string{agentproto.TypeWelcome, agentproto.TypeError, agentproto.TypeCmd, agentproto.TypeCmdResp,
		agentproto.TypeHeartbeat, agentproto.TypeHeartbeatAck, agentproto.TypeMetrics, agentproto.TypeEvent,
		agentproto.TypeUpgrade, "settings.update", "mystery"}
	for _, typ := range pre {
		a := e.dial(t)
		e.write(t, a, typ, "x1", map[string]any{})
		if a.next(t, agentproto.TypeWelcome, "") {
			t.Fatalf("the hub welcomed a connection that began with %q", typ)
		}
	}

	a := e.welcomed(t)
	t.Cleanup(func() { _ = a.conn.NetConn().Close() })
	r := rand.New(rand.NewPCG(50, 50))
	const unknown = 25
	for i := range unknown {
		name := make([]byte, 1+r.IntN(20))
		for j := range name {
			name[j] = "abcdefghijklmnopqrstuvwxyz_."[r.IntN(28)]
		}
		typ := "z" + string(name) // never a known type
		id := fmt.Sprintf("u%d", i)
		e.write(t, a, typ, id, map[string]any{"n": i})
		if !a.next(t, agentproto.TypeError, id) {
			t.Fatalf("unknown type %q closed the connection, want an error frame", typ)
		}
	}
	e.write(t, a, agentproto.TypeHeartbeat, "still", nil)
	if !a.next(t, agentproto.TypeHeartbeatAck, "still") {
		t.Fatal("the connection stopped serving after unknown types")
	}
	battery.Report(t, "T50", "%d envelope types other than hello as the first message → connection closed, no welcome; %d random unknown types after the welcome → %d error frames, connection still answers heartbeats", len(pre), unknown, unknown)
}
