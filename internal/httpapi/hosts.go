package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/agentproto"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/upgrades"
	"hostgate/internal/webhooks"
)

// HostListItem is a host with its live connection state.
type HostListItem struct {
	hosts.Host
	Online bool `json:"online" doc:"Whether the agent is connected now (cluster-wide)"`
}

type hostItemsOut struct {
	Body struct {
		Items      []HostListItem `json:"items"`
		Total      *int           `json:"total,omitempty" doc:"Hosts matching the query; present when any query parameter (q, status, sort, limit, offset, cursor, online, os, agent_version, tag, filter_id) is given"`
		Limit      *int           `json:"limit,omitempty" doc:"The page size used; present with total"`
		Offset     *int           `json:"offset,omitempty" doc:"The items skipped; present with total (0 on a page asked for by cursor)"`
		NextCursor string         `json:"next_cursor,omitempty" doc:"Pass as cursor, with the same other query parameters, for the page after this one; absent on the last page"`
	}
}

// userListHostsIn is the optional query of GET /v1/user/hosts. With none
// of it the answer is every host as {items} (the answer before paging);
// with any of it, one page as {items, total, limit, offset}.
type userListHostsIn struct {
	Q      string   `query:"q" maxLength:"254" doc:"Host name contains this (case-insensitive), or the host id is exactly this"`
	Status string   `query:"status" enum:"pending,online,stale,offline,banned" doc:"Only hosts in this stored status (docs/hosts.md); the live agent connection is each item's online"`
	Sort   hostSort `query:"sort" doc:"Order; a leading - is descending (default -created_at, newest first). Never-seen hosts sort as the oldest by last_seen_at"`
	HostFilterParams
	PageParams
	paged bool
}

// hostSort is the sort parameter of GET /v1/user/hosts, a hosts.Sort;
// its OpenAPI enum is hosts.Sorts, so the document (and the console's
// generated type) lists the orders the store has.
type hostSort string

// Schema implements huma.SchemaProvider.
func (hostSort) Schema(huma.Registry) *huma.Schema {
	enum := make([]any, len(hosts.Sorts))
	for i, s := range hosts.Sorts {
		enum[i] = string(s)
	}
	return &huma.Schema{Type: huma.TypeString, Enum: enum}
}

// userListQuery names the parameters that turn on paging.
var userListQuery = append([]string{"q", "status", "sort", "limit", "offset", "cursor"}, hostFilterQuery...)

// Resolve notes whether any paging or filter parameter was sent, even
// empty, before huma fills in the defaults.
func (in *userListHostsIn) Resolve(ctx huma.Context) []error {
	u := ctx.URL()
	q := u.Query()
	for _, name := range userListQuery {
		if q.Has(name) {
			in.paged = true
		}
	}
	// Every tag as sent: huma drops an empty one, which is a bad
	// expression (400 invalid_query from the service).
	in.Tag = q["tag"]
	// This Resolve hides the one of the embedded PageParams from huma.
	return in.PageParams.Resolve(ctx)
}

type hostOut struct{ Body hosts.Host }

type userHostOut struct {
	Body struct {
		Host    hosts.Host        `json:"host"`
		Online  bool              `json:"online"`
		Upgrade *upgrades.Upgrade `json:"upgrade,omitempty" doc:"The host's latest agent upgrade; absent when none"`
	}
}

type HostIDParam struct {
	ID string `path:"id" format:"uuid" doc:"Host id"`
}

type createHostBody struct {
	Name            string `json:"name" required:"false" doc:"Required: 1 to 64 characters; no control or bidirectional control characters (docs/api.md, Names)"`
	ListenPort      *int   `json:"listen_port,omitempty" doc:"Agent's local L1 port, 1024-65535 (default 23456)"`
	WithCredentials bool   `json:"with_credentials,omitempty" doc:"Also issue install credentials and return them as credentials, beside the host's fields (as POST /v1/api/hosts does under credentials)"`
}

type createHostIn struct{ Body createHostBody }

type updateHostIn struct {
	HostIDParam
	Body struct {
		Name       *string `json:"name,omitempty" doc:"1 to 64 characters; no control or bidirectional control characters (docs/api.md, Names)"`
		ListenPort *int    `json:"listen_port,omitempty"`
	}
}

// liveItems pairs hosts with their live connection state.
func liveItems(hs []hosts.Host, on map[string]bool) []HostListItem {
	items := make([]HostListItem, len(hs))
	for i, h := range hs {
		items[i] = HostListItem{Host: h, Online: on[h.ID]}
	}
	return items
}

// hostItems answers a whole list of hosts.
func hostItems(hs []hosts.Host, on map[string]bool, err error) (*hostItemsOut, error) {
	if err != nil {
		return nil, err
	}
	out := &hostItemsOut{}
	out.Body.Items = liveItems(hs, on)
	return out, nil
}

// hostPage answers one page of hosts.
func hostPage(res paging.Result[hosts.Host], on map[string]bool) *hostItemsOut {
	out := &hostItemsOut{}
	out.Body.Items = liveItems(res.Items, on)
	out.Body.Total, out.Body.Limit, out.Body.Offset = &res.Total, &res.Limit, &res.Offset
	out.Body.NextCursor = res.NextCursor
	return out
}

func (s *Server) userListHosts(ctx context.Context, in *userListHostsIn) (*hostItemsOut, error) {
	owner := userOf(ctx).UserID
	if !in.paged {
		return hostItems(s.cfg.Agents.LiveHosts(ctx, owner))
	}
	res, on, err := s.cfg.Agents.LiveHostPage(ctx, owner, ownedFilter(in.Q, in.Status, string(in.Sort), in.HostFilterParams), in.page())
	if err != nil {
		return nil, err
	}
	return hostPage(res, on), nil
}

func (s *Server) userHostRoutes() {
	tags := []string{"hosts"}
	user := func(method, path, id, summary string) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Tags: tags, Security: userSecurity}
	}
	op(s, user(http.MethodGet, "/v1/user/hosts", "userListHosts",
		"List my hosts: all of them, or one page searched, filtered and sorted"), s.userListHosts)
	op(s, user(http.MethodPost, "/v1/user/hosts", "userCreateHost", "Create a host, optionally with install credentials"), s.userCreateHost)
	op(s, user(http.MethodGet, "/v1/user/hosts/{id}", "userGetHost", "Get a host and whether its agent is connected"), s.userGetHost)
	op(s, user(http.MethodPut, "/v1/user/hosts/{id}", "userUpdateHost", "Rename a host or change its listen port"), s.userUpdateHost)
	op(s, user(http.MethodDelete, "/v1/user/hosts/{id}", "userDeleteHost", "Delete a host (soft); its agent is dropped at once"), s.userDeleteHost)
	op(s, user(http.MethodPost, "/v1/user/hosts/{id}/install-token", "userInstallToken",
		"Issue a new install token and agent key pair (the previous ones stop working)"), s.userInstallToken)
	op(s, user(http.MethodPost, "/v1/user/hosts/{id}/rotate-secret", "userRotateSecret",
		"Rotate the secret key and agent key pair; the running agent is dropped"), s.userRotateSecret)
	op(s, user(http.MethodGet, "/v1/user/hosts/{id}/metrics", "userHostMetrics",
		"The host's stored metrics samples, newest first (free)"), s.userHostMetrics)
	info := user(http.MethodPost, "/v1/user/hosts/{id}/system/info", "userSystemInfo",
		"System information from the host's agent, charged as control.system_info.per_call like the client API route")
	info.Description = "409 host_offline when the agent is not connected; 402 insufficient_balance when the balance is below the price (nothing is sent)."
	op(s, info, s.userSystemInfo)
}

// userCreatedHostOut is the Host, as the route has always answered, plus
// credentials when with_credentials asked for them (the client API's
// POST /v1/api/hosts answers {host, credentials} instead; this route keeps
// a bare Host for its existing callers).
type userCreatedHostOut struct {
	Body struct {
		hosts.Host
		Credentials *hosts.Credentials `json:"credentials,omitempty" doc:"The host's first install credentials (hostgate addition); present only when with_credentials is true; shown once"`
	}
}

func (s *Server) userCreateHost(ctx context.Context, in *createHostIn) (*userCreatedHostOut, error) {
	h, c, err := s.cfg.Hosts.Create(ctx, userOf(ctx).UserID, in.Body.Name, in.Body.ListenPort, in.Body.WithCredentials)
	if err != nil {
		return nil, err
	}
	out := &userCreatedHostOut{}
	out.Body.Host, out.Body.Credentials = h, c
	return out, nil
}

func (s *Server) userGetHost(ctx context.Context, in *HostIDParam) (*userHostOut, error) {
	st, err := s.cfg.Agents.HostState(ctx, userOf(ctx).UserID, in.ID)
	if err != nil {
		return nil, err
	}
	out := &userHostOut{}
	out.Body.Host, out.Body.Online, out.Body.Upgrade = st.Host, st.Online, st.Upgrade
	return out, nil
}

func (s *Server) userHostMetrics(ctx context.Context, in *historyIn) (*metricsOut, error) {
	m, err := s.cfg.Hosts.OwnedMetrics(ctx, userOf(ctx).UserID, in.ID, in.Limit)
	if err != nil {
		return nil, err
	}
	out := &metricsOut{}
	out.Body.Items = m
	return out, nil
}

// userSystemInfo is the client API's system/info for the console: the
// same operation, checked, charged (without an API key) and sent the
// same way.
func (s *Server) userSystemInfo(ctx context.Context, in *HostIDParam) (*opOut[agentproto.SystemInfo], error) {
	return runOp[noData, agentproto.SystemInfo](ctx, s, caller{UserID: userOf(ctx).UserID}, "system/info", in.ID, opBody[noData]{})
}

func (s *Server) userUpdateHost(ctx context.Context, in *updateHostIn) (*hostOut, error) {
	h, err := s.cfg.Hosts.Update(ctx, userOf(ctx).UserID, in.ID, in.Body.Name, in.Body.ListenPort)
	if err != nil {
		return nil, err
	}
	return &hostOut{Body: h}, nil
}

func (s *Server) userDeleteHost(ctx context.Context, in *HostIDParam) (*OK, error) {
	if err := s.cfg.Hosts.Delete(ctx, userOf(ctx).UserID, in.ID); err != nil {
		return nil, err
	}
	return ok(), nil
}

type userInstallTokenOut struct {
	Body struct {
		InstallToken   string               `json:"install_token"`
		ExpiresAt      time.Time            `json:"expires_at"`
		InstallCommand hosts.InstallCommand `json:"install_command" doc:"The one-line installs of this token (hostgate addition); the same as credentials.install_command"`
		Credentials    hosts.Credentials    `json:"credentials" doc:"The full install credentials (hostgate addition); shown once"`
	}
}

func (s *Server) userInstallToken(ctx context.Context, in *HostIDParam) (*userInstallTokenOut, error) {
	c, err := s.cfg.Hosts.IssueInstallToken(ctx, userOf(ctx).UserID, in.ID)
	if err != nil {
		return nil, err
	}
	out := &userInstallTokenOut{}
	out.Body.InstallToken, out.Body.ExpiresAt, out.Body.Credentials = c.InstallToken, c.InstallTokenExpiresAt, c
	out.Body.InstallCommand = c.InstallCommand
	return out, nil
}

type rotatedHostOut struct {
	Body struct {
		hosts.Host
		Credentials hosts.Credentials `json:"credentials" doc:"The new install credentials (hostgate addition); shown once"`
	}
}

func (s *Server) userRotateSecret(ctx context.Context, in *HostIDParam) (*rotatedHostOut, error) {
	owner := userOf(ctx).UserID
	h, c, err := s.cfg.Hosts.RotateSecretView(ctx, owner, in.ID,
		hosts.ChangedBy{Source: string(webhooks.SourceWeb), Kind: webhooks.ActorUser, ID: owner, IP: clientIP(ctx)})
	if err != nil {
		return nil, err
	}
	out := &rotatedHostOut{}
	out.Body.Host, out.Body.Credentials = h, c
	return out, nil
}

// hostCommandable checks that a command may go to the owner's host now
// (kept for a moment: hosts.Service.Commandable).
func (s *Server) hostCommandable(ctx context.Context, owner, id string) error {
	return s.cfg.Hosts.Commandable(ctx, owner, id)
}
