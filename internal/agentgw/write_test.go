package agentgw

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"
)

// TestWriteToAnAgentThatStoppedReadingFails: once the socket's buffers are
// full, a write ends with an error at its deadline instead of holding its
// caller, the socket closes, and Close does not wait for the stuck write.
func TestWriteToAnAgentThatStoppedReadingFails(t *testing.T) {
	server := make(chan net.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := upgrade(w, r)
		if err != nil {
			t.Error(err)
			return
		}
		server <- c
	}))
	defer srv.Close()
	// The agent connects and never reads.
	agent, _, err := gws.NewClient(gws.BuiltinEventHandler{}, &gws.ClientOption{Addr: "ws" + strings.TrimPrefix(srv.URL, "http")})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.NetConn().Close()
	s := &session{raw: <-server, writeGrace: 200 * time.Millisecond}

	msg := make([]byte, 16<<10)
	failed := make(chan error, 1)
	go func() {
		for {
			if err := s.WriteMessage(msg); err != nil {
				failed <- err
				return
			}
		}
	}()
	var err1 error
	select {
	case err1 = <-failed:
	case <-time.After(30 * time.Second):
		t.Fatal("writes to an agent that reads nothing never failed")
	}
	var ne interface{ Timeout() bool }
	if !errors.As(err1, &ne) || !ne.Timeout() {
		t.Errorf("failed write: got %v, want a timeout", err1)
	}
	if err := s.WriteMessage([]byte("{}")); err == nil {
		t.Error("a write after the failed one succeeded: the socket should be closed")
	}
	closed := make(chan struct{})
	go func() { s.Close("test"); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited")
	}
}

func TestWriteTimeoutGrowsWithTheMessage(t *testing.T) {
	if got, want := writeTimeout(writeGrace, 4<<20), writeGrace+64*time.Second; got != want {
		t.Errorf("writeTimeout(4 MiB) = %v, want %v", got, want)
	}
	if got, want := writeTimeout(time.Second, 32<<10), 1500*time.Millisecond; got != want {
		t.Errorf("writeTimeout(1 s, 32 KiB) = %v, want %v", got, want)
	}
}
