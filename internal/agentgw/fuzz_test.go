package agentgw_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// fuzzAgent is a bare agent connection that reports the envelopes it
// receives and its close.
type fuzzAgent struct {
	gws.BuiltinEventHandler
	conn   *gws.Conn
	msgs   chan agentproto.Envelope
	closed chan struct{}
}

func (a *fuzzAgent) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	if e, err := agentproto.Decode(m.Bytes()); err == nil {
		select {
		case a.msgs <- e:
		default: // nobody waits for it
		}
	}
}

func (a *fuzzAgent) OnClose(*gws.Conn, error) { close(a.closed) }

// next waits for an envelope of type typ and id; false if the connection
// closes first. The hub must do one or the other within 15 s.
func (a *fuzzAgent) next(t *testing.T, typ, id string) bool {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-a.msgs:
			if e.Type == typ && e.ID == id {
				return true
			}
		case <-a.closed:
			return false
		case <-timeout:
			t.Fatalf("the hub neither sent %s %q nor closed the connection within 15 s", typ, id)
		}
	}
}

// agentFuzzEnv is a real hub and one host's agent token.
type agentFuzzEnv struct {
	h     *hubtest.Hub
	token string
	cur   *fuzzAgent
	n     int
}

func (e *agentFuzzEnv) dial(t testing.TB) *fuzzAgent {
	t.Helper()
	a := &fuzzAgent{msgs: make(chan agentproto.Envelope, 64), closed: make(chan struct{})}
	conn, _, err := gws.NewClient(a, &gws.ClientOption{
		Addr:          "ws" + strings.TrimPrefix(e.h.URL, "http") + agentproto.PathWS,
		RequestHeader: http.Header{"Authorization": {"Bearer " + e.token}},
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	a.conn = conn
	go conn.ReadLoop()
	return a
}

func (e *agentFuzzEnv) write(t testing.TB, a *fuzzAgent, typ, id string, body any) {
	t.Helper()
	msg, err := agentproto.Encode(typ, id, body)
	if err != nil {
		t.Fatal(err)
	}
	_ = a.conn.WriteMessage(gws.OpcodeText, msg)
}

// welcomed returns a welcomed connection: the last one, or a new one if
// the hub closed it.
func (e *agentFuzzEnv) welcomed(t *testing.T) *fuzzAgent {
	t.Helper()
	if e.cur != nil {
		select {
		case <-e.cur.closed:
		default:
			return e.cur
		}
	}
	a := e.dial(t)
	e.write(t, a, agentproto.TypeHello, "", agentproto.Hello{Protocol: agentproto.Version, AgentVersion: "1.0.0", OS: "linux"})
	if !a.next(t, agentproto.TypeWelcome, "") {
		t.Fatal("the hub closed a new connection before its welcome")
	}
	e.cur = a
	return a
}

// FuzzAgentToHub sends each input to a real hub as a message from an
// agent on its WebSocket: as the first message (instead of hello) when
// first is set, else after the welcome; text, or binary when binary is set
// (stream frames). Whatever the input, the hub either serves it or closes
// the connection, never hangs; on a connection it kept, it still answers a
// heartbeat; and it still answers /readyz. One hub serves every input of a
// process.
func FuzzAgentToHub(f *testing.F) {
	h := hubtest.Start(f, hubtest.Embedded)
	u := h.Register(f)
	_, c, err := h.Hosts.Create(f.Context(), u.User.ID, "fuzz", nil, true)
	if err != nil {
		f.Fatalf("create host: %v", err)
	}
	var tok agentproto.TokenResponse
	h.Client(f).Do("POST", agentproto.PathOnline, agentproto.OnlineRequest{HostID: c.HostID, InstallToken: c.InstallToken}).
		Want(f, 200, "").JSON(f, &tok)
	e := &agentFuzzEnv{h: h, token: tok.AgentToken}
	f.Cleanup(func() {
		if e.cur != nil {
			_ = e.cur.conn.NetConn().Close()
		}
	})

	for _, s := range []string{
		`{"type":"hello","body":{"protocol":2,"agent_version":"1.0.0","os":"linux","hostname":"h"}}`,
		`{"type":"hello","body":{"protocol":0}}`,
		`{"type":"hello","body":{"protocol":1,"agent_version":"` + strings.Repeat("9", 300) + `"}}`,
		`{"type":"hello"}`,
		`{"type":"cmd_resp","id":"missing","body":{"ok":true,"result":{"x":1}}}`,
		`{"type":"cmd_resp","id":"missing","body":{"ok":false,"error":{"code":"failed","message":"no"}}}`,
		`{"type":"heartbeat"}`,
		`{"type":"heartbeat","id":"h1"}`,
		`{"type":"metrics","body":{"cpu_pct":12.5,"mem_used_bytes":1024,"uptime_s":9}}`,
		`{"type":"metrics","body":{"cpu_pct":"high"}}`,
		`{"type":"event","body":{"kind":"` + strings.Repeat("k", 100) + `","message":"m"}}`,
		`{"type":"event","body":[]}`,
		`{"type":"upgrade","id":"u1","body":{"version":"9.9.9","state":"installing"}}`,
		`{"type":"upgrade","body":{"state":"failed","error":"disk full"}}`,
		`{"type":"welcome","body":{}}`,
		`{"type":"mystery","id":"m"}`,
		`{"type":""}`,
		`{"type":"metrics","body":null}`,
		`[`,
		``,
	} {
		f.Add(false, false, []byte(s))
		f.Add(true, false, []byte(s))
	}
	f.Add(false, true, []byte{0x10, 0, 0, 0, 2, '{', '}'})
	f.Add(false, true, []byte{0x20, 0, 0, 0, 1, 'x'})
	f.Add(false, true, []byte{})

	f.Fuzz(func(t *testing.T, first, binary bool, msg []byte) {
		var a *fuzzAgent
		if first {
			a = e.dial(t)
			defer func() { _ = a.conn.NetConn().Close() }()
		} else {
			a = e.welcomed(t)
		}
		op := gws.OpcodeText
		if binary {
			op = gws.OpcodeBinary
		}
		_ = a.conn.WriteMessage(op, msg)
		if first {
			// A hello is answered with a welcome; anything else
			// closes the connection.
			if env, err := agentproto.Decode(msg); err != nil || env.Type != agentproto.TypeHello {
				if a.next(t, agentproto.TypeWelcome, "") {
					t.Fatalf("the hub welcomed a connection that began with %q", msg)
				}
			}
		} else {
			e.n++
			id := "probe-" + strconv.Itoa(e.n)
			e.write(t, a, agentproto.TypeHeartbeat, id, nil)
			_ = a.next(t, agentproto.TypeHeartbeatAck, id) // answered, or the input closed the connection
		}
		r := h.Client(t).Do("GET", "/readyz", nil)
		if r.Status != 200 {
			t.Fatalf("/readyz answered %d %s after %q", r.Status, r.Body, msg)
		}
	})
}
