package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/operations"
)

// The game-engine orchestration routes (spec 4.5, issue 18): base_path in
// the query, the body is the operation's data. Package operations checks
// them with agentproto.ValidateArgs (400 invalid_body before the charge),
// charges control.orchestrate.per_call and sends them to the agent
// (docs/orchestration.md).

type orchestrateStartIn struct {
	ID       string `path:"id" format:"uuid" doc:"Host id"`
	BasePath string `query:"base_path" doc:"The game directory, or with resolve_game_dir a directory above it (absolute)"`
	Body     *agentproto.OrchestrateStartData
}

type orchestrateShutdownIn struct {
	ID       string `path:"id" format:"uuid" doc:"Host id"`
	BasePath string `query:"base_path" doc:"The game directory, or with resolve_game_dir a directory above it (absolute)"`
	Body     *agentproto.OrchestrateShutdownData
}

func (s *Server) clientOrchestrateRoutes() {
	op(s, clientOp(http.MethodPost, "/v1/api/hosts/{id}/orchestrate/start", "apiOrchestrateStart",
		"Start a game server family (16384): merge Config.ini, start the controller, then the children in manifest order"),
		func(ctx context.Context, in *orchestrateStartIn) (*opOut[agentproto.OrchestrateStartResult], error) {
			return runOrchestrate[agentproto.OrchestrateStartResult](ctx, s, "orchestrate/start", in.ID, in.BasePath, in.Body)
		})
	op(s, clientOp(http.MethodPost, "/v1/api/hosts/{id}/orchestrate/shutdown", "apiOrchestrateShutdown",
		"Shut a game server family down in three stages (32768): controller killed, quit message, window close, termination"),
		func(ctx context.Context, in *orchestrateShutdownIn) (*opOut[agentproto.OrchestrateShutdownResult], error) {
			return runOrchestrate[agentproto.OrchestrateShutdownResult](ctx, s, "orchestrate/shutdown", in.ID, in.BasePath, in.Body)
		})
}

// runOrchestrate runs an orchestration route: base_path is the
// operation's path, the body (optional) its data.
func runOrchestrate[R any, D any](ctx context.Context, s *Server, route, hostID, basePath string, body *D) (*opOut[R], error) {
	var data json.RawMessage
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, apperr.New(apperr.CodeInvalidBody, "the body cannot be encoded")
		}
		data = b
	}
	c := clientCaller(ctx)
	res, err := s.cfg.Operations.Run(ctx, operations.Call{
		Route: route, UserID: c.UserID, APIKeyID: c.KeyID, HostID: hostID, Path: basePath, Data: data,
	})
	if err != nil {
		return nil, err
	}
	out := &opOut[R]{}
	if err := json.Unmarshal(res, &out.Body); err != nil {
		return nil, apperr.New(operations.CodeOperationFailed, "the agent's answer is not a valid result")
	}
	return out, nil
}
