package installer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

// Piped renders the PowerShell installer of the one-line install,
// `irm <hub>/install/<token>.ps1 | iex`: the .ps1 installer made to run
// inside the user's session (see powerShell).
func Piped(c hosts.Credentials) (Script, error) {
	if err := Check(PS1, c.ExeURL, c.ExeSHA256); err != nil {
		return Script{}, err
	}
	return Script{FileName: "install-" + c.HostID + ".ps1", ContentType: "text/plain; charset=utf-8",
		Body: []byte(powerShell(c, true))}, nil
}

// Binary is one agent binary the shell installer may download: for
// linux/Arch, at URL, with SHA256 (64 hexadecimal characters).
type Binary struct {
	Arch, URL, SHA256 string
}

// LinuxArchs are the architectures the shell installer knows, as Go
// names them; the script maps `uname -m` onto them.
var LinuxArchs = []string{"amd64", "arm64"}

// CheckShell tells whether Shell can render with bins; callers check
// before spending the install token.
func CheckShell(bins []Binary) error {
	if len(bins) == 0 {
		return apperr.New(CodeExeNotConfigured, "this hub has no Linux agent binary to install: it serves no hostgate-agent-linux-amd64 or "+
			"hostgate-agent-linux-arm64 (build the hub with `make build`, or point HOSTGATE_AGENT_DIR at a directory holding them)")
	}
	return nil
}

// Shell renders the Linux installer of the one-line install,
// `curl -fsSL <hub>/install/<token>.sh | sh`: a POSIX sh script that picks
// the binary of bins for the machine's architecture, downloads it (curl,
// else wget), checks its SHA-256 (sha256sum) and runs its `install`
// subcommand with the credentials on standard input, never on a command
// line. The subcommand installs the binary, the configuration and the
// service (docs/agent.md, On Linux). The line pipes into sh, not sudo sh,
// so that it works as root on a machine without sudo; run by another
// user, the script runs the steps that need root through sudo.
func Shell(c hosts.Credentials, bins []Binary) (Script, error) {
	if err := CheckShell(bins); err != nil {
		return Script{}, err
	}
	// The agent's --config file, as `hostgate-agent install --config -`
	// reads it.
	cfg, err := json.Marshal(agentSetup(c))
	if err != nil {
		return Script{}, err
	}
	var cases strings.Builder
	for _, b := range bins {
		fmt.Fprintf(&cases, "\t\t%s) url=%s sum=%s ;;\n", b.Arch, shQuote(b.URL), shQuote(strings.ToLower(b.SHA256)))
	}
	body := strings.NewReplacer(
		"@HOST_ID@", c.HostID,
		"@BINARIES@", cases.String(),
		"@CONFIG@", string(cfg),
		"@EXIT_CHECKSUM@", strconv.Itoa(ExitChecksum),
		"@NEW_LINE@", newLineHint,
	).Replace(shellTemplate)
	return Script{FileName: "install-" + c.HostID + ".sh", ContentType: "text/plain; charset=utf-8", Body: []byte(body)}, nil
}

// shQuote makes a POSIX shell single-quoted word.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// newLineHint says where a new install line comes from; every way names
// the host, which the scripts never print for a refused token. It goes
// into a double-quoted sh string: no quote, backquote or $.
const newLineHint = "the host's page in the console (Re-issue install token), " +
	"hostgate-cli hosts credentials HOST, or POST /v1/api/hosts/{id}/install-token with an API key"

// shellTemplate is the Linux installer. It needs only POSIX sh, coreutils
// and curl or wget. Everything runs from one function called on the last
// line, so a download cut short runs nothing. The credentials reach the
// agent through a quoted here-document (no expansion; JSON has no line
// break) on standard input. The script arrives on sh's standard input, so
// it cannot run itself again under sudo: each step that needs root runs
// as $SUDO <command>, with SUDO empty for root.
const shellTemplate = `#!/bin/sh
# hostgate agent installer for host @HOST_ID@ (Linux).
# Run: curl -fsSL <hub>/install/<token>.sh | sh
# (as root, or as a user who may sudo: the steps that need root use sudo).
# It carries this host's install credentials: keep it private.
# Environment: HOSTGATE_PREFIX (default /usr/local: the agent goes to
# $HOSTGATE_PREFIX/bin/hostgate-agent), HOSTGATE_STATE_DIR (default
# /var/lib/hostgate-agent), HOSTGATE_SERVICE (auto, systemd or detached).
# Exit codes: 0 installed; 1 this script failed; @EXIT_CHECKSUM@ the download does
# not match its SHA-256; others are hostgate-agent install's (docs/agent.md).
set -eu

hostgate_fail() {
	echo "hostgate: $*" >&2
	echo "hostgate: nothing was installed. The install line is spent; for a new one: @NEW_LINE@." >&2
	exit 1
}

hostgate_install() {
	prefix=${HOSTGATE_PREFIX:-/usr/local}
	state=${HOSTGATE_STATE_DIR:-/var/lib/hostgate-agent}
	service=${HOSTGATE_SERVICE:-auto}
	[ "$(uname -s)" = Linux ] || hostgate_fail "this installer is for Linux; on Windows use the PowerShell line"
	SUDO=
	if [ "$(id -u)" != 0 ]; then
		if [ -n "${HOSTGATE_PREFIX:-}" ] && [ -n "${HOSTGATE_STATE_DIR:-}" ]; then
			for dir in "$prefix/bin" "$state"; do
				mkdir -p "$dir" 2>/dev/null && [ -w "$dir" ] || hostgate_fail "$dir is not writable; run as root"
			done
		elif command -v sudo >/dev/null 2>&1; then
			echo "hostgate: not root: the install steps run through sudo"
			sudo true || hostgate_fail "sudo failed; run the line as root, or as a user who may sudo"
			SUDO=sudo
		else
			hostgate_fail "this installer needs root and sudo is not installed: run the line as root (su -), or set HOSTGATE_PREFIX and HOSTGATE_STATE_DIR to directories you can write"
		fi
	fi
	machine=$(uname -m)
	case "$machine" in
		x86_64|amd64) arch=amd64 ;;
		aarch64|arm64) arch=arm64 ;;
		*) hostgate_fail "unsupported architecture $machine" ;;
	esac
	url= sum=
	case "$arch" in
@BINARIES@	esac
	[ -n "$url" ] || hostgate_fail "the hub has no agent binary for linux/$arch"
	$SUDO mkdir -p "$prefix/bin" || hostgate_fail "cannot create $prefix/bin"
	# Downloaded beside its destination: /tmp may be mounted noexec.
	tmp=$($SUDO mktemp "$prefix/bin/.hostgate-agent.XXXXXX") || hostgate_fail "cannot write in $prefix/bin"
	trap '$SUDO rm -f "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
	echo "hostgate: downloading the agent for linux/$arch"
	if command -v curl >/dev/null 2>&1; then
		$SUDO curl -fsSL -o "$tmp" "$url" || hostgate_fail "download failed: $url"
	elif command -v wget >/dev/null 2>&1; then
		$SUDO wget -q -O "$tmp" "$url" || hostgate_fail "download failed: $url"
	else
		hostgate_fail "needs curl or wget"
	fi
	got=$($SUDO sha256sum "$tmp" | cut -d ' ' -f 1)
	if [ "$got" != "$sum" ]; then
		echo "hostgate: the downloaded agent does not match its SHA-256; nothing was installed" >&2
		exit @EXIT_CHECKSUM@
	fi
	$SUDO chmod 0755 "$tmp"
	$SUDO "$tmp" install --prefix "$prefix" --state-dir "$state" --service "$service" --config - <<'HOSTGATE_CONFIG_END'
@CONFIG@
HOSTGATE_CONFIG_END
}

hostgate_install
`

// The response header that marks the refusal script (Refused) in a 200
// answer: X-Hostgate-Install: refused.
const (
	HeaderInstall = "X-Hostgate-Install"
	RefusedValue  = "refused"
)

// Refused is the script the one-line install answers for an install token
// that was used, has expired or is unknown: the same for every such token,
// so it tells nothing about any host, it says what happened and how to get
// a new line, and exits ExitRefused (the PowerShell form throws, which
// does not close the user's window). kind is "sh" or PS1. It is answered
// with status 200, because `curl -f` would drop the body of an error
// status and pipe nothing into sh (which then exits 0), and `irm` throws
// on one before iex could run it.
func Refused(kind string) Script {
	msg := "this install line was already used or has expired (an install line works once, within minutes of its issue); nothing was installed."
	how := "Get a new line for the host: " + newLineHint + "."
	if kind == PS1 {
		var b strings.Builder
		w := func(line string) { b.WriteString(line + "\r\n") }
		w("# hostgate: this install line cannot be used.")
		w("& {")
		w("Write-Host " + quote("hostgate: "+msg) + " -ForegroundColor Yellow")
		w("Write-Host " + quote("hostgate: "+how) + " -ForegroundColor Yellow")
		w("throw " + quote("hostgate: this install line was already used or has expired"))
		w("}")
		return Script{FileName: "install.ps1", ContentType: "text/plain; charset=utf-8", Body: []byte(b.String())}
	}
	body := "#!/bin/sh\n" +
		"# hostgate: this install line cannot be used.\n" +
		"echo " + shQuote("hostgate: "+msg) + " >&2\n" +
		"echo " + shQuote("hostgate: "+how) + " >&2\n" +
		"exit " + strconv.Itoa(ExitRefused) + "\n"
	return Script{FileName: "install.sh", ContentType: "text/plain; charset=utf-8", Body: []byte(body)}
}
