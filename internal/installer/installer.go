// Package installer renders the scripts that install the agent on a
// Windows host from a set of install credentials: a PowerShell script, and a
// .cmd file that carries the same script for people who can only
// double-click. Both download the agent executable, refuse it unless its
// SHA-256 matches, and run it with --install-template.
package installer

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

// Formats.
const (
	PS1 = "ps1"
	CMD = "cmd"
	EXE = "exe"
)

// Script is a rendered installer.
type Script struct {
	FileName    string
	ContentType string
	Body        []byte
}

// Error codes (spec section 7).
const (
	CodeExeNotConfigured = "exe_not_configured"
)

// Check tells whether Render can make format with this executable; callers
// check before issuing credentials, so a refused request changes nothing.
func Check(format, exeURL, exeSHA256 string) error {
	switch format {
	case PS1, CMD, EXE, "":
	default:
		return apperr.New(apperr.CodeInvalidQuery, "format must be ps1, cmd or exe")
	}
	if exeURL == "" || exeSHA256 == "" {
		return apperr.New(CodeExeNotConfigured, "no agent executable to install: this hub serves no hostgate-agent-windows-amd64.exe "+
			"(build the hub with `make build`, or point HOSTGATE_AGENT_DIR at a directory holding one) "+
			"and GATEWAY_EXE_URL and GATEWAY_EXE_SHA256 are not set")
	}
	return nil
}

// Render builds the installer of the given format for c.
func Render(format string, c hosts.Credentials) (Script, error) {
	if err := Check(format, c.ExeURL, c.ExeSHA256); err != nil {
		return Script{}, err
	}
	switch format {
	case PS1:
		return Script{FileName: "install-" + c.HostID + ".ps1", ContentType: "text/plain; charset=utf-8", Body: []byte(powerShell(c, false))}, nil
	case CMD:
		return Script{FileName: "install-" + c.HostID + ".cmd", ContentType: "application/octet-stream", Body: []byte(cmdFile(c))}, nil
	}
	return Script{}, apperr.New(apperr.CodeInvalidQuery, "format must be ps1 or cmd here; exe goes through RenderExe")
}

// RenderExe builds the single-file installer from the verified executable.
func RenderExe(exe []byte, c hosts.Credentials) (Script, error) {
	body, err := agentproto.Bundle(exe, PayloadFor(c))
	if err != nil {
		return Script{}, err
	}
	return Script{FileName: "install-" + c.HostID + ".exe", ContentType: "application/octet-stream", Body: body}, nil
}

// quote makes a PowerShell single-quoted literal: inside one, only a
// single quote is special, and it is escaped by doubling.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// powerShell renders the PowerShell installer. piped is the one-line
// form, evaluated by `irm … | iex` in the user's own session: its body is
// a script block (so $ErrorActionPreference stays inside it), and a
// failure is a terminating error rather than `exit`, which would close
// the user's window.
func powerShell(c hosts.Credentials, piped bool) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\r\n", a...) }
	w("# hostgate agent installer for host %s. Run as Administrator.", c.HostID)
	w("# It contains this host's secrets: keep it private and delete it after use.")
	fail := func(msg string, code int) string { return fmt.Sprintf("Write-Error %s; exit %d", quote(msg), code) }
	if piped {
		w("& {")
		fail = func(msg string, _ int) string { return "throw " + quote(msg) }
	}
	w("$ErrorActionPreference = 'Stop'")
	w("[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12")
	w("$exe = Join-Path $env:TEMP %s", quote("hostgate-agent-"+c.HostID+".exe"))
	w("Invoke-WebRequest -UseBasicParsing -Uri %s -OutFile $exe", quote(c.ExeURL))
	w("$sum = (Get-FileHash -Algorithm SHA256 -Path $exe).Hash.ToLowerInvariant()")
	w("if ($sum -ne %s) { Remove-Item $exe; %s }", quote(strings.ToLower(c.ExeSHA256)), fail("agent executable checksum mismatch", 4))
	w("& $exe --install-template `")
	args := [][2]string{
		{"--host-id", c.HostID}, {"--bid", strconv.FormatInt(c.BID, 10)}, {"--secret-key", c.SecretKey},
		{"--install-token", c.InstallToken}, {"--agent-privkey-seed", c.AgentPrivkeySeed},
		{"--agent-pubkey", c.AgentPubkey}, {"--ws-url", c.WSURL}, {"--api-endpoint", c.APIEndpoint},
		{"--listen-port", strconv.Itoa(c.ListenPort)},
	}
	for i, a := range args {
		cont := " `"
		if i == len(args)-1 {
			cont = ""
		}
		w("  %s %s%s", a[0], quote(a[1]), cont)
	}
	w("$code = $LASTEXITCODE")
	w("Remove-Item $exe -ErrorAction SilentlyContinue")
	if piped {
		w("if ($code -ne 0) { throw \"hostgate-agent --install-template failed with exit code $code\" }")
		w("}")
	} else {
		w("exit $code")
	}
	return b.String()
}

// cmdFile wraps the PowerShell script for cmd.exe: PowerShell's
// -EncodedCommand takes base64 of UTF-16LE, which survives cmd's quoting.
func cmdFile(c hosts.Credentials) string {
	u := utf16.Encode([]rune(powerShell(c, false)))
	raw := make([]byte, 2*len(u))
	for i, r := range u {
		raw[2*i], raw[2*i+1] = byte(r), byte(r>>8)
	}
	return "@echo off\r\n" +
		"rem hostgate agent installer for host " + c.HostID + ". Run as Administrator; it contains this host's secrets.\r\n" +
		"powershell.exe -NoProfile -ExecutionPolicy Bypass -EncodedCommand " + base64.StdEncoding.EncodeToString(raw) + "\r\n" +
		"exit /b %ERRORLEVEL%\r\n"
}
