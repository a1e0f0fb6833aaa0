package agentproto

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	msg, err := Encode(TypeCmd, "id-1", Command{Op: OpPing, DeadlineMs: 42})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Decode(msg)
	if err != nil || e.Type != TypeCmd || e.ID != "id-1" {
		t.Fatalf("got %+v, %v", e, err)
	}
	var c Command
	if err := DecodeBody(e, &c); err != nil || c.Op != OpPing || c.DeadlineMs != 42 {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct{ name, give string }{
		{"not json", "hello"},
		{"no type", `{"id":"x"}`},
		{"long id", `{"type":"cmd","id":"` + strings.Repeat("x", 129) + `"}`},
		{"array", `[1]`},
	}
	for _, tt := range tests {
		if _, err := Decode([]byte(tt.give)); err == nil {
			t.Errorf("%s: Decode accepted %q", tt.name, tt.give)
		}
	}
	if err := DecodeBody(Envelope{Type: TypeCmd}, &Command{}); err == nil {
		t.Error("DecodeBody accepted a missing body")
	}
	if _, err := Decode(bytes.Repeat([]byte(" "), MaxMessage+1)); err == nil {
		t.Error("Decode accepted an oversized message")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"hello","body":{"protocol":1}}`, `{"type":"cmd_resp","id":"a","body":{"ok":true}}`, `{}`, `[`, ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		e, err := Decode(msg)
		if err != nil {
			return
		}
		if e.Type == "" || len(e.ID) > 128 {
			t.Fatalf("accepted an invalid envelope %+v", e)
		}
		var anyBody map[string]any
		_ = DecodeBody(e, &anyBody)
		if _, err := Encode(e.Type, e.ID, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestEncodeIsUTF8: a message is sent as a WebSocket text frame, which
// must be UTF-8 (both ends close with 1007 otherwise, and gws refuses to
// write one). encoding/json copies a json.RawMessage as it is, so invalid
// bytes in a client's args would pass; Encode replaces them with U+FFFD,
// as encoding/json does in a Go string.
func TestEncodeIsUTF8(t *testing.T) {
	args := json.RawMessage("{\"path\":\"C:\\\\a\xffb\",\"data\":\"ok\xc3\"}")
	msg, err := Encode(TypeCmd, "id-1", Command{Op: "files.str_rd", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(msg) {
		t.Fatalf("Encode produced invalid UTF-8: %q", msg)
	}
	e, err := Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	var c Command
	if err := DecodeBody(e, &c); err != nil {
		t.Fatal(err)
	}
	var got ControlArgs
	if err := json.Unmarshal(c.Args, &got); err != nil {
		t.Fatal(err)
	}
	if got.Path != "C:\\a\uFFFDb" || string(got.Data) != "\"ok\uFFFD\"" {
		t.Errorf("args after the round trip: %+v (data %s)", got, got.Data)
	}
}

func TestChangeWatchDirArgs(t *testing.T) {
	for path, ok := range map[string]bool{
		"/srv/in": true, `C:\in`: true, "d:/in": true, `\\server\share`: true,
		"": false, "rel": false, "C:rel": false, "1:/x": false, "./x": false,
	} {
		err := ValidateArgs(CtlChangeWatchDir, ControlArgs{Path: path})
		if (err == nil) != ok {
			t.Errorf("%q: %v", path, err)
		}
	}
	if ValidateArgs(CtlChangeWatchDir, ControlArgs{Path: "/x", Data: json.RawMessage(`"y"`)}) == nil {
		t.Error("data accepted")
	}
}
