package httpapi

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
	"hostgate/internal/billing"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/upgrades"
)

// AdminHostItem is a host in the admin list.
type AdminHostItem struct {
	hosts.AdminHost
	WSConnected bool `json:"ws_connected" doc:"Whether the agent is connected now"`
	Online      bool `json:"online" doc:"Deprecated alias of ws_connected"`
}

type adminListHostsIn struct {
	PageParams
	Q            string        `query:"q" maxLength:"254" doc:"Part of the owner's email, host name, host id or public IP (case-insensitive); a query of 1 or 2 characters matches the start of one of them"`
	Status       string        `query:"status" enum:"pending,online,stale,offline,banned" doc:"Only hosts in this stored status"`
	Online       string        `query:"online" enum:"true,false" doc:"Only hosts whose stored status is online (true) or is not (false): the persisted liveness, up to the liveness flush behind the agent connection (docs/hosts.md)"`
	OS           string        `query:"os" maxLength:"64" doc:"Only hosts of this OS family: the reported OS or its first word (linux, windows)"`
	AgentVersion string        `query:"agent_version" maxLength:"64" doc:"Only hosts whose agent reported exactly this version"`
	UserID       string        `query:"user_id" maxLength:"64" doc:"Only this user's hosts"`
	Tag          []string      `query:"tag,explode" maxItems:"32" doc:"Repeatable: key=value, key= or key (any value); every one must match. A bad expression is 400 invalid_query"`
	Sort         adminHostSort `query:"sort" doc:"Order; a leading - is descending (default -created_at, newest first). Never-seen hosts sort as the oldest by last_seen_at"`
}

// adminHostSort is the sort parameter of GET /v1/admin/hosts, a
// hosts.AdminSort; its OpenAPI enum is hosts.AdminSorts.
type adminHostSort string

// Schema implements huma.SchemaProvider.
func (adminHostSort) Schema(huma.Registry) *huma.Schema { return enumSchema(hosts.AdminSorts) }

// enumSchema is a string schema of the values.
func enumSchema(values []string) *huma.Schema {
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = v
	}
	return &huma.Schema{Type: huma.TypeString, Enum: enum}
}

type adminHostsOut struct {
	Body struct {
		paging.Result[AdminHostItem]
		Q string `json:"q"`
	}
}

type adminHostOut struct {
	Body struct {
		Host        hosts.Host        `json:"host"`
		WSConnected bool              `json:"ws_connected"`
		Online      bool              `json:"online" doc:"Deprecated alias of ws_connected"`
		Upgrade     *upgrades.Upgrade `json:"upgrade,omitempty" doc:"The host's latest agent upgrade"`
		Owner       HostOwner         `json:"owner" doc:"The user the host belongs to"`
		Flaps1h     hosts.Flaps       `json:"flaps_1h" doc:"The host's connect and disconnect events of the last hour"`
	}
}

// HostOwner is the user a host belongs to, as the admin host page links it.
type HostOwner struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

type historyIn struct {
	HostIDParam
	Limit int `query:"limit" minimum:"1" maximum:"1440" default:"100"`
}

type metricsOut struct {
	Body struct {
		Items []hosts.Metrics `json:"items"`
	}
}

type eventsOut struct {
	Body struct {
		Items []hosts.Event `json:"items"`
	}
}

type deletedOut struct{ Status int }

func (s *Server) adminListHosts(ctx context.Context, in *adminListHostsIn) (*adminHostsOut, error) {
	q := hosts.AdminQuery{Query: in.Q, Status: hosts.Status(in.Status), OS: in.OS, AgentVersion: in.AgentVersion,
		UserID: in.UserID, Tags: in.Tag, Sort: hosts.AdminSort(in.Sort)}
	if in.Online != "" {
		on := in.Online == "true"
		q.Online = &on
	}
	res, on, err := s.cfg.Agents.AdminLiveHostPage(ctx, q, in.page())
	if err != nil {
		return nil, err
	}
	items := make([]AdminHostItem, len(res.Items))
	for i, h := range res.Items {
		items[i] = AdminHostItem{AdminHost: h, WSConnected: on[h.ID], Online: on[h.ID]}
	}
	out := &adminHostsOut{}
	out.Body.Result = paging.Result[AdminHostItem]{Items: items, Total: res.Total, Limit: res.Limit, Offset: res.Offset, NextCursor: res.NextCursor}
	out.Body.Q = in.Q
	return out, nil
}

func (s *Server) adminGetHost(ctx context.Context, in *HostIDParam) (*adminHostOut, error) {
	st, err := s.cfg.Agents.AdminHostState(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	owner, err := s.cfg.Accounts.Get(ctx, st.Host.UserID)
	if err != nil {
		return nil, err
	}
	flaps, err := s.cfg.Hosts.Flaps(ctx, st.Host.ID)
	if err != nil {
		return nil, err
	}
	out := &adminHostOut{}
	out.Body.Host, out.Body.WSConnected, out.Body.Online, out.Body.Upgrade = st.Host, st.Online, st.Online, st.Upgrade
	out.Body.Owner, out.Body.Flaps1h = HostOwner{ID: owner.ID, Email: owner.Email}, flaps
	return out, nil
}

func (s *Server) adminDeleteHost(ctx context.Context, in *HostIDParam) (*deletedOut, error) {
	if err := s.cfg.Hosts.AdminDelete(ctx, actor(ctx), in.ID); err != nil {
		return nil, err
	}
	return &deletedOut{Status: 204}, nil
}

func (s *Server) adminBanHost(ctx context.Context, in *HostIDParam) (*hostOut, error) {
	h, err := s.cfg.Hosts.SetBanned(ctx, actor(ctx), in.ID, true)
	if err != nil {
		return nil, err
	}
	return &hostOut{Body: h}, nil
}

func (s *Server) adminUnbanHost(ctx context.Context, in *HostIDParam) (*hostOut, error) {
	h, err := s.cfg.Hosts.SetBanned(ctx, actor(ctx), in.ID, false)
	if err != nil {
		return nil, err
	}
	return &hostOut{Body: h}, nil
}

func (s *Server) adminHostMetrics(ctx context.Context, in *historyIn) (*metricsOut, error) {
	m, err := s.cfg.Hosts.Metrics(ctx, in.ID, in.Limit)
	if err != nil {
		return nil, err
	}
	out := &metricsOut{}
	out.Body.Items = m
	return out, nil
}

func (s *Server) adminHostEvents(ctx context.Context, in *historyIn) (*eventsOut, error) {
	e, err := s.cfg.Hosts.Events(ctx, in.ID, in.Limit)
	if err != nil {
		return nil, err
	}
	out := &eventsOut{}
	out.Body.Items = e
	return out, nil
}

// DashboardSummary is what the back office sees at a glance.
type DashboardSummary struct {
	OnlineHosts     int64                `json:"online_hosts" doc:"Agents connected now, cluster-wide"`
	HostsByStatus   map[hosts.Status]int `json:"hosts_by_status"`
	TotalHosts      int                  `json:"total_hosts"`
	TodayRevenueCNY float64              `json:"today_revenue_cny" doc:"Recharges paid minus refunded since 00:00 UTC"`
	TodayCalls      int64                `json:"today_calls" doc:"Charged client API calls since 00:00 UTC"`
	TodayTokens     float64              `json:"today_tokens_charged" doc:"Tokens those calls took"`
	PendingOrders   int64                `json:"pending_recharges" doc:"Recharge orders awaiting payment"`
	BillingMode     string               `json:"billing_mode" enum:"free,charging"`
	WebhooksPending int64                `json:"webhooks_pending" doc:"Webhook deliveries waiting to be sent (pending or retrying)"`
	WebhooksDead    int64                `json:"webhooks_dead" doc:"Webhook deliveries dead-lettered, waiting for a manual retry"`
	UsersTotal      int                  `json:"users_total" doc:"Users, any status"`
	UsersSuspended  int                  `json:"users_suspended"`
}

type dashboardOut struct{ Body DashboardSummary }

func (s *Server) adminDashboard(ctx context.Context, _ *struct{}) (*dashboardOut, error) {
	live, err := s.cfg.Admins.Live(ctx)
	if err != nil {
		return nil, err
	}
	online := live.OnlineHosts
	users, err := s.cfg.Accounts.CountByStatus(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := s.cfg.Hosts.CountByStatus(ctx)
	if err != nil {
		return nil, err
	}
	today, err := s.cfg.Billing.Today(ctx)
	if err != nil {
		return nil, err
	}
	mode, err := s.cfg.Billing.Mode(ctx)
	if err != nil {
		return nil, err
	}
	out := &dashboardOut{Body: DashboardSummary{OnlineHosts: online, HostsByStatus: counts,
		TodayRevenueCNY: billing.CNY(today.PaidFen - today.RefundedFen), TodayCalls: today.Charges,
		TodayTokens: today.Charged.Tokens(), PendingOrders: today.Pending, BillingMode: mode,
		WebhooksPending: live.WebhooksPending, WebhooksDead: live.WebhooksDead, UsersSuspended: users[accounts.StatusSuspended]}}
	for _, n := range counts {
		out.Body.TotalHosts += n
	}
	for _, n := range users {
		out.Body.UsersTotal += n
	}
	return out, nil
}
