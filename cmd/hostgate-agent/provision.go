package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"hostgate/internal/agent/install"
	"hostgate/internal/agentproto"
)

// installFromPayload installs from the payload (args from payloadArgs).
// The single-file installer is elevated on launch: without administrator
// rights it starts itself again through the UAC prompt, with no
// arguments (the elevated copy reads the payload itself, so no secret
// appears on a command line), and answers with that copy's exit code.
func installFromPayload(self string, args []string, stdout, stderr io.Writer,
	isElevated bool, relaunch func(exe string, args []string) (int, error)) int {
	if isElevated {
		return install.Main(args, stdout, stderr)
	}
	code, err := relaunch(self, nil)
	if err != nil {
		fmt.Fprintln(stderr, "hostgate-agent: the installer needs administrator rights:", err)
		return exitInternal
	}
	return code
}

// payloadArgs turns the provisioning payload appended to this executable
// (the hub's single-file installer) into --install-template arguments.
// The error is agentproto.ErrNoPayload for a plain executable (or one
// that cannot be read), and says what is wrong with a payload that is
// there but refused.
func payloadArgs(self string) (args []string, err error) {
	f, err := os.Open(self)
	if err != nil {
		return nil, agentproto.ErrNoPayload
	}
	defer f.Close()
	tail, err := readTail(f, 8<<10)
	if err != nil {
		return nil, agentproto.ErrNoPayload
	}
	p, err := agentproto.ReadPayload(tail)
	if err != nil {
		return nil, err
	}
	h := p.Hub
	args = []string{"--host-id", h.HostID, "--bid", strconv.FormatInt(h.BID, 10), "--secret-key", h.SecretKey,
		"--install-token", h.InstallToken, "--agent-privkey-seed", h.AgentPrivkeySeed, "--agent-pubkey", h.AgentPubkey}
	// Missing addresses fall back to the agent's defaults (spec section 2).
	if h.WSURL != "" {
		args = append(args, "--ws-url", h.WSURL)
	}
	if h.APIEndpoint != "" {
		args = append(args, "--api-endpoint", h.APIEndpoint)
	}
	if h.ListenPort != 0 {
		args = append(args, "--listen-port", strconv.Itoa(h.ListenPort))
	}
	return args, nil
}

// readTail returns up to n bytes from the end of f: the payload and its
// trailer are small, the executable is not.
func readTail(f *os.File, n int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-n, 0)
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}
