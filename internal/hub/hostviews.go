package hub

import (
	"context"

	"hostgate/internal/billing"
	"hostgate/internal/hosts"
	"hostgate/internal/httpapi"
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
