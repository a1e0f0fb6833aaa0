package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"

	hostgate "hostgate/sdk/go"
)

// defaultShellTimeoutS is the hub's limit on a shell call when timeout_s
// is not given.
const defaultShellTimeoutS = 60

// shell runs a program on the host, copies its output and exits with its
// status.
func (a *app) shell(ctx context.Context, args []string) error {
	c := newCommand("shell", "hostgate-cli shell HOST [--timeout-s N] -- PROGRAM [ARGS...]")
	timeoutS := c.fs.Int("timeout-s", 0, "")
	host, argv, err := c.parseCommandLine(args)
	if err != nil {
		return err
	}
	if *timeoutS < 0 {
		return usageErr("shell: --timeout-s must not be negative", c.usage)
	}
	id, h, err := a.resolveHost(ctx, host)
	if err != nil {
		return err
	}
	line, err := a.commandLine(ctx, id, h, argv[1:])
	if err != nil {
		return err
	}
	wait := time.Duration(*timeoutS) * time.Second
	if *timeoutS == 0 {
		wait = defaultShellTimeoutS * time.Second
	}
	cctx, cancel := a.callCtx(ctx, wait)
	defer cancel()
	res, err := a.client.Shell(cctx, id, argv[0], line, *timeoutS)
	if err != nil {
		return err
	}
	if a.json {
		if err := a.printJSON(res); err != nil {
			return err
		}
	} else {
		io.WriteString(a.stdout, res.Stdout)
		io.WriteString(a.stderr, res.Stderr)
		if res.Truncated {
			fmt.Fprintln(a.stderr, "hostgate-cli: the output was truncated")
		}
	}
	if res.TimedOut {
		if !a.json {
			fmt.Fprintf(a.stderr, "hostgate-cli: timed out after %v; the remote process tree was killed\n", wait)
		}
		return exitStatus(exitTimedOut)
	}
	return remoteStatus(res.ExitCode)
}

// commandLine joins args into the one argument string of the API, quoted
// for the host's system: the agent splits it like a POSIX shell on Linux
// and passes it to the program as is on Windows. The host is looked up
// only when some argument needs quoting.
func (a *app) commandLine(ctx context.Context, id string, h *hostgate.Host, args []string) (string, error) {
	plain := true
	for _, s := range args {
		plain = plain && !needsQuoting(s)
	}
	if plain {
		return strings.Join(args, " "), nil
	}
	if h == nil {
		cctx, cancel := a.callCtx(ctx, 0)
		defer cancel()
		got, err := a.client.GetHost(cctx, id)
		if err != nil {
			return "", err
		}
		h = &got
	}
	quote := quotePOSIX
	if strings.Contains(strings.ToLower(h.OS), "windows") {
		quote = quoteWindows
	}
	q := make([]string, len(args))
	for i, s := range args {
		q[i] = quote(s)
	}
	return strings.Join(q, " "), nil
}

// needsQuoting reports an argument that is not one plain word on both
// systems.
func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r)) {
			return true
		}
	}
	return false
}

// quotePOSIX single-quotes s; each single quote inside ends the quoted
// part, comes escaped with a backslash, and starts a new quoted part.
func quotePOSIX(s string) string {
	if !needsQuoting(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteWindows quotes s for the C runtime's command-line splitting: in
// double quotes, backslashes before a quote (or the closing quote) are
// doubled and the quote escaped.
func quoteWindows(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\v\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1) + `"`)
			slashes = 0
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
			b.WriteByte(c)
			slashes = 0
		}
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// read writes a file of the host to stdout.
func (a *app) read(ctx context.Context, args []string) error {
	pos, err := newCommand("read", "hostgate-cli read HOST PATH").parse(args, 2)
	if err != nil {
		return err
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	res, err := a.client.ReadString(cctx, id, pos[1])
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	content := []byte(res.Content)
	if res.Encoding == "base64" {
		if content, err = base64.StdEncoding.DecodeString(res.Content); err != nil {
			return fmt.Errorf("decode %s: %w", pos[1], err)
		}
	}
	_, err = a.stdout.Write(content)
	return err
}
