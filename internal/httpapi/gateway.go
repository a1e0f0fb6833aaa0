package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/l1"
)

// The legacy L1 entry (spec 4.7, docs/l1.md): POST /gateway?bid=<bid> with
// the base64 text as the body. Its answers are the legacy {code, data, msg},
// not {error, message}; package l1gate decides them, this file only moves
// bytes. It needs no credential: the message's encryption is one.

func (s *Server) gatewayRoutes() {
	s.raw("POST /gateway", s.gateway, huma.Operation{OperationID: "l1Gateway", Tags: []string{"legacy"},
		Summary: "Legacy L1 entry: one encrypted legacy control for the host named by bid",
		Description: "Query `bid`; the body is the base64 text of the AES-256-CBC message (docs/l1.md), at most 1 MiB. " +
			"Answers {code, data, msg}: code 0 with the operation's result, or 7 with the reason; every refused " +
			"message gets {code:7, data:null, msg:\"invalid message\"} with 200. 429 {code:7, msg:\"rate limited\"} " +
			"when the source address is over its rate (HOSTGATE_L1_RATE_PER_MIN). Charged to the host's owner " +
			"like the client API route of the same control."})
}

func (s *Server) gateway(w http.ResponseWriter, r *http.Request) {
	var status int
	var resp l1.Response
	ok := false
	if s.cfg.Agents != nil {
		status, resp, ok = s.cfg.Agents.ServeL1(r.Context(), clientIP(r.Context()), r.URL.Query().Get("bid"), r.Body)
	}
	if !ok {
		writeProblem(w, &Problem{Status: 404, Code: apperr.CodeNotFound, Message: "the L1 gateway is not enabled"})
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		writeProblem(w, problemFor(s.log, r, err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
