package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"hostgate/internal/agentproto"
)

// Handler carries out one operation. ctx ends at the command's deadline
// (or when the agent stops). The result is marshalled to JSON as the
// response's result. An *agentproto.Error keeps its code in the response;
// any other error is reported as agentproto.CodeFailed.
type Handler func(ctx context.Context, args json.RawMessage) (any, error)

// Registry maps operation names to handlers. It is safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Handler
}

// NewRegistry returns a registry holding the built-in operations
// (agentproto.OpPing).
func NewRegistry() *Registry {
	r := &Registry{m: map[string]Handler{}}
	r.Register(agentproto.OpPing, ping)
	return r
}

// Register adds op. It panics if op is empty, h is nil, op is already
// registered, or op is agentproto.OpUpgrade, agentproto.OpShellResize,
// settings.update, files.change_watch_dir or control.raw, which the agent
// serves itself: those are programming errors.
func (r *Registry) Register(op string, h Handler) {
	if op == "" || h == nil {
		panic("agent: Register needs an op name and a handler")
	}
	if op == agentproto.OpUpgrade || op == agentproto.OpShellResize || op == opSettingsUpdate ||
		op == opChangeWatchDir || op == agentproto.OpRawControl {
		panic("agent: " + op + " is served by the agent itself")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[op]; dup {
		panic("agent: op " + op + " registered twice")
	}
	r.m[op] = h
}

// Lookup returns the handler of op.
func (r *Registry) Lookup(op string) (Handler, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	h, ok := r.m[op]
	return h, ok
}

// versionKey carries the agent version to built-in handlers.
type versionKey struct{}

func ping(ctx context.Context, _ json.RawMessage) (any, error) {
	v, _ := ctx.Value(versionKey{}).(string)
	return agentproto.Pong{AgentTimeMs: time.Now().UnixMilli(), Version: v}, nil
}

// idSet remembers the last max command ids, oldest forgotten first.
type idSet struct {
	mu   sync.Mutex
	m    map[string]struct{}
	ring []string
	next int
}

// seenIDs is how many command ids the agent remembers for duplicate checks.
const seenIDs = 4096

func newIDSet(max int) *idSet {
	return &idSet{m: make(map[string]struct{}, max), ring: make([]string, max)}
}

// Add records id; it reports false when id is already known.
func (s *idSet) Add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; ok {
		return false
	}
	if old := s.ring[s.next]; old != "" {
		delete(s.m, old)
	}
	s.ring[s.next] = id
	s.next = (s.next + 1) % len(s.ring)
	s.m[id] = struct{}{}
	return true
}

// cmdError builds the error of a refused or failed command.
func cmdError(code, msg string) *agentproto.Error { return &agentproto.Error{Code: code, Message: msg} }

// call runs h, turning a panic into an error.
func call(ctx context.Context, h Handler, args json.RawMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h(ctx, args)
}

// response turns a handler's outcome into the cmd_resp body.
func response(res any, err error) agentproto.Response {
	if err != nil {
		var pe *agentproto.Error
		switch {
		case errors.As(err, &pe):
			return agentproto.Response{Error: pe}
		case errors.Is(err, context.DeadlineExceeded):
			return agentproto.Response{Error: cmdError(agentproto.CodeFailed, "command deadline exceeded")}
		default:
			return agentproto.Response{Error: cmdError(agentproto.CodeFailed, err.Error())}
		}
	}
	if res == nil {
		return agentproto.Response{OK: true}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return agentproto.Response{Error: cmdError(agentproto.CodeFailed, "result not encodable: "+err.Error())}
	}
	if len(b) > agentproto.MaxMessage-4096 {
		return agentproto.Response{Error: cmdError(agentproto.CodeFailed, "result too large")}
	}
	return agentproto.Response{OK: true, Result: b}
}
