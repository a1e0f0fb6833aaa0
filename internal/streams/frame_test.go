package streams

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	frames := []Frame{
		{Type: TypeOpen, Stream: 1, Data: []byte{}},
		{Type: TypeOpen, Stream: 3, Data: []byte(`{"kind":"pty","cols":80,"rows":24}`)},
		{Type: TypeOpen, Stream: 5, Data: bytes.Repeat([]byte{'m'}, MaxMeta)},
		{Type: TypeData, Stream: 2, Data: []byte("x")},
		{Type: TypeData, Stream: 1<<32 - 1, Data: bytes.Repeat([]byte{0xff}, MaxPayload)},
		{Type: TypeWindow, Stream: 7, Credit: 1},
		{Type: TypeWindow, Stream: 7, Credit: 1<<32 - 1},
		{Type: TypeEOF, Stream: 9},
		{Type: TypeClose, Stream: 4, Code: CodeNormal},
		{Type: TypeClose, Stream: 4, Code: CodeApp, Reason: "shell: exec failed — ünïcode"},
		{Type: TypeClose, Stream: 4, Code: 200, Reason: strings.Repeat("r", MaxReason)},
	}
	for _, f := range frames {
		b, err := f.AppendBinary(nil)
		if err != nil {
			t.Fatalf("encode %v: %v", f.Type, err)
		}
		if b[0] != Version<<4|byte(f.Type) {
			t.Errorf("%v: first byte %#x", f.Type, b[0])
		}
		got, err := DecodeFrame(b)
		if err != nil {
			t.Fatalf("decode %v: %v", f.Type, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, f)
		}
	}
}

func TestFrameLayout(t *testing.T) {
	b, _ := Frame{Type: TypeWindow, Stream: 0x01020304, Credit: 0x00040000}.AppendBinary(nil)
	want := []byte{0x13, 1, 2, 3, 4, 0, 4, 0, 0}
	if !bytes.Equal(b, want) {
		t.Fatalf("WINDOW = % x, want % x", b, want)
	}
	b, _ = Frame{Type: TypeClose, Stream: 2, Code: CodeRefused, Reason: "no"}.AppendBinary(nil)
	want = []byte{0x15, 0, 0, 0, 2, 1, 'n', 'o'}
	if !bytes.Equal(b, want) {
		t.Fatalf("CLOSE = % x, want % x", b, want)
	}
}

func TestDecodeRejects(t *testing.T) {
	big := append([]byte{0x12, 0, 0, 0, 1}, make([]byte, MaxPayload+1)...)
	bigMeta := append([]byte{0x11, 0, 0, 0, 1}, make([]byte, MaxMeta+1)...)
	longReason := append([]byte{0x15, 0, 0, 0, 1, 0}, strings.Repeat("r", MaxReason+1)...)
	cases := map[string][]byte{
		"empty":            nil,
		"short header":     {0x12, 0, 0, 1},
		"version 0":        {0x02, 0, 0, 0, 1, 'x'},
		"version 2":        {0x22, 0, 0, 0, 1, 'x'},
		"type 0":           {0x10, 0, 0, 0, 1},
		"type 6":           {0x16, 0, 0, 0, 1},
		"type 15":          {0x1f, 0, 0, 0, 1},
		"stream 0":         {0x12, 0, 0, 0, 0, 'x'},
		"empty data":       {0x12, 0, 0, 0, 1},
		"oversize data":    big,
		"oversize meta":    bigMeta,
		"short window":     {0x13, 0, 0, 0, 1, 0, 0, 1},
		"long window":      {0x13, 0, 0, 0, 1, 0, 0, 0, 1, 0},
		"zero window":      {0x13, 0, 0, 0, 1, 0, 0, 0, 0},
		"eof with payload": {0x14, 0, 0, 0, 1, 0},
		"close no code":    {0x15, 0, 0, 0, 1},
		"close bad utf8":   {0x15, 0, 0, 0, 1, 0, 0xff, 0xfe},
		"close long":       longReason,
	}
	for name, msg := range cases {
		if f, err := DecodeFrame(msg); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: DecodeFrame = %+v, %v; want ErrMalformed", name, f, err)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	bad := []Frame{
		{Type: TypeData, Stream: 1},
		{Type: TypeData, Stream: 0, Data: []byte("x")},
		{Type: TypeWindow, Stream: 1},
		{Type: 9, Stream: 1},
		{Type: TypeClose, Stream: 1, Reason: "\xff"},
	}
	for _, f := range bad {
		if _, err := f.AppendBinary(nil); err == nil {
			t.Errorf("AppendBinary(%+v) succeeded", f)
		}
	}
}

func FuzzDecodeFrame(f *testing.F) {
	for _, fr := range []Frame{
		{Type: TypeOpen, Stream: 1, Data: []byte("meta")},
		{Type: TypeData, Stream: 2, Data: []byte("hello")},
		{Type: TypeWindow, Stream: 3, Credit: 65536},
		{Type: TypeEOF, Stream: 4},
		{Type: TypeClose, Stream: 5, Code: CodeApp, Reason: "bye"},
	} {
		b, _ := fr.AppendBinary(nil)
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0x2f, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, msg []byte) {
		fr, err := DecodeFrame(msg)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		// A frame that decodes encodes back to the same bytes.
		b, err := fr.AppendBinary(nil)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", fr, err)
		}
		if !bytes.Equal(b, msg) {
			t.Fatalf("re-encoded % x, decoded from % x", b, msg)
		}
	})
}
