package httpapi_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// slowBound is the header and body timeout of these tests' hub.
const slowBound = 500 * time.Millisecond

func slowHub(t *testing.T) *hubtest.Hub {
	t.Helper()
	return hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_HTTP_HEADER_TIMEOUT", slowBound.String()),
		hubtest.WithEnv("HOSTGATE_HTTP_BODY_TIMEOUT", slowBound.String()))
}

// dial opens a raw connection to h, closed when the test ends, that
// gives up reading after a generous bound (so a hub that never cuts it
// fails the test instead of hanging it).
func dial(t *testing.T, h *hubtest.Hub) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetReadDeadline(time.Now().Add(20 * slowBound)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// wantClosed reads conn to its end and fails unless the hub closed it
// (rather than the test's own read deadline passing).
func wantClosed(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		t.Fatalf("%s: the hub kept the connection open past %v", what, 20*slowBound)
	}
}

// TestSilentClientIsCut: a client that opens a connection and sends
// nothing is cut after the header timeout.
func TestSilentClientIsCut(t *testing.T) {
	t.Parallel()
	h := slowHub(t)
	conn := dial(t, h)
	start := time.Now()
	wantClosed(t, conn, "a silent client")
	if took := time.Since(start); took < slowBound*8/10 {
		t.Errorf("cut after %v, before the header timeout %v", took, slowBound)
	}
}

// TestByteByByteAgentUpgradeIsCut: the agent socket's upgrade request
// sent a byte at a time never completes: the hub cuts the connection
// once the header timeout has passed, whatever still trickles in.
func TestByteByByteAgentUpgradeIsCut(t *testing.T) {
	t.Parallel()
	h := slowHub(t)
	conn := dial(t, h)
	req := "GET " + agentproto.PathWS + " HTTP/1.1\r\nHost: hub\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer at_x\r\n\r\n"
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_, _ = io.Copy(io.Discard, conn)
	}()
	// One byte every 20 ms: the request would take about 4 s whole.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	start, sent := time.Now(), 0
	for sent < len(req) {
		select {
		case <-closed:
			if took := time.Since(start); took > 4*slowBound {
				t.Errorf("cut after %v, want about %v", took, slowBound)
			}
			t.Logf("cut after %d of %d bytes, %v", sent, len(req), time.Since(start).Round(time.Millisecond))
			return
		case <-tick.C:
			if _, err := conn.Write([]byte{req[sent]}); err != nil {
				<-closed
				t.Logf("cut after %d of %d bytes, %v", sent, len(req), time.Since(start).Round(time.Millisecond))
				return
			}
			sent++
		}
	}
	t.Fatalf("the whole upgrade request went in a byte at a time over %v: not cut", time.Since(start))
}

// TestSlowBodyIsCut: a request whose body stops coming is answered 408
// body_timeout after the body timeout, and its connection closed.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	h := slowHub(t)
	conn := dial(t, h)
	start := time.Now()
	_, err := io.WriteString(conn, "POST /v1/public/auth/login HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\n"+
		"Content-Length: 100\r\n\r\n{\"email\":")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var p struct{ Error, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 408 || p.Error != "body_timeout" {
		t.Fatalf("got %d %+v, want 408 body_timeout", resp.StatusCode, p)
	}
	if took := time.Since(start); took < slowBound*8/10 || took > 6*slowBound {
		t.Errorf("answered after %v, want about %v", took, slowBound)
	}
	_, err = io.Copy(io.Discard, br)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		t.Fatal("the connection stayed open after the body timeout")
	}
}
