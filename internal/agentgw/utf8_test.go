package agentgw_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// rawAgent is a bare WebSocket client holding an agent's token: it sends
// whatever frames a test asks for and reports the close it receives.
type rawAgent struct {
	gws.BuiltinEventHandler
	welcome chan struct{}
	closed  chan error
	pong    chan string
}

func (r *rawAgent) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	if e, err := agentproto.Decode(m.Bytes()); err == nil && e.Type == agentproto.TypeWelcome {
		close(r.welcome)
	}
}

func (r *rawAgent) OnClose(_ *gws.Conn, err error) { r.closed <- err }

func (r *rawAgent) OnPong(_ *gws.Conn, p []byte) {
	select {
	case r.pong <- string(p):
	default:
	}
}

// dialRawAgent creates a host, spends its install token for an agent token
// and opens the agent WebSocket with it, without the agent program.
func dialRawAgent(t *testing.T, h *hubtest.Hub) (*gws.Conn, *rawAgent) {
	t.Helper()
	u := h.Register(t)
	_, c, err := h.Hosts.Create(t.Context(), u.User.ID, "raw", nil, true)
	if err != nil {
		t.Fatalf("create host: %v", err)
	}
	var tok agentproto.TokenResponse
	h.Client(t).Do("POST", agentproto.PathOnline, agentproto.OnlineRequest{HostID: c.HostID, InstallToken: c.InstallToken}).
		Want(t, 200, "").JSON(t, &tok)
	ev := &rawAgent{welcome: make(chan struct{}), closed: make(chan error, 1), pong: make(chan string, 1)}
	conn, _, err := gws.NewClient(ev, &gws.ClientOption{
		Addr:          "ws" + strings.TrimPrefix(h.URL, "http") + agentproto.PathWS,
		RequestHeader: http.Header{"Authorization": {"Bearer " + tok.AgentToken}},
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	go conn.ReadLoop()
	t.Cleanup(func() { _ = conn.NetConn().Close() })
	return conn, ev
}

// TestInvalidUTF8TextClosesWith1007: a text frame whose payload is not
// valid UTF-8 closes the agent's connection with 1007 (invalid frame
// payload data, RFC 6455 §7.4.1 and §8.1), even when it is otherwise a
// well-formed envelope the hub would serve.
func TestInvalidUTF8TextClosesWith1007(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	conn, ev := dialRawAgent(t, h)
	hello, err := agentproto.Encode(agentproto.TypeHello, "", agentproto.Hello{Protocol: agentproto.Version, AgentVersion: "1.0.0", OS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.WriteMessage(gws.OpcodeText, hello); err != nil {
		t.Fatalf("hello: %v", err)
	}
	select {
	case <-ev.welcome:
	case err := <-ev.closed:
		t.Fatalf("closed before welcome: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no welcome within 10 s")
	}

	bad := []byte(`{"type":"heartbeat","id":"` + "\xff\xfe" + `"}`)
	if err := conn.WriteMessage(gws.OpcodeText, bad); err != nil {
		t.Fatalf("write: %v", err)
	}
	select {
	case err := <-ev.closed:
		var ce *gws.CloseError
		if !errors.As(err, &ce) || ce.Code != 1007 {
			t.Fatalf("closed with %v, want close code 1007", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("connection still open 10 s after an invalid UTF-8 text frame")
	}
}

// TestCommandArgsWithInvalidUTF8: a client's raw args may carry bytes that
// are not UTF-8; the command still reaches the agent, with U+FFFD in their
// place (as the agent's JSON decoder would have put), instead of gws
// refusing the text frame and closing the agent's socket.
func TestCommandArgsWithInvalidUTF8(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	hostID := h.ConnectAgent(t, h.Register(t).User.ID, nil)
	file := filepath.Join(t.TempDir(), "out.txt")
	path, _ := json.Marshal(file)
	args := json.RawMessage(`{"path":` + string(path) + `,"data":"a` + "\xff" + `b"}`)
	resp, err := h.Dispatch.Send(t.Context(), hostID, "files.str_ad", args, 10*time.Second)
	if err != nil || !resp.OK {
		t.Fatalf("send: %+v, %v", resp, err)
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != "a\uFFFDb" {
		t.Errorf("file holds %q (%v), want %q", got, err, "a\uFFFDb")
	}
}
