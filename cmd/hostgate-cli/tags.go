package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	hostgate "hostgate/sdk/go"
)

const tagsUsage = "hostgate-cli tags set|add|remove|list ..."

// tags dispatches the tags subcommands.
func (a *app) tags(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("tags: missing subcommand", tagsUsage)
	}
	sub := map[string]func(context.Context, []string) error{
		"set":    a.tagsSet,
		"add":    a.tagsAdd,
		"remove": a.tagsRemove,
		"list":   a.tagsList,
	}[args[0]]
	if sub == nil {
		return usageErr(fmt.Sprintf("tags: unknown subcommand %q", args[0]), tagsUsage)
	}
	return sub(ctx, args[1:])
}

// parseTags reads KEY=VALUE (or KEY, the empty value) arguments.
func parseTags(args []string) map[string]string {
	m := map[string]string{}
	for _, s := range args {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return m
}

// tagsText writes tags as "k=v k2=" in key order, "-" for none.
func tagsText(m map[string]string) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// tagsSet replaces the host's tags with the arguments (none: remove all).
func (a *app) tagsSet(ctx context.Context, args []string) error {
	c := newCommand("tags set", "hostgate-cli tags set HOST [KEY=VALUE ...]")
	if err := c.fs.Parse(args); err != nil {
		return c.flagErr(err)
	}
	if c.fs.NArg() == 0 {
		return usageErr("tags set: missing HOST", c.usage)
	}
	id, _, err := a.resolveHost(ctx, c.fs.Arg(0))
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	tags, err := a.client.SetTags(cctx, id, parseTags(c.fs.Args()[1:]))
	if err != nil {
		return err
	}
	if tags == nil {
		tags = map[string]string{}
	}
	if a.json {
		return a.printJSON(map[string]any{"host_id": id, "tags": tags})
	}
	fmt.Fprintf(a.stdout, "%s %s\n", id, tagsText(tags))
	return nil
}

// tagsUpdate adds or removes tags on the hosts of --host, all or none.
func (a *app) tagsUpdate(ctx context.Context, c command, args []string, add bool) error {
	var hosts listFlag
	c.fs.Var(&hosts, "host", "")
	pos, err := c.parseAll(args)
	if err != nil {
		return err
	}
	if len(hosts) == 0 || len(pos) == 0 {
		return usageErr(c.fs.Name()+": give tags and at least one --host", c.usage)
	}
	ids, err := a.resolveHosts(ctx, hosts)
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	var n int
	if add {
		n, err = a.client.UpdateTags(cctx, ids, parseTags(pos), nil)
	} else {
		n, err = a.client.UpdateTags(cctx, ids, nil, pos)
	}
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]int{"updated": n})
	}
	fmt.Fprintf(a.stdout, "updated %d hosts\n", n)
	return nil
}

func (a *app) tagsAdd(ctx context.Context, args []string) error {
	return a.tagsUpdate(ctx, newCommand("tags add", "hostgate-cli tags add KEY=VALUE ... --host HOST ..."), args, true)
}

func (a *app) tagsRemove(ctx context.Context, args []string) error {
	return a.tagsUpdate(ctx, newCommand("tags remove", "hostgate-cli tags remove KEY ... --host HOST ..."), args, false)
}

// tagsList lists the key=value pairs in use with their host counts.
func (a *app) tagsList(ctx context.Context, args []string) error {
	if _, err := newCommand("tags list", "hostgate-cli tags list").parse(args, 0); err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	tags, err := a.client.ListTags(cctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(tags)
	}
	t := newTable(a.stdout)
	row(t, "KEY", "VALUE", "HOSTS")
	for _, x := range tags {
		row(t, x.Key, x.Value, strconv.Itoa(x.HostCount))
	}
	return t.Flush()
}

// parseAll parses the flags anywhere among args and returns every
// positional argument.
func (c command) parseAll(args []string) ([]string, error) {
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			return nil, c.flagErr(err)
		}
		rest := c.fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

const filtersUsage = "hostgate-cli filters list|create|delete ..."

// filters dispatches the saved filter subcommands.
func (a *app) filters(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("filters: missing subcommand", filtersUsage)
	}
	sub := map[string]func(context.Context, []string) error{
		"list":   a.filtersList,
		"create": a.filtersCreate,
		"delete": a.filtersDelete,
	}[args[0]]
	if sub == nil {
		return usageErr(fmt.Sprintf("filters: unknown subcommand %q", args[0]), filtersUsage)
	}
	return sub(ctx, args[1:])
}

func (a *app) filtersList(ctx context.Context, args []string) error {
	if _, err := newCommand("filters list", "hostgate-cli filters list").parse(args, 0); err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	fs, err := a.client.ListFilters(cctx)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(fs)
	}
	t := newTable(a.stdout)
	row(t, "ID", "NAME", "QUERY", "UPDATED")
	for _, f := range fs {
		row(t, f.ID, f.Name, queryText(f.Query), stamp(f.UpdatedAt))
	}
	return t.Flush()
}

// queryText writes a filter's criteria as the flags that make it.
func queryText(q hostgate.FilterQuery) string {
	var parts []string
	for _, tag := range q.Tags {
		parts = append(parts, "--tag "+tag)
	}
	for _, f := range [][2]string{{"q", q.Q}, {"status", q.Status}, {"os", q.OS}, {"agent-version", q.AgentVersion}} {
		if f[1] != "" {
			parts = append(parts, "--"+f[0]+" "+quotePOSIX(f[1]))
		}
	}
	if q.Online != nil {
		parts = append(parts, "--online "+yesNo(*q.Online))
	}
	if len(parts) == 0 {
		return "(every host)"
	}
	return strings.Join(parts, " ")
}

func (a *app) filtersCreate(ctx context.Context, args []string) error {
	c := newCommand("filters create", "hostgate-cli filters create NAME [--tag K=V ...] [--q TEXT] [--status S] [--online yes|no] [--os OS] [--agent-version V]")
	var q hostgate.FilterQuery
	var tags listFlag
	c.fs.Var(&tags, "tag", "")
	c.fs.StringVar(&q.Q, "q", "", "")
	c.fs.StringVar(&q.Status, "status", "", "")
	online := c.fs.String("online", "", "")
	c.fs.StringVar(&q.OS, "os", "", "")
	c.fs.StringVar(&q.AgentVersion, "agent-version", "", "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if err := setOnline(&q, *online, c); err != nil {
		return err
	}
	q.Tags = tags
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	f, err := a.client.CreateFilter(cctx, pos[0], q)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(f)
	}
	fmt.Fprintf(a.stdout, "%s %s: %s\n", f.ID, f.Name, queryText(f.Query))
	return nil
}

func (a *app) filtersDelete(ctx context.Context, args []string) error {
	pos, err := newCommand("filters delete", "hostgate-cli filters delete FILTER").parse(args, 1)
	if err != nil {
		return err
	}
	id, err := a.resolveFilter(ctx, pos[0])
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	if err := a.client.DeleteFilter(cctx, id); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(map[string]any{"id": id, "deleted": true})
	}
	fmt.Fprintf(a.stdout, "deleted filter %s\n", id)
	return nil
}

// webhookSecret rotates (or shows the state of) the user's webhook
// secret, which signs job.finished deliveries.
func (a *app) webhookSecret(ctx context.Context, args []string) error {
	const usage = "hostgate-cli webhook-secret show|rotate"
	c := newCommand("webhook-secret", usage)
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	var s hostgate.WebhookSecret
	switch pos[0] {
	case "show":
		s, err = a.client.GetWebhookSecret(cctx)
	case "rotate":
		s, err = a.client.RotateWebhookSecret(cctx)
	default:
		return usageErr(fmt.Sprintf("webhook-secret: unknown subcommand %q", pos[0]), usage)
	}
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(s)
	}
	if s.Secret != "" {
		fmt.Fprintln(a.stdout, s.Secret)
		fmt.Fprintln(a.stderr, "hostgate-cli: the webhook secret is shown only this once; the previous one no longer signs")
		return nil
	}
	if !s.Configured {
		fmt.Fprintln(a.stdout, "no webhook secret: hostgate-cli webhook-secret rotate creates one")
		return nil
	}
	fmt.Fprintf(a.stdout, "configured since %s\n", timeOrDash(s.CreatedAt))
	return nil
}
