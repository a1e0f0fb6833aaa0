package agentproto

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// BenchmarkCommand is the hub's side of one command: encode the cmd
// envelope, then decode the agent's cmd_resp and its result.
func BenchmarkCommand(b *testing.B) {
	args := json.RawMessage(`{"path":"C:\\game\\Config.ini"}`)
	resp, err := Encode(TypeCmdResp, "4b0c5a8e-1d2f-4c1e-9a3b-7f6e5d4c3b2a",
		Response{OK: true, Result: json.RawMessage(`{"content":"[Server]\r\nPort=7000\r\n","size":22}`)})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode-cmd", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Encode(TypeCmd, "4b0c5a8e-1d2f-4c1e-9a3b-7f6e5d4c3b2a", Command{Op: "files.str_rd", DeadlineMs: 1700000000000, Args: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What checking UTF-8 adds to one command on the hub: Encode's check
	// and gws's before writing the cmd, gws's after reading the cmd_resp.
	cmd, err := Encode(TypeCmd, "4b0c5a8e-1d2f-4c1e-9a3b-7f6e5d4c3b2a", Command{Op: "files.str_rd", DeadlineMs: 1700000000000, Args: args})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("utf8-check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range [][]byte{cmd, cmd, resp} {
				if !utf8.Valid(m) {
					b.Fatal("invalid UTF-8")
				}
			}
		}
	})
	b.Run("decode-resp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e, err := Decode(resp)
			if err != nil {
				b.Fatal(err)
			}
			var r Response
			if err := DecodeBody(e, &r); err != nil || !r.OK {
				b.Fatal(err)
			}
		}
	})
}
