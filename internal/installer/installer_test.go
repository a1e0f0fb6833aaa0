package installer

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

func creds() hosts.Credentials {
	return hosts.Credentials{
		HostID: "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11", BID: 42, SecretKey: "00112233445566778899aabbccddeeff",
		InstallToken: "tok-123", AgentPrivkeySeed: "c2VlZA==", AgentPubkey: "ed25519:cHVi",
		APIEndpoint: "https://hub.example.com", WSURL: "wss://hub.example.com/v1/internal/agent/ws",
		ListenPort: 23456, ExeURL: "https://dl.example.com/a'gent.exe", ExeSHA256: strings.Repeat("AB", 32),
	}
}

func TestPowerShellCarriesEveryArgument(t *testing.T) {
	s, err := Render(PS1, creds())
	if err != nil {
		t.Fatal(err)
	}
	body := string(s.Body)
	for _, want := range []string{
		"--host-id '0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11'", "--bid '42'", "--secret-key '00112233445566778899aabbccddeeff'",
		"--install-token 'tok-123'", "--agent-privkey-seed 'c2VlZA=='", "--agent-pubkey 'ed25519:cHVi'",
		"--ws-url 'wss://hub.example.com/v1/internal/agent/ws'", "--api-endpoint 'https://hub.example.com'",
		"'https://dl.example.com/a''gent.exe'", "-ne '" + strings.Repeat("ab", 32) + "'", "--install-template",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if s.FileName != "install-0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11.ps1" || !strings.HasPrefix(s.ContentType, "text/plain") {
		t.Errorf("file %q type %q", s.FileName, s.ContentType)
	}
}

func TestCmdEmbedsTheSameScript(t *testing.T) {
	ps, _ := Render(PS1, creds())
	s, err := Render(CMD, creds())
	if err != nil {
		t.Fatal(err)
	}
	line := ""
	for l := range strings.SplitSeq(string(s.Body), "\r\n") {
		if strings.HasPrefix(l, "powershell.exe") {
			line = l
		}
	}
	enc := line[strings.LastIndex(line, " ")+1:]
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(raw)%2 != 0 {
		t.Fatalf("encoded command does not decode: %v", err)
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	if got := string(utf16.Decode(u)); got != string(ps.Body) {
		t.Errorf("embedded script differs from the .ps1")
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
