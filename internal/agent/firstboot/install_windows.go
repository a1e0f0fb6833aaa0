package firstboot

import (
	"io"
	"strconv"

	"hostgate/internal/agent/install"
)

// DefaultInstaller runs the --install-template installer in this process
// (no secret on a command line). It writes install.done itself.
func DefaultInstaller(in Install, stdout, stderr io.Writer) int {
	return install.Main(templateArgs(in), stdout, stderr)
}

// templateArgs are the --install-template arguments of in.
func templateArgs(in Install) []string {
	h := in.Hub
	args := []string{"--host-id", h.HostID, "--bid", strconv.FormatInt(h.BID, 10), "--secret-key", h.SecretKey,
		"--install-token", h.InstallToken, "--agent-privkey-seed", h.AgentPrivkeySeed, "--agent-pubkey", h.AgentPubkey,
		"--ws-url", h.WSURL, "--api-endpoint", h.APIEndpoint, "--state-dir", in.StateDir}
	if h.ListenPort != 0 {
		args = append(args, "--listen-port", strconv.Itoa(h.ListenPort))
	}
	return args
}
