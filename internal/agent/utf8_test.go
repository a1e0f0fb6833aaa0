package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/lxzan/gws"
)

// TestInvalidUTF8TextDropsConnection: a text message from the hub that is
// not valid UTF-8 closes the connection with 1007 (RFC 6455 §8.1), and
// the agent connects again.
func TestInvalidUTF8TextDropsConnection(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	_ = c.conn.WriteMessage(gws.OpcodeText, []byte(`{"type":"heartbeat_ack","id":"`+"\xff"+`"}`))
	select {
	case <-c.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent kept the connection after an invalid UTF-8 text message")
	}
	var ce *gws.CloseError
	if !errors.As(c.closeErr, &ce) || ce.Code != 1007 {
		t.Errorf("the agent closed with %v, want code 1007", c.closeErr)
	}
	h.conn(t, 2)
}
