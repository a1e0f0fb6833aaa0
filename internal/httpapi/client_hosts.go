package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apikeys"
	"hostgate/internal/hosts"
	"hostgate/internal/webhooks"
)

var apiKeySecurity = []map[string][]string{{"apiKey": {}}}

// clientOf returns the API key holder of a /v1/api request.
func clientOf(ctx context.Context) apikeys.Principal {
	p, _ := ctx.Value(keyClient).(apikeys.Principal)
	return p
}

func (s *Server) authClient(r *http.Request) (*http.Request, error) {
	tok := credential(r, "")
	if tok == "" {
		return r, unauthorized("API key")
	}
	p, err := s.cfg.APIKeys.Authenticate(r.Context(), tok)
	if err != nil {
		return r, err
	}
	return r.WithContext(withValue(r.Context(), keyClient, p)), nil
}

type clientHostOut struct{ Body HostListItem }

type clientCreateHostIn struct {
	Body struct {
		Name            string `json:"name" required:"false" doc:"Required: 1 to 64 characters; no control or bidirectional control characters (docs/api.md, Names)"`
		ListenPort      *int   `json:"listen_port,omitempty" doc:"Agent's local L1 port, 1024-65535 (default 23456)"`
		WithCredentials bool   `json:"with_credentials,omitempty" doc:"Also issue install credentials and return them"`
	}
}

type clientCreatedOut struct {
	Status int
	Body   struct {
		Host        hosts.Host         `json:"host"`
		Credentials *hosts.Credentials `json:"credentials,omitempty"`
	}
}

type credentialsOut struct{ Body hosts.Credentials }

type noContent struct{ Status int }

type pingOut struct {
	Body struct {
		OK           bool   `json:"ok"`
		RTTMs        int64  `json:"rtt_ms"`
		AgentVersion string `json:"agent_version"`
	}
}

func (s *Server) clientHostRoutes() {
	tags := []string{"client-api"}
	api := func(method, path, id, summary string) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Tags: tags, Security: apiKeySecurity}
	}
	op(s, api(http.MethodGet, "/v1/api/hosts", "apiListHosts",
		"List the key holder's hosts: all of them, or one page searched, filtered and sorted (charged host.query)"), s.apiListHosts)
	op(s, api(http.MethodGet, "/v1/api/hosts/{id}", "apiGetHost", "Get a host with its live connection state"), s.apiGetHost)
	o := api(http.MethodPost, "/v1/api/hosts", "apiCreateHost", "Create a host, optionally with install credentials")
	o.DefaultStatus = http.StatusCreated
	op(s, o, s.apiCreateHost)
	o = api(http.MethodDelete, "/v1/api/hosts/{id}", "apiDeleteHost", "Delete a host (soft); its agent is dropped at once")
	o.DefaultStatus = http.StatusNoContent
	op(s, o, s.apiDeleteHost)
	op(s, api(http.MethodPost, "/v1/api/hosts/{id}/install-token", "apiInstallToken",
		"Issue install credentials: new key pair and install token; the secret key is kept"), s.apiInstallToken)
	op(s, api(http.MethodPost, "/v1/api/hosts/{id}/rotate-secret", "apiRotateSecret",
		"Issue install credentials with a new secret key; the running agent is dropped"), s.apiRotateSecret)
	op(s, api(http.MethodPost, "/v1/api/hosts/{id}/ping", "apiPingHost",
		"Round-trip a no-op command to the agent (hostgate addition)"), s.apiPingHost)
}

// apiListHosts answers every host as {items} when no query parameter is
// given (the answer before paging), else one page as the user list does.
func (s *Server) apiListHosts(ctx context.Context, in *userListHostsIn) (*hostItemsOut, error) {
	c := clientOf(ctx)
	if !in.paged {
		return hostItems(s.cfg.Agents.ChargedLiveHosts(ctx, c.UserID, c.KeyID))
	}
	res, on, err := s.cfg.Agents.ChargedLiveHostPage(ctx, c.UserID, c.KeyID,
		ownedFilter(in.Q, in.Status, string(in.Sort), in.HostFilterParams), in.page())
	if err != nil {
		return nil, err
	}
	return hostPage(res, on), nil
}

func (s *Server) apiGetHost(ctx context.Context, in *HostIDParam) (*clientHostOut, error) {
	c := clientOf(ctx)
	st, err := s.cfg.Agents.ChargedHostState(ctx, c.UserID, c.KeyID, in.ID)
	if err != nil {
		return nil, err
	}
	return &clientHostOut{Body: HostListItem{Host: st.Host, Online: st.Online}}, nil
}

func (s *Server) apiCreateHost(ctx context.Context, in *clientCreateHostIn) (*clientCreatedOut, error) {
	h, c, err := s.cfg.Hosts.Create(ctx, clientOf(ctx).UserID, in.Body.Name, in.Body.ListenPort, in.Body.WithCredentials)
	if err != nil {
		return nil, err
	}
	out := &clientCreatedOut{Status: http.StatusCreated}
	out.Body.Host, out.Body.Credentials = h, c
	return out, nil
}

func (s *Server) apiDeleteHost(ctx context.Context, in *HostIDParam) (*noContent, error) {
	if err := s.cfg.Hosts.Delete(ctx, clientOf(ctx).UserID, in.ID); err != nil {
		return nil, err
	}
	return &noContent{Status: http.StatusNoContent}, nil
}

func (s *Server) apiInstallToken(ctx context.Context, in *HostIDParam) (*credentialsOut, error) {
	c, err := s.cfg.Hosts.IssueInstallToken(ctx, clientOf(ctx).UserID, in.ID)
	if err != nil {
		return nil, err
	}
	return &credentialsOut{Body: c}, nil
}

func (s *Server) apiRotateSecret(ctx context.Context, in *HostIDParam) (*credentialsOut, error) {
	cl := clientOf(ctx)
	c, err := s.cfg.Hosts.RotateSecret(ctx, cl.UserID, in.ID,
		hosts.ChangedBy{Source: string(webhooks.SourceClientAPI), Kind: webhooks.ActorAPIKey, ID: cl.KeyID, IP: clientIP(ctx)})
	if err != nil {
		return nil, err
	}
	return &credentialsOut{Body: c}, nil
}

func (s *Server) apiPingHost(ctx context.Context, in *HostIDParam) (*pingOut, error) {
	c := clientOf(ctx)
	pong, err := s.cfg.Operations.Ping(ctx, c.UserID, c.KeyID, in.ID)
	if err != nil {
		return nil, err
	}
	out := &pingOut{}
	out.Body.OK, out.Body.RTTMs, out.Body.AgentVersion = true, pong.RTT.Milliseconds(), pong.AgentVersion
	return out, nil
}
