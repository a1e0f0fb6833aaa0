package agent

import (
	"context"
	"encoding/json"

	"hostgate/internal/agent/fileops"
	"hostgate/internal/agent/orchestrate"
	"hostgate/internal/agent/procops"
	"hostgate/internal/agent/sysops"
	"hostgate/internal/agent/winops"
)

// DefaultRegistry holds every operation this build carries out: the
// built-in ping and the client API's file, process, system, Windows and
// game-engine orchestration operations (docs/operations.md). version is what system.info reports.
func DefaultRegistry(version string) *Registry {
	r := NewRegistry()
	for _, set := range []map[string]func(context.Context, json.RawMessage) (any, error){
		fileops.Handlers(), procops.Handlers(), sysops.Handlers(version), winops.Handlers(),
		orchestrate.Handlers(),
	} {
		for op, h := range set {
			r.Register(op, h)
		}
	}
	return r
}
