package agentgw

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// clientFrame builds a masked frame as an agent sends it.
func clientFrame(b0 byte, payload []byte) []byte {
	var f []byte
	switch n := len(payload); {
	case n < 126:
		f = []byte{b0, 0x80 | byte(n)}
	case n < 1<<16:
		f = []byte{b0, 0x80 | 126, byte(n >> 8), byte(n)}
	default:
		f = append([]byte{b0, 0x80 | 127}, binary.BigEndian.AppendUint64(nil, uint64(n))...)
	}
	key := []byte{0x12, 0x34, 0x56, 0x78}
	f = append(f, key...)
	for i, c := range payload {
		f = append(f, c^key[i&3])
	}
	return f
}

type got struct {
	op      byte
	payload string
}

func collect(out *[]got) frameSink {
	return func(op byte, p []byte) error {
		*out = append(*out, got{op, string(p)})
		return nil
	}
}

// TestFrameReaderPieces: a stream of frames is read the same whatever
// pieces it arrives in, and nothing is held once the pieces end on a
// frame's boundary.
func TestFrameReaderPieces(t *testing.T) {
	var stream []byte
	stream = append(stream, clientFrame(0x81, []byte(`{"type":"heartbeat"}`))...)
	stream = append(stream, clientFrame(0x01, []byte("hel"))...)                // text, not final
	stream = append(stream, clientFrame(0x89, []byte("p"))...)                  // ping inside the message
	stream = append(stream, clientFrame(0x80, []byte("lo"))...)                 // final continuation
	stream = append(stream, clientFrame(0x82, bytes.Repeat([]byte{7}, 300))...) // 16-bit length
	want := []got{{opText, `{"type":"heartbeat"}`}, {opPing, "p"}, {opText, "hello"}, {opBinary, string(bytes.Repeat([]byte{7}, 300))}}
	for size := 1; size <= len(stream); size++ {
		in := bytes.Clone(stream)
		r := frameReader{max: 1 << 20}
		var out []got
		for i := 0; i < len(in); i += size {
			if err := r.feed(bytes.Clone(in[i:min(i+size, len(in))]), collect(&out)); err != nil {
				t.Fatalf("pieces of %d: %v", size, err)
			}
		}
		if len(out) != len(want) {
			t.Fatalf("pieces of %d: got %d frames, want %d", size, len(out), len(want))
		}
		for i := range want {
			if out[i] != want[i] {
				t.Fatalf("pieces of %d: frame %d is %v %.20q, want %v %.20q", size, i, out[i].op, out[i].payload, want[i].op, want[i].payload)
			}
		}
		if r.pending != nil || r.frag != nil || r.fragOp != 0 {
			t.Fatalf("pieces of %d: reader holds %d pending bytes, %d fragment bytes", size, len(r.pending), len(r.frag))
		}
	}
}

// TestFrameReaderLongFrame: a frame with a 64-bit length, read in 4 KiB
// pieces, is delivered whole, and its bytes are gathered in one buffer
// sized for it.
func TestFrameReaderLongFrame(t *testing.T) {
	payload := bytes.Repeat([]byte("abcdefgh"), 1<<15) // 256 KiB
	in := clientFrame(0x82, payload)
	r := frameReader{max: 1 << 20}
	var out []got
	var buf *byte
	for i := 0; i < len(in); i += 4096 {
		if err := r.feed(in[i:min(i+4096, len(in))], collect(&out)); err != nil {
			t.Fatal(err)
		}
		if len(r.pending) > 0 {
			if buf != nil && &r.pending[0] != buf {
				t.Fatalf("piece at %d moved the frame's buffer", i)
			}
			buf = &r.pending[0]
		}
	}
	if len(out) != 1 || out[0].payload != string(payload) {
		t.Fatalf("got %d messages", len(out))
	}
}

// TestFrameReaderFails: frames that break RFC 6455 for a server fail the
// connection with the close code the RFC names.
func TestFrameReaderFails(t *testing.T) {
	unmasked := clientFrame(0x81, []byte("hi"))
	unmasked[1] &^= 0x80
	for _, c := range []struct {
		name string
		in   []byte
		code uint16
	}{
		{"unmasked", unmasked, closeProtocol},
		{"reserved bit", clientFrame(0xC1, []byte("hi")), closeProtocol},
		{"reserved opcode", clientFrame(0x83, []byte("hi")), closeProtocol},
		{"fragmented ping", clientFrame(0x09, nil), closeProtocol},
		{"long ping", clientFrame(0x89, make([]byte, 126)), closeProtocol},
		{"continuation first", clientFrame(0x80, []byte("x")), closeProtocol},
		{"message inside a message", append(clientFrame(0x01, []byte("a")), clientFrame(0x81, []byte("b"))...), closeProtocol},
		{"too large", clientFrame(0x82, make([]byte, 101)), closeTooLarge},
		{"too large in fragments", append(clientFrame(0x02, make([]byte, 60)), clientFrame(0x80, make([]byte, 60))...), closeTooLarge},
		{"text not UTF-8", clientFrame(0x81, []byte("a\xffb")), closeInvalidData},
		{"fragmented text not UTF-8", append(clientFrame(0x01, []byte("a\xc3")), clientFrame(0x80, []byte("("))...), closeInvalidData},
	} {
		r := frameReader{max: 100}
		var out []got
		err := r.feed(c.in, collect(&out))
		var fe *frameError
		if !errors.As(err, &fe) || fe.code != c.code {
			t.Errorf("%s: error %v, want close code %d", c.name, err, c.code)
		}
		if len(out) != 0 {
			t.Errorf("%s: delivered %v", c.name, out)
		}
	}
}

// TestFrameReaderUTF8AcrossFragments: a character split between two
// fragments of a text message is valid.
func TestFrameReaderUTF8AcrossFragments(t *testing.T) {
	r := frameReader{max: 100}
	var out []got
	in := append(clientFrame(0x01, []byte("caf\xc3")), clientFrame(0x80, []byte("\xa9"))...)
	if err := r.feed(in, collect(&out)); err != nil || len(out) != 1 || out[0].payload != "café" {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestCloseReply(t *testing.T) {
	for _, c := range []struct {
		payload     []byte
		reply, code uint16
	}{
		{nil, closeNormal, 0},
		{[]byte{3}, closeProtocol, 3},
		{[]byte{0x03, 0xE8}, closeNormal, 1000},
		{[]byte{0x03, 0xED}, closeProtocol, 1005},
		{[]byte{0x0B, 0xB8, 'o', 'k'}, 3000, 3000},
		{[]byte{0x0F, 0xA3}, 4003, 4003},
		{[]byte{0x03, 0xE8, 0xff}, closeInvalidData, 1000},
		{[]byte{0x13, 0x88}, closeProtocol, 5000},
	} {
		reply, code, _ := closeReply(c.payload)
		if reply != c.reply || code != c.code {
			t.Errorf("close %x: reply %d code %d, want %d %d", c.payload, reply, code, c.reply, c.code)
		}
	}
}

// TestTableSweep: slots are reused after a session ends, and the sweep
// finds exactly the sessions past their deadline.
func TestTableSweep(t *testing.T) {
	var tb table
	now := time.Now()
	a, b, c := &session{}, &session{}, &session{}
	a.deadline.Store(now.Add(-time.Second).UnixNano())
	b.deadline.Store(now.Add(time.Minute).UnixNano())
	c.deadline.Store(now.Add(-time.Millisecond).UnixNano())
	for _, s := range []*session{a, b, c} {
		tb.put(s)
	}
	if tb.get(a.slot) != a || tb.get(b.slot) != b || tb.get(c.slot) != c || tb.get(99) != nil {
		t.Fatal("get does not return the session in its slot")
	}
	late := tb.late(now)
	if len(late) != 2 || late[0] != a || late[1] != c {
		t.Fatalf("late: %v, want a and c", late)
	}
	tb.remove(a)
	tb.remove(a) // a second removal frees nothing
	if tb.get(a.slot) != nil {
		t.Fatal("removed session still in its slot")
	}
	d := &session{}
	tb.put(d)
	if d.slot != a.slot || len(tb.slots) != 3 || len(tb.free) != 0 {
		t.Fatalf("slot %d not reused (slots %d, free %v)", d.slot, len(tb.slots), tb.free)
	}
}
