package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// ReadyCheck is one dependency /readyz probes.
type ReadyCheck struct {
	// Field is the answer field: "pg" for the store, "redis" for coordination.
	Field string
	// Embedded names an embedded stand-in ("sqlite", "in-process"); empty
	// for the production service.
	Embedded string
	Ping     func(context.Context) error
}

type healthOut struct {
	Body struct {
		Status string `json:"status" example:"ok"`
	}
}

type readyOut struct {
	Status int
	Body   struct {
		Status string `json:"status" enum:"ok,unavailable"`
		PG     string `json:"pg" doc:"\"ok\", the embedded store's name with \": ok\", or the failure text"`
		Redis  string `json:"redis" doc:"\"ok\", the embedded coordinator's name with \": ok\", or the failure text"`
		// AgentDownloads is information, not a dependency: a hub without
		// agent downloads is ready.
		AgentDownloads string `json:"agent_downloads" doc:"The agent builds served at /download/ (\"windows/amd64, linux/amd64 (0.4.0)\"), or \"none built: run make build\""`
	}
}

// readyTimeout bounds each probe, so /readyz answers promptly when a
// dependency hangs rather than refusing.
const readyTimeout = 2 * time.Second

func (s *Server) healthRoutes() {
	live := func(context.Context, *struct{}) (*healthOut, error) {
		out := &healthOut{}
		out.Body.Status = "ok"
		return out, nil
	}
	for id, path := range map[string]string{"healthz": "/healthz", "publicHealth": "/v1/public/health"} {
		op(s, huma.Operation{OperationID: id, Method: http.MethodGet, Path: path,
			Summary: "Liveness; does not probe dependencies", Tags: []string{"health"}}, live)
	}
	op(s, huma.Operation{OperationID: "ready", Method: http.MethodGet, Path: "/readyz",
		Summary: "Readiness: probes the store and coordination", Tags: []string{"health"},
		Responses: map[string]*huma.Response{"503": {Description: "A dependency is failing; its field carries the failure text"}},
	}, s.ready)
}

func (s *Server) ready(ctx context.Context, _ *struct{}) (*readyOut, error) {
	out := &readyOut{Status: http.StatusOK}
	out.Body.Status, out.Body.AgentDownloads = "ok", s.cfg.Options.ReadyDownloads
	for _, c := range s.cfg.Options.Ready {
		v := probe(ctx, c)
		if v == "" {
			v = "ok"
			if c.Embedded != "" {
				v = c.Embedded + ": ok"
			}
		} else {
			out.Status, out.Body.Status = http.StatusServiceUnavailable, "unavailable"
		}
		switch c.Field {
		case "pg":
			out.Body.PG = v
		case "redis":
			out.Body.Redis = v
		}
	}
	return out, nil
}

// probe returns "" when healthy, else the failure text.
func probe(ctx context.Context, c ReadyCheck) string {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		return err.Error()
	}
	return ""
}
