package main

import (
	"context"
	"fmt"
	"path/filepath"

	hostgate "hostgate/sdk/go"
)

const installerUsage = "hostgate-cli hosts installer HOST [--format exe|ps1|cmd] [-o FILE]"

// hostsInstaller downloads an installer of a host (issuing new install
// credentials, as hosts credentials does) into FILE, by default the name
// the hub gives it in the current directory; "-o -" writes it to stdout.
// The file holds the host's secrets, so it is created readable by its
// owner only (0600), replacing any file of that name whole.
func (a *app) hostsInstaller(ctx context.Context, args []string) error {
	c := newCommand("hosts installer", installerUsage)
	format := c.fs.String("format", hostgate.InstallerEXE, "")
	out := c.fs.String("o", "", "")
	c.fs.StringVar(out, "output", "", "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	switch *format {
	case hostgate.InstallerEXE, hostgate.InstallerPS1, hostgate.InstallerCMD:
	default:
		return usageErr(fmt.Sprintf("hosts installer: --format %q: want exe, ps1 or cmd", *format), c.usage)
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	in, err := a.client.Installer(cctx, id, *format)
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err := a.stdout.Write(in.Content)
		return err
	}
	name := *out
	if name == "" {
		name = filepath.Base(in.FileName)
		if name == "" || name == "." || name == string(filepath.Separator) {
			name = "install-" + id + "." + *format
		}
	}
	if err := writePrivate(name, in.Content); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"host_id": id, "format": *format, "file": name, "bytes": len(in.Content)})
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d bytes): the installer of host %s with new install credentials; keep it private\n",
		name, len(in.Content), id)
	return nil
}
