package agent

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
)

// FuzzHubToAgent sends each input to a running agent as a message from its
// hub (a text message, or a binary one when binary is set), then a ping:
// whatever the input, the agent answers the ping, on the same connection
// or, if the input broke the protocol, on the next one it opens. One fake
// hub and one agent serve every input of a process.
//
// The agent runs with no operations registered (start's empty registry),
// and the fake hub speaks protocol 1, so that no input can open a terminal
// (a stream's metadata names the command it runs); the stream decoders
// have their own targets (internal/streams). A command for anything but
// agent.ping gets a deadline in the past, so that the agent decodes and
// refuses it instead of carrying out a built-in (an upgrade downloads, a
// settings change restarts the agent).
func FuzzHubToAgent(f *testing.F) {
	h := newFakeHub(f)
	h.protocol = 1
	a := start(f, h.config(f))
	a.waitConnected(f, 1)
	seeds := []string{
		`{"type":"cmd","id":"c1","body":{"op":"agent.ping","deadline_ms":0}}`,
		`{"type":"cmd","id":"c2","body":{"op":"files.dir_mk","deadline_ms":1,"args":{"path":"/x"}}}`,
		`{"type":"cmd","id":"c3","body":"not an object"}`,
		`{"type":"cmd","body":{"op":"agent.ping"}}`,
		`{"type":"heartbeat_ack","id":"h1"}`,
		`{"type":"error","id":"e1","body":{"code":"bad","message":"no"}}`,
		`{"type":"error","body":[1,2]}`,
		`{"type":"welcome","body":{"protocol":2,"host_id":"x"}}`,
		`{"type":"upgrade","id":"u1","body":{"version":"9.9.9"}}`,
		`{"type":"mystery"}`,
		`{"type":""}`,
		`{`,
		`null`,
		"{\"type\":\"cmd\",\"id\":\"\xff\"}",
	}
	for _, s := range seeds {
		f.Add(false, []byte(s))
	}
	f.Add(true, []byte{0x10, 0, 0, 0, 1, '{', '}'})
	f.Add(true, []byte{})

	var probes atomic.Int64
	f.Fuzz(func(t *testing.T, binary bool, msg []byte) {
		c := h.conn(t, h.connCount())
		op := gws.OpcodeText
		if binary {
			op = gws.OpcodeBinary
		} else {
			msg = defuse(msg)
		}
		_ = c.conn.WriteMessage(op, msg)

		id := "probe-" + strconv.FormatInt(probes.Add(1), 10)
		c.cmd(id, agentproto.OpPing, 10*time.Second, nil)
		r, ok := pingAnswer(c, id)
		if ok {
			if !r.OK {
				t.Fatalf("ping after %q answered %+v", msg, r.Error)
			}
			return
		}
		select {
		case <-c.closed:
		default:
			t.Fatalf("no answer to a ping within 15 s after %q", msg)
		}
		// The input closed the connection: the agent reconnects and
		// answers there.
		next := h.conn(t, h.connCount())
		if next == c {
			next = h.conn(t, h.connCount()+1)
		}
		next.cmd(id+"-again", agentproto.OpPing, 10*time.Second, nil)
		if r := next.resp(t, id+"-again"); !r.OK {
			t.Fatalf("ping on the new connection after %q answered %+v", msg, r.Error)
		}
	})
}

// pingAnswer waits for the cmd_resp of id on c; false if c closes first or
// nothing comes within 15 s.
func pingAnswer(c *hubConn, id string) (agentproto.Response, bool) {
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-c.msgs:
			var r agentproto.Response
			if e.Type == agentproto.TypeCmdResp && e.ID == id && agentproto.DecodeBody(e, &r) == nil {
				return r, true
			}
		case <-c.closed:
			return agentproto.Response{}, false
		case <-timeout:
			return agentproto.Response{}, false
		}
	}
}

// defuse gives a command for anything but agent.ping a deadline in the
// past, so that the agent refuses it after decoding it.
func defuse(msg []byte) []byte {
	e, err := agentproto.Decode(msg)
	if err != nil || e.Type != agentproto.TypeCmd {
		return msg // the agent never decodes its body as a command
	}
	var c agentproto.Command
	if agentproto.DecodeBody(e, &c) != nil || c.Op == agentproto.OpPing {
		return msg
	}
	var body map[string]json.RawMessage
	if json.Unmarshal(e.Body, &body) != nil {
		return msg // the agent refuses it as a malformed command
	}
	body["deadline_ms"] = json.RawMessage("1")
	out, err := agentproto.Encode(e.Type, e.ID, body)
	if err != nil {
		return nil
	}
	// The agent decodes keys case-insensitively: check what it will see,
	// and send nothing rather than a command it would run.
	if e, err = agentproto.Decode(out); err != nil || agentproto.DecodeBody(e, &c) != nil || c.DeadlineMs != 1 {
		return nil
	}
	return out
}
