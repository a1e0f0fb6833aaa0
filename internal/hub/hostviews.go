package hub

import (
	"context"

	"hostgate/internal/billing"
	"hostgate/internal/hosts"
	"hostgate/internal/httpapi"
	"hostgate/internal/paging"
)

// The host views: a host with its presence and upgrade state, read in
// the order the routes have always read them (the row first, so an
// unknown host is not_found before anything else is asked).

func (a agents) HostState(ctx context.Context, owner, id string) (httpapi.HostState, error) {
	h, err := a.hosts.Get(ctx, owner, id)
	if err != nil {
		return httpapi.HostState{}, err
	}
	return a.withState(ctx, h)
}

func (a agents) AdminHostState(ctx context.Context, id string) (httpapi.HostState, error) {
	h, err := a.hosts.AdminGet(ctx, id)
	if err != nil {
		return httpapi.HostState{}, err
	}
	return a.withState(ctx, h)
}

func (a agents) ChargedHostState(ctx context.Context, owner, apiKeyID, id string) (httpapi.HostState, error) {
	h, err := a.hosts.Get(ctx, owner, id)
	if err != nil {
		return httpapi.HostState{}, err
	}
	on, err := a.dispatch.Online(ctx, h.ID)
	if err != nil {
		return httpapi.HostState{}, err
	}
	if err := a.charge.Charge(ctx, owner, apiKeyID, id, billing.RuleHostQuery); err != nil {
		return httpapi.HostState{}, err
	}
	return httpapi.HostState{Host: h, Online: on}, nil
}

// withState adds h's presence and latest upgrade.
func (a agents) withState(ctx context.Context, h hosts.Host) (httpapi.HostState, error) {
	on, err := a.dispatch.Online(ctx, h.ID)
	if err != nil {
		return httpapi.HostState{}, err
	}
	up, err := a.upgrades.Get(ctx, h.ID)
	if err != nil {
		return httpapi.HostState{}, err
	}
	return httpapi.HostState{Host: h, Online: on, Upgrade: up}, nil
}

func (a agents) LiveHosts(ctx context.Context, owner string) ([]hosts.Host, map[string]bool, error) {
	hs, err := a.hosts.List(ctx, owner)
	if err != nil {
		return nil, nil, err
	}
	on, err := a.dispatch.OnlineMany(ctx, hostIDs(hs, func(h hosts.Host) string { return h.ID }))
	if err != nil {
		return nil, nil, err
	}
	return hs, on, nil
}

func (a agents) ChargedLiveHosts(ctx context.Context, owner, apiKeyID string) ([]hosts.Host, map[string]bool, error) {
	if err := a.charge.Charge(ctx, owner, apiKeyID, "", billing.RuleHostQuery); err != nil {
		return nil, nil, err
	}
	return a.LiveHosts(ctx, owner)
}

func (a agents) LiveHostPage(ctx context.Context, owner string, f hosts.OwnedFilter, p paging.Page) (paging.Result[hosts.Host], map[string]bool, error) {
	res, err := a.hosts.Page(ctx, owner, f, p)
	if err != nil {
		return paging.Result[hosts.Host]{}, nil, err
	}
	on, err := a.dispatch.OnlineMany(ctx, hostIDs(res.Items, func(h hosts.Host) string { return h.ID }))
	if err != nil {
		return paging.Result[hosts.Host]{}, nil, err
	}
	return res, on, nil
}

func (a agents) ChargedLiveHostPage(ctx context.Context, owner, apiKeyID string, f hosts.OwnedFilter, p paging.Page) (paging.Result[hosts.Host], map[string]bool, error) {
	res, on, err := a.LiveHostPage(ctx, owner, f, p)
	if err != nil {
		return paging.Result[hosts.Host]{}, nil, err
	}
	if err := a.charge.Charge(ctx, owner, apiKeyID, "", billing.RuleHostQuery); err != nil {
		return paging.Result[hosts.Host]{}, nil, err
	}
	return res, on, nil
}

func (a agents) AdminLiveHostPage(ctx context.Context, q hosts.AdminQuery, p paging.Page) (paging.Result[hosts.AdminHost], map[string]bool, error) {
	res, err := a.hosts.AdminList(ctx, q, p)
	if err != nil {
		return paging.Result[hosts.AdminHost]{}, nil, err
	}
	on, err := a.dispatch.OnlineMany(ctx, hostIDs(res.Items, func(h hosts.AdminHost) string { return h.ID }))
	if err != nil {
		return paging.Result[hosts.AdminHost]{}, nil, err
	}
	return res, on, nil
}

// hostIDs is the id of each of hs.
func hostIDs[T any](hs []T, id func(T) string) []string {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = id(h)
	}
	return ids
}
