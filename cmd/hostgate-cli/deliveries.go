package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	hostgate "hostgate/sdk/go"
)

// deliveries prints the host's webhook history; with --follow it then
// polls and prints new deliveries and changed ones until interrupted.
func (a *app) deliveries(ctx context.Context, args []string) error {
	c := newCommand("deliveries", "hostgate-cli deliveries HOST [--limit N] [--follow] [--interval D]")
	limit := c.fs.Int("limit", 0, "")
	follow := c.fs.Bool("follow", false, "")
	interval := c.fs.Duration("interval", 2*time.Second, "")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if *limit < 0 || *limit > 200 {
		return usageErr("deliveries: --limit must be 1-200 (0: the hub's default, 50)", c.usage)
	}
	if *interval <= 0 {
		return usageErr("deliveries: --interval must be positive", c.usage)
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	list := func() ([]hostgate.WebhookDelivery, error) {
		cctx, cancel := a.callCtx(ctx, 0)
		defer cancel()
		return a.client.WebhookDeliveries(cctx, id, *limit)
	}
	ds, err := list()
	if err != nil {
		return err
	}
	if !*follow {
		if ds == nil {
			ds = []hostgate.WebhookDelivery{}
		}
		if a.json {
			return a.printJSON(ds)
		}
		return a.deliveryTable(ds)
	}
	return a.followDeliveries(ctx, ds, list, *interval)
}

// followDeliveries prints ds oldest first, then every delivery that is new
// or whose status, attempts or HTTP status changed, each poll. It ends
// without error when ctx is cancelled; a failed poll is reported and
// retried, an API error ends it.
func (a *app) followDeliveries(ctx context.Context, ds []hostgate.WebhookDelivery, list func() ([]hostgate.WebhookDelivery, error), interval time.Duration) error {
	seen := map[string]string{}
	if !a.json {
		fmt.Fprintln(a.stdout, followLine(deliveryHeader))
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, d := range slices.Backward(ds) {
			if k := deliveryState(d); seen[d.ID] != k {
				seen[d.ID] = k
				if err := a.followRow(d); err != nil {
					return err
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		next, err := list()
		if ctx.Err() != nil {
			return nil
		}
		if _, ok := errors.AsType[*hostgate.Error](err); ok {
			return err
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "hostgate-cli: %v (retrying)\n", err)
			ds = nil
			continue
		}
		ds = next
	}
}

func (a *app) followRow(d hostgate.WebhookDelivery) error {
	if a.json {
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintln(a.stdout, followLine(deliveryCells(d)))
	return err
}

// deliveryState is what --follow watches for change.
func deliveryState(d hostgate.WebhookDelivery) string {
	code := 0
	if d.HTTPStatus != nil {
		code = *d.HTTPStatus
	}
	return fmt.Sprintf("%s/%d/%d", d.Status, d.Attempts, code)
}

// followLine lays the delivery cells out in fixed columns, since --follow
// prints rows one at a time.
func followLine(cells []string) string {
	widths := []int{36, 22, 6, 14, 8, 4, 20}
	var b strings.Builder
	for i, c := range cells {
		if i < len(widths) {
			fmt.Fprintf(&b, "%-*s  ", widths[i], c)
		} else {
			b.WriteString(c)
		}
	}
	return strings.TrimRight(b.String(), " ")
}
