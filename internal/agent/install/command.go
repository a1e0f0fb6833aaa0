package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"hostgate/internal/agentproto"
)

// ErrUnsupported is NewSystem's error outside Windows.
var ErrUnsupported = errors.New("install-template is only supported on Windows")

// Usage describes the install mode's arguments.
const Usage = `usage: hostgate-agent --install-template --setup-from FILE|-
       [--listen-port N] [--state-dir DIR]
   or: hostgate-agent --install-template --host-id ID --bid N --secret-key K
    --install-token T --agent-privkey-seed S --agent-pubkey P
    --ws-url URL --api-endpoint URL [--listen-port N] [--state-dir DIR]
Installs the agent on this machine (Windows, elevated). --setup-from reads
the install credentials as JSON (the hub's InstallCredentials, or a
provisioning payload's "hub" object) from FILE or, with "-", standard
input, so that no secret is on a command line; flags given as well
override it. Run again with other credentials, it applies them and
restarts the agent; with the same ones it exits 0 at once. Exit codes:
0 ok, 1 internal or argument error, 20 copy, 21 setup file, 30 service,
31 scheduled task, 32 firewall rule; failures are one JSON object on stderr.
`

// Main runs the install mode with the real system: args are the arguments
// after --install-template. It returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	sys, err := NewSystem()
	if err != nil {
		report(stderr, fail("unsupported", ExitInternal, "run the Windows build of the agent on Windows", err.Error(), nil), Options{})
		return ExitInternal
	}
	return Command(args, Deps{System: sys, Stdout: stdout, Stdin: os.Stdin}, stderr)
}

// Command parses args (the arguments after --install-template), runs the
// installer with deps and reports a failure on stderr as one JSON object.
// It returns the process exit code.
func Command(args []string, deps Deps, stderr io.Writer) int {
	opts, err := parseArgs(args, deps.Stdin)
	if errors.Is(err, flag.ErrHelp) {
		if deps.Stdout != nil {
			fmt.Fprint(deps.Stdout, Usage)
		}
		return ExitOK
	}
	if err == nil {
		err = Run(opts, deps)
	}
	if err != nil {
		report(stderr, err, opts)
	}
	return ExitCode(err)
}

// ParseArgs reads the install arguments. Missing or malformed arguments
// are an *Error with exit code 1 (the reserved codes 10 and 11 are not
// used). Values are checked further by Run. "--setup-from -" needs
// Command, which has standard input.
func ParseArgs(args []string) (Options, error) { return parseArgs(args, nil) }

// maxSetupFrom bounds what --setup-from reads.
const maxSetupFrom = 64 << 10

// readSetupFrom reads the --setup-from JSON from path ("-": stdin).
func readSetupFrom(path string, stdin io.Reader) (setup agentproto.Setup, bidSet bool, err error) {
	const hint = "pass the install credentials as JSON, exactly as the hub returned them"
	var b []byte
	switch {
	case path == "-" && stdin == nil:
		return setup, false, fail("invalid_argument", ExitInternal, hint, "--setup-from -: no standard input", nil)
	case path == "-":
		b, err = io.ReadAll(io.LimitReader(stdin, maxSetupFrom))
	default:
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return setup, false, fail("invalid_argument", ExitInternal, hint, "read --setup-from", err)
	}
	// The install credentials' keys are at the top level
	// (InstallCredentials, a setup file) or under "hub" (a provisioning
	// payload). A UTF-8 byte order mark is skipped (PowerShell may write
	// one).
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var top struct {
		Hub json.RawMessage `json:"hub"`
	}
	if json.Unmarshal(b, &top) != nil {
		// Not quoted: the text may hold secrets.
		return setup, false, fail("invalid_argument", ExitInternal, hint, "--setup-from is not valid JSON", nil)
	}
	if len(top.Hub) > 0 && string(top.Hub) != "null" {
		b = top.Hub
	}
	var bid struct {
		BID *int64 `json:"bid"`
	}
	f, err := agentproto.ParseSetup(b)
	if err != nil || json.Unmarshal(b, &bid) != nil {
		return setup, false, fail("invalid_argument", ExitInternal, hint, "--setup-from is not valid JSON", nil)
	}
	return f, bid.BID != nil, nil
}

func parseArgs(args []string, stdin io.Reader) (Options, error) {
	fs := flag.NewFlagSet("hostgate-agent --install-template", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o Options
	setupPath := fs.String("setup-from", "", "install credentials JSON file, - for standard input")
	var flags agentproto.Setup
	agentproto.RegisterFlags(fs, &flags, map[string]string{"listen-port": "TCP port the firewall rule opens"}, installFlags...)
	flags.ListenPort = DefaultListenPort
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		// The flag package quotes the offending value only for numeric
		// flags, none of which is a secret.
		return o, fail("invalid_argument", ExitInternal, "see hostgate-agent --install-template --help", "arguments", err)
	}
	if fs.NArg() > 0 {
		return o, fail("invalid_argument", ExitInternal, "see hostgate-agent --install-template --help",
			fmt.Sprintf("unexpected arguments (%d)", fs.NArg()), nil)
	}
	setup, bidSet := flags, false
	if *setupPath != "" {
		// The file first, then the flags given beside it.
		var err error
		if setup, bidSet, err = readSetupFrom(*setupPath, stdin); err != nil {
			return o, err
		}
		if setup.ListenPort == 0 {
			setup.ListenPort = DefaultListenPort
		}
		agentproto.Override(fs, &setup, flags)
		setup.StateDir = flags.StateDir
	}
	o = Options{Setup: setup}
	fs.Visit(func(f *flag.Flag) { bidSet = bidSet || f.Name == "bid" })
	if !bidSet {
		return o, fail("missing_argument", ExitInternal, "pass every install credential", "missing --bid", nil)
	}
	if o.ListenPort < 1 || o.ListenPort > 65535 {
		return o, fail("invalid_argument", ExitInternal, "", "--listen-port must be 1..65535", nil)
	}
	return o, nil
}

// installFlags are the setup options --install-template takes as flags
// (agentproto.SetupOptions).
var installFlags = []string{"host-id", "bid", "secret-key", "install-token", "agent-privkey-seed", "agent-pubkey",
	"ws-url", "api-endpoint", "listen-port", "state-dir"}

// report writes err to w as one JSON object {code, exit, msg, hint}, with
// any secret of opts that might have slipped into the text masked.
func report(w io.Writer, err error, opts Options) {
	var e *Error
	if !errors.As(err, &e) {
		e = fail("internal", ExitInternal, "", "install failed", err)
	}
	out := *e
	out.Msg = redact(out.Msg, opts)
	out.Hint = redact(out.Hint, opts)
	b, _ := json.Marshal(out)
	fmt.Fprintf(w, "%s\n", b)
}

// redact masks the secret values of opts in s (agentproto.SetupOptions
// says which are secret).
func redact(s string, opts Options) string { return opts.setup().Redact(s) }
