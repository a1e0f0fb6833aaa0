package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strings"

	hostgate "hostgate/sdk/go"
)

const provisioningUsage = "hostgate-cli hosts provisioning-payload HOST [--autologon-user U] " +
	"[--autologon-password P|- | --autologon-generate] [-o FILE]"

// hostsProvisioningPayload writes the host's provisioning payload
// (docs/provisioning.md) to stdout, or to FILE readable by its owner only.
// Like hosts credentials, it issues new install credentials.
func (a *app) hostsProvisioningPayload(ctx context.Context, args []string) error {
	c := newCommand("hosts provisioning-payload", provisioningUsage)
	user := c.fs.String("autologon-user", "", "")
	password := c.fs.String("autologon-password", "", "")
	generate := c.fs.Bool("autologon-generate", false, "")
	var out string
	c.fs.StringVar(&out, "o", "", "")
	c.fs.StringVar(&out, "output", "", "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["autologon-password"] && *generate {
		return usageErr("hosts provisioning-payload: give --autologon-password or --autologon-generate, not both", c.usage)
	}
	if set["autologon-password"] && *password == "" {
		return usageErr("hosts provisioning-payload: --autologon-password is empty; use --autologon-generate to have the hub make one", c.usage)
	}
	if set["o"] || set["output"] {
		if out == "" {
			return usageErr("hosts provisioning-payload: -o needs a file name", c.usage)
		}
	}
	var al *hostgate.Autologon
	if set["autologon-user"] || set["autologon-password"] || *generate {
		al = &hostgate.Autologon{Username: *user, Password: *password}
		if *password == "-" {
			line, err := bufio.NewReader(a.stdin).ReadString('\n')
			if line = strings.TrimRight(line, "\r\n"); line == "" {
				return usageErr(fmt.Sprintf("hosts provisioning-payload: --autologon-password -: no password on stdin (%v)", err), c.usage)
			}
			al.Password = line
		}
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	p, err := a.client.ProvisioningPayload(cctx, id, al)
	if err != nil {
		return err
	}
	if out == "" {
		_, err := fmt.Fprintf(a.stdout, "%s\n", p.Raw)
		if err == nil {
			fmt.Fprintln(a.stderr, "hostgate-cli: new install credentials were issued; the host's previous install token and agent key no longer work")
		}
		return err
	}
	if err := writePrivate(out, append(p.Raw, '\n')); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"host_id": p.Hub.HostID, "file": out, "bytes": len(p.Raw) + 1, "autologon": p.Autologon != nil})
	}
	fmt.Fprintf(a.stdout, "wrote the provisioning payload of host %s to %s (%d bytes, readable by you only)\n", p.Hub.HostID, out, len(p.Raw)+1)
	fmt.Fprintln(a.stderr, "hostgate-cli: new install credentials were issued; the host's previous install token and agent key no longer work")
	return nil
}
