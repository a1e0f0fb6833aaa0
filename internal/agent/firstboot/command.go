package firstboot

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"syscall"
)

// Usage describes the first-boot command.
const Usage = `usage: hostgate-agent first-boot [--variant simple|autologon] [--source SOURCE]
    [--timeout D] [--default-api-endpoint URL] [--state-dir DIR]
    [--prefix DIR] [--service auto|systemd|detached] [--metadata-url URL]
       hostgate-agent first-boot --print-script sh|ps1
Installs the agent at the first boot of a machine made from a template
image, from the provisioning payload in the machine's user data (see
docs/provisioning.md). It polls SOURCE every 2 s, up to 180 s (simple) or
60 s (autologon, Windows only: also configures automatic logon).
SOURCE: auto (default: the file ` + "%s" + `, then every cloud below),
file:PATH, aws, azure, gcp, aliyun or tencent.
Exit codes: 0 installed or already installed (install.done), 1 usage or
other error, 2 no configuration appeared in time, 3 the configuration is
not a valid payload (e.g. a required field missing), other: the
installer's own code (20, 21, 30, 31, 32).
--print-script writes the script a template image runs at boot (sh for
Linux, ps1 for Windows), which adds exit code 4: the agent executable is
absent from the image.
`

// Main runs `hostgate-agent first-boot` with args (after the subcommand)
// and returns the exit code. SIGINT and SIGTERM stop the wait.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "--print-script" {
		b, err := Scripts.ReadFile("scripts/first-boot." + args[1])
		if err != nil || (args[1] != "sh" && args[1] != "ps1") {
			(&Failure{Code: "invalid_argument", Exit: ExitOther, Msg: "--print-script must be sh or ps1"}).report(stderr)
			return ExitOther
		}
		stdout.Write(b)
		return ExitOK
	}
	opts, err := ParseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, Usage, DefaultFile())
		return ExitOK
	}
	if err != nil {
		(&Failure{Code: "invalid_argument", Exit: ExitOther, Msg: err.Error(),
			Hint: "see hostgate-agent first-boot --help"}).report(stderr)
		return ExitOther
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, opts, Deps{Stdout: stdout, Stderr: stderr})
}

// ParseArgs reads the command's arguments.
func ParseArgs(args []string) (Options, error) {
	fs := flag.NewFlagSet("hostgate-agent first-boot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o Options
	src := fs.String("source", "auto", "configuration source")
	base := fs.String("metadata-url", "", "metadata service address of a single cloud source (testing)")
	fs.StringVar(&o.Variant, "variant", VariantSimple, "simple or autologon")
	fs.DurationVar(&o.Timeout, "timeout", 0, "how long to wait for the configuration (default by variant)")
	fs.StringVar(&o.DefaultAPIEndpoint, "default-api-endpoint", "", "hub address when the payload has none")
	fs.StringVar(&o.StateDir, "state-dir", "", "state directory")
	fs.StringVar(&o.Prefix, "prefix", "", "installation prefix (Linux)")
	fs.StringVar(&o.Service, "service", "", "auto, systemd or detached (Linux)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.Variant != VariantSimple && o.Variant != VariantAutologon {
		return o, errors.New("--variant must be simple or autologon")
	}
	if o.Timeout < 0 {
		return o, errors.New("--timeout must not be negative")
	}
	if d := o.DefaultAPIEndpoint; d != "" {
		if u, err := url.Parse(d); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, errors.New("--default-api-endpoint must be an absolute http:// or https:// URL")
		}
	}
	var err error
	o.Source, err = ParseSource(*src, *base)
	return o, err
}
