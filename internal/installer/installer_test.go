package installer

import (
	"encoding/json"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

func creds() hosts.Credentials {
	return hosts.Credentials{
		Issued: agentproto.Issued{
			HostID: "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11", BID: 42, SecretKey: "00112233445566778899aabbccddeeff",
			InstallToken: "tok-123", AgentPrivkeySeed: "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=", AgentPubkey: "ed25519:6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=",
			APIEndpoint: "https://hub.example.com", WSURL: "wss://hub.example.com/v1/internal/agent/ws",
			ListenPort: 23456,
		},
		ExeURL: "https://dl.example.com/a'gent.exe", ExeSHA256: strings.Repeat("AB", 32),
	}
}

func TestPowerShellHandsTheCredentialsOnStdin(t *testing.T) {
	s, err := Render(PS1, creds())
	if err != nil {
		t.Fatal(err)
	}
	body := string(s.Body)
	for _, want := range []string{
		`$setup = '{"host_id":"0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11","bid":42,"secret_key":"00112233445566778899aabbccddeeff",` +
			`"install_token":"tok-123","agent_privkey_seed":"BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=","agent_pubkey":"ed25519:6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=",` +
			`"ws_url":"wss://hub.example.com/v1/internal/agent/ws","api_endpoint":"https://hub.example.com","listen_port":23456}'`,
		"\r\n$setup | & $exe --install-template --setup-from -\r\n",
		"'https://dl.example.com/a''gent.exe'", "-ne '" + strings.Repeat("ab", 32) + "'",
		"Write-Error 'agent executable checksum mismatch; nothing was installed' -ErrorAction Continue; exit 5 }",
		"\r\nexit $code\r\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("script lacks %q:\n%s", want, body)
		}
	}
	// No secret on the agent's command line: the only line running it
	// names no credential flag.
	for _, flag := range []string{"--secret-key", "--install-token", "--agent-privkey-seed", "exit 4"} {
		if strings.Contains(body, flag) {
			t.Errorf("script has %q", flag)
		}
	}
	if s.FileName != "install-0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11.ps1" || !strings.HasPrefix(s.ContentType, "text/plain") {
		t.Errorf("file %q type %q", s.FileName, s.ContentType)
	}
}

func TestSetupJSONIsASCII(t *testing.T) {
	c := creds()
	c.URL = "https://bücher.example/r?a=<b>&c='d'"
	got := setupJSON(c)
	for _, r := range got {
		if r >= 0x80 {
			t.Fatalf("non-ASCII in %s", got)
		}
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(got), &back); err != nil || back["report_url"] != c.URL {
		t.Errorf("%v %v", err, back["report_url"])
	}
}

// The .cmd carries the .ps1 after its batch lines and has powershell.exe
// read it from the file: no secret is on any command line.
func TestCmdCarriesTheSameScriptOffTheCommandLine(t *testing.T) {
	ps, _ := Render(PS1, creds())
	s, err := Render(CMD, creds())
	if err != nil {
		t.Fatal(err)
	}
	body := string(s.Body)
	head, script, ok := strings.Cut(body, "\r\n"+cmdMarker+"\r\n")
	if !ok || script != string(ps.Body) {
		t.Fatalf("the .cmd does not end with the marker and the .ps1:\n%s", body)
	}
	if strings.Count(body, cmdMarker) != 1 {
		t.Errorf("the marker appears more than once, so the script would be found at the wrong place")
	}
	lines := strings.Split(head, "\r\n")
	if lines[0] != "@echo off" || lines[len(lines)-1] != "exit /b %ERRORLEVEL%" ||
		lines[2] != `set "HOSTGATE_INSTALLER=%~f0"` || !strings.HasPrefix(lines[3], "powershell.exe -NoProfile") {
		t.Errorf("batch lines:\n%s", head)
	}
	for _, secret := range []string{"00112233445566778899aabbccddeeff", "tok-123", "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=", "EncodedCommand"} {
		if strings.Contains(head, secret) {
			t.Errorf("the batch lines carry %q", secret)
		}
	}
	if s.ContentType != "application/octet-stream" || !strings.HasSuffix(s.FileName, ".cmd") {
		t.Errorf("file %q type %q", s.FileName, s.ContentType)
	}
}

func TestRenderRefuses(t *testing.T) {
	c := creds()
	c.ExeURL = ""
	if _, err := Render(PS1, c); apperr.Code(err) != CodeExeNotConfigured {
		t.Errorf("no exe url: %v", err)
	}
	if _, err := Render("zip", creds()); apperr.Code(err) != apperr.CodeInvalidQuery {
		t.Errorf("bad format: %v", err)
	}
	if _, err := Render(EXE, creds()); apperr.Code(err) != apperr.CodeInvalidQuery {
		t.Errorf("exe through Render: %v", err)
	}
}
