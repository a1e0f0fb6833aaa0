package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
)

// TestMalformedStreamFrameDropsConnection: with a hub of protocol 2, a
// binary message is a stream frame, and a malformed one breaks the
// protocol: the agent closes with 1002 and connects again.
func TestMalformedStreamFrameDropsConnection(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	_ = c.conn.WriteMessage(gws.OpcodeBinary, []byte{0xff})
	select {
	case <-c.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent kept the connection after a malformed stream frame")
	}
	var ce *gws.CloseError
	if !errors.As(c.closeErr, &ce) || ce.Code != closeProtocolError {
		t.Errorf("the agent closed with %v, want code %d", c.closeErr, closeProtocolError)
	}
	h.conn(t, 2)
}

// TestBinaryIgnoredFromProtocol1Hub: a hub of protocol 1 has no streams;
// its binary messages are ignored as before, and shell.resize finds no
// terminal.
func TestBinaryIgnoredFromProtocol1Hub(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.protocol = 1
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	_ = c.conn.WriteMessage(gws.OpcodeBinary, []byte{0xff})
	id := uuid.NewString()
	c.cmd(id, agentproto.OpPing, 5*time.Second, nil)
	if r := c.resp(t, id); !r.OK {
		t.Fatalf("ping after a binary message: %+v", r.Error)
	}
	select {
	case <-c.closed:
		t.Fatalf("the agent closed the connection: %v", c.closeErr)
	default:
	}
	id = uuid.NewString()
	c.cmd(id, agentproto.OpShellResize, 5*time.Second, agentproto.ShellResize{StreamID: 1, Cols: 80, Rows: 24})
	if r := c.resp(t, id); r.OK || r.Error.Code != agentproto.CodeUnknownStream {
		t.Fatalf("resize without streams: got %+v, want %s", r, agentproto.CodeUnknownStream)
	}
}

// TestShellResizeChecksArgs: a bad size is refused before any lookup.
func TestShellResizeChecksArgs(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	for _, give := range []agentproto.ShellResize{{StreamID: 1}, {Cols: 80, Rows: 24}, {StreamID: 1, Cols: 70000, Rows: 24}} {
		id := uuid.NewString()
		c.cmd(id, agentproto.OpShellResize, 5*time.Second, give)
		if r := c.resp(t, id); r.OK || r.Error.Code != agentproto.CodeBadArgs {
			t.Errorf("resize %+v: got %+v, want %s", give, r, agentproto.CodeBadArgs)
		}
	}
}
