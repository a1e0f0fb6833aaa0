package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/agentproto"
	"hostgate/internal/l1config"
	"hostgate/internal/webhooks"
)

// l1ConfigBody is the body of both PUT l1-config routes.
type l1ConfigBody struct {
	BID           int64  `json:"bid" doc:"Positive, at most 2^53-1, unique among your hosts"`
	SecretKey     string `json:"secret_key" maxLength:"256" doc:"Exactly 32 hexadecimal characters"`
	URL           string `json:"url" maxLength:"4096" doc:"Report URL: empty (none) or an absolute http(s) URL of at most 2048 characters"`
	WebhookFormat string `json:"webhook_format,omitempty" doc:"A or B; empty keeps the host's format (A for new hosts) (hostgate addition)"`
}

func (b l1ConfigBody) request() l1config.Request {
	return l1config.Request{BID: b.BID, SecretKey: b.SecretKey, URL: b.URL, WebhookFormat: b.WebhookFormat}
}

type l1ConfigIn struct {
	HostIDParam
	Body l1ConfigBody
}

type l1ConfigOut struct{ Body l1config.L1ConfigPutResp }

type agentSettingsIn struct {
	Authorization string `header:"Authorization" doc:"Bearer <agent token>"`
	Body          agentproto.SettingsRequest
}

type agentSettingsOut struct{ Body agentproto.SettingsResponse }

func (s *Server) l1ConfigRoutes() {
	op(s, huma.Operation{OperationID: "userPutL1Config", Method: http.MethodPut, Path: "/v1/user/hosts/{id}/l1-config",
		Summary: "Write the host's L1 configuration; queues a webhook delivery (source web)", Tags: []string{"hosts"},
		Security: userSecurity}, s.userPutL1Config)
	op(s, huma.Operation{OperationID: "apiPutL1Config", Method: http.MethodPut, Path: "/v1/api/hosts/{id}/l1-config",
		Summary: "Write the host's L1 configuration; queues a webhook delivery (source client_api); charged control.update_l1",
		Tags:    []string{"client-api"}, Security: apiKeySecurity}, s.apiPutL1Config)
	op(s, huma.Operation{OperationID: "agentSettings", Method: http.MethodPost, Path: agentproto.PathSettings,
		Summary: "An agent reports an L1 configuration change it made; queues a webhook delivery (source agent)",
		Tags:    []string{"agent"}}, s.agentSettings)
}

func (s *Server) userPutL1Config(ctx context.Context, in *l1ConfigIn) (*l1ConfigOut, error) {
	u := userOf(ctx)
	who := l1config.Who{Source: webhooks.SourceWeb,
		Actor: webhooks.Actor{Kind: webhooks.ActorUser, ID: u.UserID, IP: clientIP(ctx)}}
	r, err := s.cfg.Agents.UpdateL1Config(ctx, u.UserID, in.ID, who, in.Body.request())
	if err != nil {
		return nil, err
	}
	return &l1ConfigOut{Body: r}, nil
}

// apiPutL1Config is the charged write (l1config.Charged.Update), which
// validates and checks the host before charging, so that a request that
// can only fail costs nothing.
func (s *Server) apiPutL1Config(ctx context.Context, in *l1ConfigIn) (*l1ConfigOut, error) {
	c := clientOf(ctx)
	who := l1config.Who{Source: webhooks.SourceClientAPI,
		Actor: webhooks.Actor{Kind: webhooks.ActorAPIKey, ID: c.KeyID, IP: clientIP(ctx)}}
	r, err := s.cfg.Agents.ChargedUpdateL1Config(ctx, c.UserID, c.KeyID, in.ID, who, in.Body.request())
	if err != nil {
		return nil, err
	}
	return &l1ConfigOut{Body: r}, nil
}

func (s *Server) agentSettings(ctx context.Context, in *agentSettingsIn) (*agentSettingsOut, error) {
	tok, err := agentBearer(in.Authorization)
	if err != nil {
		return nil, err
	}
	a, err := s.cfg.Hosts.AuthenticateAgent(ctx, tok)
	if err != nil {
		return nil, err
	}
	b := in.Body
	who := l1config.Who{Source: webhooks.SourceAgent,
		Actor: webhooks.Actor{Kind: webhooks.ActorAgent, ID: a.Host.ID, IP: clientIP(ctx)}}
	r, err := s.cfg.Agents.UpdateL1Config(ctx, a.Host.UserID, a.Host.ID, who,
		l1config.Request{BID: b.BID, SecretKey: b.SecretKey, URL: b.URL, WebhookFormat: b.WebhookFormat})
	if err != nil {
		return nil, err
	}
	return &agentSettingsOut{Body: agentproto.SettingsResponse{OK: true, DeliveryID: r.DeliveryID}}, nil
}
