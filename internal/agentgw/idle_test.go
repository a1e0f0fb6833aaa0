package agentgw_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// maskedFrame is a final client frame with a fixed mask.
func maskedFrame(op byte, payload []byte) []byte {
	f := []byte{0x80 | op}
	if len(payload) < 126 {
		f = append(f, 0x80|byte(len(payload)))
	} else {
		f = append(f, 0x80|126)
		f = binary.BigEndian.AppendUint16(f, uint16(len(payload)))
	}
	key := []byte{1, 2, 3, 4}
	f = append(f, key...)
	for i, c := range payload {
		f = append(f, c^key[i&3])
	}
	return f
}

// agentToken creates a host and spends its install token.
func agentToken(t *testing.T, h *hubtest.Hub, userID string) string {
	t.Helper()
	_, c, err := h.Hosts.Create(t.Context(), userID, "raw", nil, true)
	if err != nil {
		t.Fatalf("create host: %v", err)
	}
	var tok agentproto.TokenResponse
	h.Client(t).Do("POST", agentproto.PathOnline, agentproto.OnlineRequest{HostID: c.HostID, InstallToken: c.InstallToken}).
		Want(t, 200, "").JSON(t, &tok)
	return tok.AgentToken
}

// bareAgent opens an agent socket over a plain TCP connection, sending its
// hello in the same write as the upgrade request, and reads up to the
// welcome. It runs no goroutine.
func bareAgent(t *testing.T, h *hubtest.Hub, token string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	hello, _ := agentproto.Encode(agentproto.TypeHello, "", agentproto.Hello{Protocol: agentproto.Version, AgentVersion: "1.0.0", OS: "linux"})
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: hub\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer %s\r\n\r\n", agentproto.PathWS, token)
	if _, err := conn.Write(append([]byte(req), maskedFrame(0x1, hello)...)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	var head [2]byte
	if _, err := br.Read(head[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Read(head[1:]); err != nil {
		t.Fatal(err)
	}
	n := int(head[1] & 0x7F)
	if n == 126 {
		var l [2]byte
		_, _ = br.Read(l[:1])
		_, _ = br.Read(l[1:])
		n = int(binary.BigEndian.Uint16(l[:]))
	}
	body := make([]byte, n)
	for got := 0; got < n; {
		m, err := br.Read(body[got:])
		if err != nil {
			t.Fatal(err)
		}
		got += m
	}
	if e, err := agentproto.Decode(body); err != nil || e.Type != agentproto.TypeWelcome {
		t.Fatalf("first message %q, want a welcome", body)
	}
	return conn
}

// TestIdleAgentsHoldNoGoroutine: welcomed agents that say nothing more
// cost the hub no goroutine each (Linux, where sockets are polled).
func TestIdleAgentsHoldNoGoroutine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sockets are read by a goroutine each outside Linux")
	}
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	const agents = 40
	tokens := make([]string, agents)
	for i := range tokens {
		tokens[i] = agentToken(t, h, u.User.ID)
	}
	base := runtime.NumGoroutine()
	for _, tok := range tokens {
		bareAgent(t, h, tok)
	}
	// Inbox drainers end a second after their last message; an agent is
	// registered just after its welcome.
	deadline := time.Now().Add(15 * time.Second)
	for {
		n := runtime.NumGoroutine()
		online, err := h.Dispatch.CountOnline(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n < base+agents/2 && online == agents {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines with %d idle agents (%d online), %d before them", n, agents, online, base)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSocketWithoutHelloIsClosed: a socket that never says hello is
// closed by the sweep once the hello timeout (10 s) has passed.
func TestSocketWithoutHelloIsClosed(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	start := time.Now()
	_, ev := dialRawAgent(t, h)
	select {
	case err := <-ev.closed:
		if took := time.Since(start); took < 9*time.Second {
			t.Fatalf("closed after %v (%v), before the hello timeout", took, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a socket without a hello still open after 20 s")
	}
}

// TestPingAnsweredAndCloseEchoed: a WebSocket ping is answered with its
// payload, and the agent's close is answered with its code.
func TestPingAnsweredAndCloseEchoed(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	conn, ev := dialRawAgent(t, h)
	if err := conn.WritePing([]byte("p1")); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-ev.pong:
		if p != "p1" {
			t.Fatalf("pong %q, want p1", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no pong")
	}
	if err := conn.WriteMessage(gws.OpcodeCloseConnection, []byte{0x0F, 0xA0, 'b', 'y', 'e'}); err != nil { // 4000
		t.Fatal(err)
	}
	select {
	case err := <-ev.closed:
		var ce *gws.CloseError
		if !errors.As(err, &ce) || ce.Code != 4000 {
			t.Fatalf("closed with %v, want the close code 4000 answered", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("close not answered")
	}
}
