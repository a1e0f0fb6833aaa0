package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	hostgate "hostgate/sdk/go"
)

// command is one subcommand's flag set and usage line.
type command struct {
	fs    *flag.FlagSet
	usage string
}

func newCommand(name, usage string) command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return command{fs, usage}
}

// parse parses the flags anywhere among args and returns the positional
// arguments, wanting exactly n of them; after "--" every argument is
// positional.
func (c command) parse(args []string, n int) ([]string, error) {
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			return nil, c.flagErr(err)
		}
		rest := c.fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	if len(pos) != n {
		return nil, c.wrongArgs(len(pos), n)
	}
	return pos, nil
}

// parseCommandLine parses flags up to the first positional argument (the
// host), then up to "--" or the next positional argument; what follows is
// the remote command line.
func (c command) parseCommandLine(args []string) (host string, argv []string, err error) {
	if err := c.fs.Parse(args); err != nil {
		return "", nil, c.flagErr(err)
	}
	if c.fs.NArg() == 0 {
		return "", nil, usageErr("missing HOST", c.usage)
	}
	host = c.fs.Arg(0)
	if err := c.fs.Parse(c.fs.Args()[1:]); err != nil {
		return "", nil, c.flagErr(err)
	}
	if c.fs.NArg() == 0 {
		return "", nil, usageErr("missing PROGRAM", c.usage)
	}
	return host, c.fs.Args(), nil
}

func (c command) flagErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return &helpRequest{c.usage}
	}
	return usageErr(c.fs.Name()+": "+err.Error(), c.usage)
}

func (c command) wrongArgs(got, want int) error {
	if got < want {
		return usageErr(c.fs.Name()+": missing arguments", c.usage)
	}
	return usageErr(fmt.Sprintf("%s: %d arguments, want %d", c.fs.Name(), got, want), c.usage)
}

var hostIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// resolveHost turns HOST, a host id or a unique host name, into an id;
// h is the host when a name had to be looked up.
func (a *app) resolveHost(ctx context.Context, arg string) (id string, h *hostgate.Host, err error) {
	if hostIDPattern.MatchString(arg) {
		return arg, nil, nil
	}
	cctx, cancel := a.callCtx(ctx, 0)
	defer cancel()
	hosts, err := a.client.ListHosts(cctx)
	if err != nil {
		return "", nil, err
	}
	id, err = hostByName(hosts, arg)
	if err != nil {
		return "", nil, err
	}
	for i := range hosts {
		if hosts[i].ID == id {
			return id, &hosts[i], nil
		}
	}
	return id, nil, nil
}

// hostByName is the id of the one host named name among hosts.
func hostByName(hosts []hostgate.Host, name string) (string, error) {
	var ids []string
	for _, x := range hosts {
		if x.Name == name {
			ids = append(ids, x.ID)
		}
	}
	switch len(ids) {
	case 0:
		return "", &hostgate.Error{Status: 404, Code: "not_found", Message: fmt.Sprintf("no host with the id or name %q", name)}
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%d hosts are named %q (%s): give the host id", len(ids), name, strings.Join(ids, ", "))
}

// resolveHosts turns each of args (host ids or unique names) into an id,
// listing the hosts at most once.
func (a *app) resolveHosts(ctx context.Context, args []string) ([]string, error) {
	ids := make([]string, len(args))
	var hosts []hostgate.Host
	listed := false
	for i, arg := range args {
		if hostIDPattern.MatchString(arg) {
			ids[i] = arg
			continue
		}
		if !listed {
			cctx, cancel := a.callCtx(ctx, 0)
			var err error
			hosts, err = a.client.ListHosts(cctx)
			cancel()
			if err != nil {
				return nil, err
			}
			listed = true
		}
		id, err := hostByName(hosts, arg)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}
