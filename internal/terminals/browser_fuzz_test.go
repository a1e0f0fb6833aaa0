package terminals

import (
	"encoding/json"
	"testing"

	"hostgate/internal/agentproto"
)

// quietSocket is a browser socket that keeps only the last close code.
type quietSocket struct{ closes int }

func (*quietSocket) WriteBinary([]byte) error { return nil }
func (*quietSocket) WriteText([]byte) error   { return nil }
func (*quietSocket) WritePing() error         { return nil }
func (q *quietSocket) WriteClose(uint16, []byte) error {
	q.closes++
	return nil
}
func (*quietSocket) Drop() {}

// FuzzBrowserMessages hands a browser terminal's messages to its Browser:
// in is cut into messages, each a header byte (bit 0: binary) and a
// length byte, then the bytes. Whatever they are, no panic; every size
// that reaches the terminal is 1..MaxTermSize; what reaches its input is
// exactly the binary messages and the "input" control messages, in order,
// up to a message that made the hub close the socket; and the terminal
// closes when the browser leaves.
func FuzzBrowserMessages(f *testing.F) {
	msg := func(binary bool, s string) []byte {
		h := byte(0)
		if binary {
			h = 1
		}
		return append([]byte{h, byte(len(s))}, s...)
	}
	join := func(ms ...[]byte) []byte {
		var out []byte
		for _, m := range ms {
			out = append(out, m...)
		}
		return out
	}
	f.Add(join(msg(true, "ls\n"), msg(false, `{"type":"input","data":"pwd\n"}`), msg(false, `{"type":"resize","cols":120,"rows":40}`)))
	f.Add(join(msg(false, `{"type":"resize","cols":0,"rows":70000}`), msg(false, `{"type":"resize","cols":-1}`)))
	f.Add(join(msg(false, `{"type":"mystery"}`), msg(false, `{"type":"input","data":""}`), msg(true, "")))
	f.Add(join(msg(false, "not json"), msg(true, "after")))
	f.Add(join(msg(false, `{"type":"input","data":"\ud800"}`), msg(false, `{"type":"resize","cols":"80"}`), msg(false, `[1]`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		sock := &quietSocket{}
		term, b := aliceBrowser(t, sock)
		var want []byte
		for len(in) >= 2 {
			binary, n := in[0]&1 == 1, min(int(in[1]), len(in)-2)
			data := in[2 : 2+n]
			in = in[2+n:]
			if sock.closes > 0 {
				break // the browser is gone
			}
			b.Message(binary, data)
			var ctl Control
			switch {
			case binary:
				want = append(want, data...)
			case json.Unmarshal(data, &ctl) == nil && ctl.Type == "input":
				want = append(want, ctl.Data...)
			}
		}
		if got := term.input(); sock.closes == 0 && got != string(want) {
			t.Fatalf("the terminal got %q, want %q", got, want)
		}
		term.mu.Lock()
		sizes := term.sizes
		term.mu.Unlock()
		for _, sz := range sizes {
			if sz[0] < 1 || sz[1] < 1 || sz[0] > agentproto.MaxTermSize || sz[1] > agentproto.MaxTermSize {
				t.Fatalf("resized to %v", sz)
			}
		}
		b.Closed()
		<-term.done
	})
}
