package httpapi

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/admin"
	"hostgate/internal/dashboard"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/versions"
)

// adminDashboardRoutes declares the dashboard's reads: its lines belong to
// the admin route→role table (adminRoutes), as docs/admin-roles.md shows.
func (s *Server) adminDashboardRoutes(get func(path, id, summary string) huma.Operation) {
	adminOp(s, admin.Anyone, "", get("/v1/admin/dashboard/series", "adminDashboardSeries", "Calls, tokens, revenue, online hosts and the webhook queue per hour or day (UTC)"), s.adminDashboardSeries)
	adminOp(s, admin.Anyone, "", get("/v1/admin/dashboard/agent-versions", "adminAgentVersions", "Hosts by the agent version they report, most first"), s.adminAgentVersions)
}

type seriesIn struct {
	Bucket string `query:"bucket" enum:"hour,day" default:"hour" doc:"Bucket length: whole UTC hours or days"`
	Points int    `query:"points" minimum:"0" doc:"Buckets, the last one holding now: hour 1..168 (default 24), day 1..90 (default 30)"`
}

type seriesOut struct{ Body dashboard.Series }

func (s *Server) adminDashboardSeries(ctx context.Context, in *seriesIn) (*seriesOut, error) {
	x, err := s.cfg.Admins.Series(ctx, in.Bucket, in.Points)
	if err != nil {
		return nil, err
	}
	return &seriesOut{Body: x}, nil
}

type agentVersionsOut struct {
	Body struct {
		Items []hosts.VersionCount `json:"items" doc:"Most hosts first, at most 50; version \"\" is hosts whose agent has not reported one yet"`
	}
}

func (s *Server) adminAgentVersions(ctx context.Context, _ *struct{}) (*agentVersionsOut, error) {
	v, err := s.cfg.Hosts.AgentVersions(ctx)
	if err != nil {
		return nil, err
	}
	out := &agentVersionsOut{}
	out.Body.Items = v
	return out, nil
}

// AdminVersion is a published version with the hosts that report it.
type AdminVersion struct {
	versions.Version
	HostCount int `json:"host_count" doc:"Undeleted hosts whose agent reports this version"`
}

func (s *Server) adminListVersions(ctx context.Context, in *listVersionsIn) (*pagedOut[AdminVersion], error) {
	res, err := s.cfg.Agents.ListVersions(ctx, versions.Filter{Channel: in.Channel, IncludeYanked: in.IncludeYanked}, in.page())
	if err != nil {
		return nil, err
	}
	names := make([]string, len(res.Items))
	for i, v := range res.Items {
		names[i] = v.Version
	}
	counts, err := s.cfg.Hosts.HostsByVersion(ctx, names)
	if err != nil {
		return nil, err
	}
	return &pagedOut[AdminVersion]{Body: paging.Map(res, func(v versions.Version) AdminVersion {
		return AdminVersion{Version: v, HostCount: counts[v.Version]}
	})}, nil
}
