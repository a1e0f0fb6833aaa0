package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	hostgate "hostgate/sdk/go"
)

const hostsUsage = "hostgate-cli hosts list|create|show|delete|credentials|provisioning-payload|installer ..."

// hosts dispatches the hosts subcommands.
func (a *app) hosts(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("hosts: missing subcommand", hostsUsage)
	}
	sub := map[string]func(context.Context, []string) error{
		"list":                 a.hostsList,
		"create":               a.hostsCreate,
		"show":                 a.hostsShow,
		"delete":               a.hostsDelete,
		"credentials":          a.hostsCredentials,
		"provisioning-payload": a.hostsProvisioningPayload, // provisioning.go
		"installer":            a.hostsInstaller,
	}[args[0]]
	if sub == nil {
		return usageErr(fmt.Sprintf("hosts: unknown subcommand %q", args[0]), hostsUsage)
	}
	return sub(ctx, args[1:])
}

func (a *app) hostsList(ctx context.Context, args []string) error {
	c := newCommand("hosts list", "hostgate-cli hosts list [--tag K=V ...] [--filter FILTER] [--q TEXT] [--status S] "+
		"[--online yes|no] [--os OS] [--agent-version V]")
	var q hostgate.FilterQuery
	var tags listFlag
	c.fs.Var(&tags, "tag", "")
	filter := c.fs.String("filter", "", "")
	c.fs.StringVar(&q.Q, "q", "", "")
	c.fs.StringVar(&q.Status, "status", "", "")
	online := c.fs.String("online", "", "")
	c.fs.StringVar(&q.OS, "os", "", "")
	c.fs.StringVar(&q.AgentVersion, "agent-version", "", "")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if err := setOnline(&q, *online, c); err != nil {
		return err
	}
	q.Tags = tags
	var hosts []hostgate.Host
	var err error
	if c.fs.NFlag() == 0 {
		cctx, cancel := a.callCtx(ctx, 0)
		defer cancel()
		hosts, err = a.client.ListHosts(cctx)
	} else {
		hosts, err = a.searchHosts(ctx, q, *filter)
	}
	if err != nil {
		return err
	}
	if hosts == nil {
		hosts = []hostgate.Host{}
	}
	if a.json {
		return a.printJSON(hosts)
	}
	return a.hostTable(hosts)
}

// searchHosts returns every host matching q and the saved filter FILTER
// (an id or a name; "" for none), page by page.
func (a *app) searchHosts(ctx context.Context, q hostgate.FilterQuery, filter string) ([]hostgate.Host, error) {
	id := ""
	if filter != "" {
		var err error
		if id, err = a.resolveFilter(ctx, filter); err != nil {
			return nil, err
		}
	}
	var out []hostgate.Host
	for {
		cctx, cancel := a.callCtx(ctx, 0)
		p, err := a.client.SearchHosts(cctx, q, id, 200, len(out))
		cancel()
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if len(p.Items) == 0 || len(out) >= p.Total {
			return out, nil
		}
	}
}

// setOnline reads --online yes|no into q.
func setOnline(q *hostgate.FilterQuery, online string, c command) error {
	switch online {
	case "":
	case "yes", "no":
		b := online == "yes"
		q.Online = &b
	default:
		return usageErr(c.fs.Name()+": --online is yes or no", c.usage)
	}
	return nil
}

func (a *app) hostsCreate(ctx context.Context, args []string) error {
	c := newCommand("hosts create", "hostgate-cli hosts create NAME [--listen-port N] [--credentials]")
	port := c.fs.Int("listen-port", 0, "")
	withCreds := c.fs.Bool("credentials", false, "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return usageErr("hosts create: --listen-port must be 1-65535", c.usage)
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	h, cr, err := a.client.CreateHost(cctx, pos[0], *port, *withCreds)
	if err != nil {
		return err
	}
	switch {
	case a.json && *withCreds:
		return a.printJSON(struct {
			Host        hostgate.Host         `json:"host"`
			Credentials *hostgate.Credentials `json:"credentials"`
		}{h, cr})
	case a.json:
		return a.printJSON(h)
	}
	if err := a.hostDetails(h); err != nil || cr == nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	return a.credentials(*cr)
}

func (a *app) hostsShow(ctx context.Context, args []string) error {
	pos, err := newCommand("hosts show", "hostgate-cli hosts show HOST").parse(args, 1)
	if err != nil {
		return err
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	h, err := a.client.GetHost(cctx, id)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(h)
	}
	return a.hostDetails(h)
}

func (a *app) hostsDelete(ctx context.Context, args []string) error {
	c := newCommand("hosts delete", "hostgate-cli hosts delete HOST [--yes]")
	yes := c.fs.Bool("yes", false, "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if !*yes && !a.stdinTerminal() {
		return usageErr("hosts delete: stdin is not a terminal to confirm on; pass --yes", c.usage)
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	if !*yes {
		fmt.Fprintf(a.stderr, "Delete host %s (%s)? Its agent is disconnected at once. [y/N] ", pos[0], id)
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			fmt.Fprintf(a.stderr, "hostgate-cli: host %s not deleted\n", pos[0])
			return exitStatus(exitFailed)
		}
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	if err := a.client.DeleteHost(cctx, id); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"id": id, "deleted": true})
	}
	fmt.Fprintf(a.stdout, "deleted host %s\n", id)
	return nil
}

func (a *app) hostsCredentials(ctx context.Context, args []string) error {
	c := newCommand("hosts credentials", "hostgate-cli hosts credentials HOST [--rotate]")
	rotate := c.fs.Bool("rotate", false, "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	issue := a.client.InstallToken
	if *rotate {
		issue = a.client.RotateSecret
	}
	cr, err := issue(cctx, id)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(cr)
	}
	return a.credentials(cr)
}
