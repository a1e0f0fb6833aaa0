package streams

import (
	"context"
	"errors"
	"testing"
)

// discard is a Transport that drops what the mux sends.
type discard struct{}

func (discard) WriteBinary([]byte) error { return nil }

// splitFrames cuts a fuzz input into binary messages: each is a length
// byte, then that many bytes (fewer at the end).
func splitFrames(in []byte) [][]byte {
	var msgs [][]byte
	for len(in) > 0 {
		n := min(int(in[0]), len(in)-1)
		msgs = append(msgs, in[1:1+n])
		in = in[1+n:]
	}
	return msgs
}

// FuzzMuxDeliver hands a sequence of binary messages from the peer to a
// Mux (the hub's, or the agent's when agent is set) holding one stream of
// its own and accepting the peer's: every message is served or refused
// with an error wrapping ErrMalformed, never a panic; after Close, Accept
// and every stream's Read and Write end with an error instead of
// blocking.
func FuzzMuxDeliver(f *testing.F) {
	enc := func(fr Frame) []byte {
		b, err := fr.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		return append([]byte{byte(len(b))}, b...)
	}
	cat := func(fs ...Frame) []byte {
		var out []byte
		for _, fr := range fs {
			out = append(out, enc(fr)...)
		}
		return out
	}
	for _, agent := range []bool{false, true} {
		peer, own := uint32(2), uint32(1)
		if agent {
			peer, own = 1, 2
		}
		f.Add(agent, cat(Frame{Type: TypeOpen, Stream: peer, Data: []byte(`{"kind":"shell"}`)},
			Frame{Type: TypeData, Stream: peer, Data: []byte("ls\n")},
			Frame{Type: TypeWindow, Stream: peer, Credit: 1024},
			Frame{Type: TypeEOF, Stream: peer},
			Frame{Type: TypeClose, Stream: peer, Code: CodeNormal}))
		f.Add(agent, cat(Frame{Type: TypeData, Stream: own, Data: []byte("out")},
			Frame{Type: TypeWindow, Stream: own, Credit: 1<<31 - 1},
			Frame{Type: TypeWindow, Stream: own, Credit: 1<<31 - 1},
			Frame{Type: TypeClose, Stream: own, Code: CodeApp, Reason: "bye"}))
		f.Add(agent, cat(Frame{Type: TypeOpen, Stream: peer}, Frame{Type: TypeOpen, Stream: peer},
			Frame{Type: TypeOpen, Stream: own}, Frame{Type: TypeEOF, Stream: peer}, Frame{Type: TypeData, Stream: peer, Data: []byte("late")}))
	}
	f.Add(false, []byte{5, 0x2f, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, agent bool, in []byte) {
		role := RoleHub
		if agent {
			role = RoleAgent
		}
		m := New(discard{}, Config{Role: role, MaxStreams: 8, AcceptBacklog: 4})
		own, err := m.Open(context.Background(), []byte("meta"))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		for _, msg := range splitFrames(in) {
			if err := m.Deliver(msg); err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("Deliver(% x): %v does not wrap ErrMalformed", msg, err)
				}
				break // the connection is dropped
			}
		}
		m.Close()
		streams := []*Stream{own}
		for {
			s, err := m.Accept(context.Background())
			if err != nil {
				break
			}
			streams = append(streams, s)
		}
		buf := make([]byte, 512)
		for _, s := range streams {
			for i := 0; ; i++ {
				if _, err := s.Read(buf); err != nil {
					break
				}
				if i > 1<<16 {
					t.Fatalf("stream %d still reads after its mux closed", s.ID())
				}
			}
			if _, err := s.Write([]byte("x")); err == nil {
				t.Fatalf("stream %d writes after its mux closed", s.ID())
			}
		}
	})
}
