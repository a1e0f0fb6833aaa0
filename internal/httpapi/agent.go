package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

type onlineIn struct{ Body agentproto.OnlineRequest }
type tokenOut struct{ Body agentproto.TokenResponse }
type refreshAgentIn struct{ Body agentproto.RefreshRequest }

// refreshOut is either step of a token refresh: a challenge, or a token.
type refreshOut struct {
	Body struct {
		Challenge  string     `json:"challenge,omitempty" doc:"Step one: sign ChallengeMessage(host_id, challenge)"`
		ExpiresIn  int        `json:"expires_in,omitempty"`
		AgentToken string     `json:"agent_token,omitempty" doc:"Step two: the new agent token"`
		ExpiresAt  *time.Time `json:"expires_at,omitempty"`
		HostID     string     `json:"host_id,omitempty"`
	}
}

type heartbeatIn struct {
	Authorization string `header:"Authorization" doc:"Bearer <agent token>"`
	Body          agentproto.HeartbeatRequest
}
type heartbeatOut struct{ Body agentproto.HeartbeatResponse }

func (s *Server) agentRoutes() {
	tags := []string{"agent"}
	op(s, huma.Operation{OperationID: "agentOnline", Method: http.MethodPost, Path: agentproto.PathOnline,
		Summary: "Consume an install token (once) for an agent token", Tags: tags}, s.agentOnline)
	op(s, huma.Operation{OperationID: "agentTokenRefresh", Method: http.MethodPost, Path: agentproto.PathRefresh,
		Summary: "Renew an agent token by ed25519 challenge-response (two steps; docs/agent-protocol.md)", Tags: tags}, s.agentRefresh)
	op(s, huma.Operation{OperationID: "agentHeartbeat", Method: http.MethodPost, Path: agentproto.PathHeartbeat,
		Summary: "Fallback heartbeat while the WebSocket reconnects", Tags: tags}, s.agentHeartbeat)
	s.raw("GET "+agentproto.PathWS, s.agentWS, huma.Operation{OperationID: "agentWS", Tags: tags,
		Summary:   "Upgrade to the agent WebSocket (Bearer agent token); 503 with Retry-After when shedding load",
		Responses: map[string]*huma.Response{"101": {Description: "Switching protocols"}}})
}

func (s *Server) agentOnline(ctx context.Context, in *onlineIn) (*tokenOut, error) {
	t, err := s.cfg.Hosts.Online(ctx, in.Body.HostID, in.Body.InstallToken)
	if err != nil {
		return nil, err
	}
	return &tokenOut{Body: t}, nil
}

func (s *Server) agentRefresh(ctx context.Context, in *refreshAgentIn) (*refreshOut, error) {
	out := &refreshOut{}
	if in.Body.Challenge == "" {
		c, err := s.cfg.Hosts.Challenge(ctx, in.Body.HostID)
		if err != nil {
			return nil, err
		}
		out.Body.Challenge, out.Body.ExpiresIn = c.Challenge, c.ExpiresIn
		return out, nil
	}
	t, err := s.cfg.Hosts.Refresh(ctx, in.Body.HostID, in.Body.Challenge, in.Body.Signature)
	if err != nil {
		return nil, err
	}
	out.Body.AgentToken, out.Body.ExpiresAt, out.Body.HostID = t.AgentToken, &t.ExpiresAt, t.HostID
	return out, nil
}

func agentBearer(h string) (string, error) {
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || strings.TrimSpace(tok) == "" {
		return "", apperr.New("missing_agent_token", "an agent token is required")
	}
	return strings.TrimSpace(tok), nil
}

func (s *Server) agentHeartbeat(ctx context.Context, in *heartbeatIn) (*heartbeatOut, error) {
	tok, err := agentBearer(in.Authorization)
	if err != nil {
		return nil, err
	}
	a, err := s.cfg.Hosts.AuthenticateAgent(ctx, tok)
	if err != nil {
		return nil, err
	}
	s.cfg.Agents.Seen(a.Host.ID)
	return &heartbeatOut{Body: agentproto.HeartbeatResponse{OK: true, ServerTime: time.Now().UnixMilli()}}, nil
}

// agentWS authenticates before upgrading, inside an admission slot, so a
// reconnect storm is shed with 503 before it costs a database read.
func (s *Server) agentWS(w http.ResponseWriter, r *http.Request) {
	release, retry, ok := s.cfg.Agents.Admit()
	if !ok {
		w.Header().Set(agentproto.RetryAfterHeader, strconv.Itoa(int(retry.Round(time.Second)/time.Second)))
		writeProblem(w, &Problem{Status: 503, Code: apperr.CodeUnavailable, Message: "too many agents connecting; retry later"})
		return
	}
	defer release()
	tok, err := agentBearer(r.Header.Get("Authorization"))
	var a hosts.Agent
	if err == nil {
		a, err = s.cfg.Hosts.AuthenticateAgent(r.Context(), tok)
	}
	if err != nil {
		writeProblem(w, problemFor(s.log, r, err))
		return
	}
	s.cfg.Agents.Upgrade(w, r, a, clientIP(r.Context()))
}
