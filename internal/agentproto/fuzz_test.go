package agentproto

import (
	"bytes"
	"encoding/json"
	"testing"
)

// bodyKinds is every type a side of the protocol decodes from the other:
// the envelope bodies both ways, the HTTP enrolment and heartbeat bodies,
// the data of the controls and the results the hub reads from a
// cmd_resp. FuzzDecodeBodies picks one by its index.
var bodyKinds = []func() any{
	func() any { return new(Hello) }, func() any { return new(Welcome) }, func() any { return new(Error) },
	func() any { return new(Command) }, func() any { return new(Response) }, func() any { return new(Metrics) },
	func() any { return new(Event) }, func() any { return new(Upgrade) }, func() any { return new(UpgradeAccepted) },
	func() any { return new(UpgradeReport) }, func() any { return new(Pong) },
	func() any { return new(OnlineRequest) }, func() any { return new(TokenResponse) }, func() any { return new(RefreshRequest) },
	func() any { return new(ChallengeResponse) }, func() any { return new(HeartbeatRequest) }, func() any { return new(HeartbeatResponse) },
	func() any { return new(SettingsUpdate) }, func() any { return new(SettingsRequest) }, func() any { return new(SettingsResponse) },
	func() any { return new(StreamMeta) }, func() any { return new(ShellResize) }, func() any { return new(TerminalExit) },
	func() any { return new(RawControl) }, func() any { return new(ControlArgs) },
	func() any { return new(DownloadData) }, func() any { return new(ShellData) }, func() any { return new(KillData) },
	func() any { return new(OrchestrateStartData) }, func() any { return new(OrchestrateShutdownData) },
	func() any { return new(ServiceData) }, func() any { return new(RegistryData) }, func() any { return new(TaskData) },
	func() any { return new(FileResult) }, func() any { return new(ReadResult) }, func() any { return new(RemoveStringResult) },
	func() any { return new(UnzipResult) }, func() any { return new(DownloadResult) }, func() any { return new(ExecResult) },
	func() any { return new(ShellResult) }, func() any { return new(KillResult) }, func() any { return new(ProcessListResult) },
	func() any { return new(SystemInfo) }, func() any { return new(WatchDirResult) },
	func() any { return new(OrchestrateStartResult) }, func() any { return new(OrchestrateShutdownResult) },
	func() any { return new(ServiceResult) }, func() any { return new(RegistryResult) }, func() any { return new(TaskResult) },
}

// FuzzDecodeBodies decodes a body as one of bodyKinds (kind picks it) the
// way the receivers do (DecodeBody), then checks it as they do (Validate)
// when the type has a check: errors, never panics; and what decodes
// encodes to a body that decodes again to the same encoding.
func FuzzDecodeBodies(f *testing.F) {
	seeds := []string{
		`{"protocol":2,"agent_version":"1.0.0","os":"linux","hostname":"h","settings_fp":"x"}`,
		`{"protocol":2,"host_id":"h","heartbeat_s":25,"metrics_s":60,"server_time_ms":1}`,
		`{"op":"agent.ping","deadline_ms":1,"args":{"path":"/x","data":{"a":1}}}`,
		`{"ok":true,"result":{"exit_code":0,"stdout":"x"}}`,
		`{"kind":"shell","cols":80,"rows":24,"command":["sh","-c","x"]}`,
		`{"stream_id":1,"cols":80,"rows":24}`,
		`{"url":"https://example.com/x","sha256":"00","max_bytes":1,"timeout_s":1}`,
		`{"action":"write","name":"v","type":"dword","value":1}`,
		`{"controller_exe":"c.exe","enabled":{"a":true},"ports":{"sec/key":1}}`,
		`{"expires_at":"2026-11-27T00:00:00+01:00"}`,
		`{"cpu_pct":1e308,"mem_used_bytes":-1}`,
		`null`, `[]`, `"x"`, `{`, ``,
	}
	for i := range bodyKinds {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		mk := bodyKinds[int(kind)%len(bodyKinds)]
		v := mk()
		if DecodeBody(Envelope{Type: "fuzz", Body: body}, v) != nil {
			return
		}
		switch c := v.(type) {
		case interface{ Validate() error }:
			_ = c.Validate()
		case interface{ Validate(string) error }:
			_ = c.Validate("/fuzz")
			_ = c.Validate("")
		}
		once, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T decoded from %q does not encode: %v", v, body, err)
		}
		w := mk()
		if err := json.Unmarshal(once, w); err != nil {
			t.Fatalf("%T: its own encoding %s does not decode: %v", v, once, err)
		}
		twice, err := json.Marshal(w)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("%T: encoding not stable: %s then %s (%v)", v, once, twice, err)
		}
	})
}
