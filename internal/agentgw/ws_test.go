package agentgw

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestUpgradeAnswersAndKeepsEarlyBytes: the handshake is answered with the
// accept key of RFC 6455's example, and a frame the agent sent with its
// request, in the same write, is not lost.
func TestUpgradeAnswersAndKeepsEarlyBytes(t *testing.T) {
	early := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, b, err := upgrade(w, r)
		if err != nil {
			t.Error(err)
			return
		}
		early <- b
		t.Cleanup(func() { c.Close() })
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	frame := clientFrame(0x81, []byte(`{"type":"hello"}`))
	req := "GET /ws HTTP/1.1\r\nHost: hub\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	if _, err := conn.Write(append([]byte(req), frame...)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("answer %d, accept %q", resp.StatusCode, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	if got := <-early; !bytes.Equal(got, frame) {
		t.Fatalf("early bytes %x, want the frame %x", got, frame)
	}
}

func TestUpgradeRefusesPlainRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, err := upgrade(w, r); err == nil {
			t.Error("upgraded a plain request")
		}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
}
