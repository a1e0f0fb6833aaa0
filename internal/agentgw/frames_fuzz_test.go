package agentgw

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf8"
)

// readAll feeds b to a fresh frameReader in the given pieces and records
// every message and control frame it hands over, then the error.
func readAll(b []byte, cuts []int, maxMsg int) (got []string, err error) {
	r := &frameReader{max: maxMsg}
	sink := func(op byte, payload []byte) error {
		if op == opText && !utf8.Valid(payload) {
			return fmt.Errorf("text message handed over that is not UTF-8: %q", payload)
		}
		if op < opClose && len(payload) > maxMsg {
			return fmt.Errorf("message of %d bytes handed over, max %d", len(payload), maxMsg)
		}
		got = append(got, fmt.Sprintf("%d:%x", op, payload))
		return nil
	}
	prev := 0
	for _, c := range append(cuts, len(b)) {
		if c < prev || c > len(b) {
			continue
		}
		// A copy, as a pooled read buffer would be reused after the call.
		piece := append([]byte(nil), b[prev:c]...)
		if err := r.feed(piece, sink); err != nil {
			return got, err
		}
		prev = c
	}
	return got, nil
}

// FuzzFrameReader: whatever bytes an agent sends, in whatever pieces the
// socket delivers them, the hub's frame reader never panics, hands over
// only whole messages within the size limit (text only as UTF-8), and
// reads the same messages and stops with the same error however the
// bytes were cut.
func FuzzFrameReader(f *testing.F) {
	f.Add(clientFrame(0x81, []byte(`{"type":"heartbeat"}`)), 3, 9)
	f.Add(append(clientFrame(0x01, []byte("hel")), clientFrame(0x80, []byte("lo"))...), 1, 7)
	f.Add(clientFrame(0x89, []byte("ping")), 0, 2)
	f.Add(clientFrame(0x88, []byte{0x03, 0xe8, 'b', 'y', 'e'}), 2, 4)
	f.Add(clientFrame(0x82, bytes.Repeat([]byte{7}, 300)), 5, 200)
	f.Add(clientFrame(0x82, bytes.Repeat([]byte{7}, 70000)), 11, 40000)
	f.Add([]byte{0x81, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1, 3)
	f.Add([]byte{0xf1, 0x80, 0, 0, 0, 0}, 1, 2)
	f.Fuzz(func(t *testing.T, b []byte, c1, c2 int) {
		const maxMsg = 1 << 16
		whole, werr := readAll(b, nil, maxMsg)
		cut, cerr := readAll(b, []int{c1, c2}, maxMsg)
		if (werr == nil) != (cerr == nil) || (werr != nil && werr.Error() != cerr.Error()) {
			t.Fatalf("error whole %v, in pieces at %d,%d %v", werr, c1, c2, cerr)
		}
		if len(whole) != len(cut) {
			t.Fatalf("whole read %d frames, in pieces %d", len(whole), len(cut))
		}
		for i := range whole {
			if whole[i] != cut[i] {
				t.Fatalf("frame %d: whole %s, in pieces %s", i, whole[i], cut[i])
			}
		}
	})
}
