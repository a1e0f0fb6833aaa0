// Package installer renders the scripts that install the agent on a
// Windows host from a set of install credentials: a PowerShell script, and a
// .cmd file that carries the same script for people who can only
// double-click. Both download the agent executable, refuse it unless its
// SHA-256 matches, and run it with --install-template.
package installer

import (
	"encoding/json"
	"fmt"
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

// Exit codes of the installer scripts (docs/hosts.md, Installer exit
// codes), beside the agent's own (--install-template, install).
const (
	// ExitScript is a failure of the script itself (not Linux, no root
	// and no sudo, no download tool, a failed download, an unknown
	// architecture).
	ExitScript = 1
	// ExitChecksum: the downloaded agent does not match its SHA-256;
	// nothing was installed. (4 is the first-boot script's "agent
	// executable absent from the image", interface specification 7.)
	ExitChecksum = 5
	// ExitRefused: the install line was used, has expired or is unknown
	// (the refusal script, Refused).
	ExitRefused = 6
)

// powerShell renders the PowerShell installer. piped is the one-line
// form, evaluated by `irm … | iex` in the user's own session: its body is
// a script block (so $ErrorActionPreference stays inside it), and a
// failure is a terminating error rather than `exit`, which would close
// the user's window. The credentials reach the agent as JSON on its
// standard input (--setup-from -), never on its command line, where any
// local user could read them.
func powerShell(c hosts.Credentials, piped bool) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\r\n", a...) }
	w("# hostgate agent installer for host %s. Run as Administrator.", c.HostID)
	w("# It contains this host's secrets: keep it private and delete it after use.")
	// Under $ErrorActionPreference = 'Stop' a plain Write-Error would end
	// the script with code 1 before its exit.
	fail := func(msg string, code int) string {
		return fmt.Sprintf("Write-Error %s -ErrorAction Continue; exit %d", quote(msg), code)
	}
	if piped {
		w("& {")
		fail = func(msg string, _ int) string { return "throw " + quote(msg) }
	}
	w("$ErrorActionPreference = 'Stop'")
	w("[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12")
	w("$exe = Join-Path $env:TEMP %s", quote("hostgate-agent-"+c.HostID+".exe"))
	w("Invoke-WebRequest -UseBasicParsing -Uri %s -OutFile $exe", quote(c.ExeURL))
	w("$sum = (Get-FileHash -Algorithm SHA256 -Path $exe).Hash.ToLowerInvariant()")
	w("if ($sum -ne %s) { Remove-Item $exe; %s }", quote(strings.ToLower(c.ExeSHA256)),
		fail("agent executable checksum mismatch; nothing was installed", ExitChecksum))
	w("$setup = %s", quote(setupJSON(c)))
	w("$setup | & $exe --install-template --setup-from -")
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

// setupJSON is c as the JSON the agent's --setup-from reads, in ASCII
// (Windows PowerShell 5.1 pipes text to a program as ASCII).
func setupJSON(c hosts.Credentials) string {
	b, _ := json.Marshal(agentSetup(c))
	var out strings.Builder
	for _, r := range string(b) {
		if r < 0x80 {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&out, `\u%04x`, u)
		}
	}
	return out.String()
}

// agentSetup is the agent setup c installs: the issued part and the
// host's report URL.
func agentSetup(c hosts.Credentials) agentproto.Setup {
	return agentproto.Setup{Issued: c.Issued, ReportURL: c.URL}
}

// cmdMarker starts the PowerShell script inside the .cmd file. The
// command that finds it spells it in two pieces, so that only the marker
// line itself matches.
const cmdMarker = "#hostgate-powershell-script"

// cmdFile wraps the PowerShell script for cmd.exe: the script follows the
// batch lines, which cmd never reaches (exit /b), and powershell.exe reads
// it from the .cmd file itself. Nothing secret is on powershell.exe's
// command line (an -EncodedCommand would put every secret there, readable
// by any local user in the process list).
func cmdFile(c hosts.Credentials) string {
	half := len(cmdMarker) / 2
	find := "'" + cmdMarker[:half] + "' + '" + cmdMarker[half:] + "'"
	return "@echo off\r\n" +
		"rem hostgate agent installer for host " + c.HostID + ". Run as Administrator; it contains this host's secrets.\r\n" +
		"set \"HOSTGATE_INSTALLER=%~f0\"\r\n" +
		"powershell.exe -NoProfile -ExecutionPolicy Bypass -Command \"$f = [IO.File]::ReadAllText($env:HOSTGATE_INSTALLER); " +
		"$i = $f.IndexOf(" + find + "); & ([ScriptBlock]::Create($f.Substring($i)))\"\r\n" +
		"exit /b %ERRORLEVEL%\r\n" +
		cmdMarker + "\r\n" +
		powerShell(c, false)
}
