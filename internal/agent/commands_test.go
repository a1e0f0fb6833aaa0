package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	if _, ok := r.Lookup(agentproto.OpPing); !ok {
		t.Fatal("ping is not built in")
	}
	noop := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	r.Register("x.op", noop)
	if _, ok := r.Lookup("x.op"); !ok {
		t.Fatal("registered op not found")
	}
	for name, f := range map[string]func(){
		"twice":      func() { r.Register("x.op", noop) },
		"ping twice": func() { r.Register(agentproto.OpPing, noop) },
		"upgrade":    func() { r.Register(agentproto.OpUpgrade, noop) },
		"nil":        func() { r.Register("y.op", nil) },
		"no name":    func() { r.Register("", noop) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

func TestIDSetForgetsOldest(t *testing.T) {
	s := newIDSet(3)
	for _, id := range []string{"a", "b", "c"} {
		if !s.Add(id) {
			t.Fatalf("%s reported as seen", id)
		}
	}
	if s.Add("a") {
		t.Fatal("duplicate a accepted")
	}
	s.Add("d") // evicts a
	if !s.Add("a") {
		t.Error("a still remembered past the bound")
	}
	if s.Add("d") {
		t.Error("d forgotten too early")
	}
	if len(s.m) != 3 {
		t.Errorf("set holds %d ids, want 3", len(s.m))
	}
}

func TestResponse(t *testing.T) {
	if r := response(map[string]int{"n": 1}, nil); !r.OK || string(r.Result) != `{"n":1}` {
		t.Errorf("ok: %+v", r)
	}
	if r := response(nil, nil); !r.OK || r.Result != nil {
		t.Errorf("nil result: %+v", r)
	}
	if r := response(nil, fmt.Errorf("wrapped: %w", &agentproto.Error{Code: agentproto.CodeBadArgs, Message: "m"})); r.OK || r.Error.Code != agentproto.CodeBadArgs {
		t.Errorf("coded error: %+v", r)
	}
	if r := response(nil, errors.New("disk full")); r.Error.Code != agentproto.CodeFailed || r.Error.Message != "disk full" {
		t.Errorf("plain error: %+v", r.Error)
	}
	if r := response(nil, context.DeadlineExceeded); r.Error.Code != agentproto.CodeFailed {
		t.Errorf("deadline: %+v", r.Error)
	}
	if r := response(make(chan int), nil); r.OK || r.Error.Code != agentproto.CodeFailed {
		t.Errorf("unencodable: %+v", r)
	}
	if r := response(strings.Repeat("x", agentproto.MaxMessage), nil); r.OK {
		t.Error("oversized result accepted")
	}
}

func TestCallRecoversPanics(t *testing.T) {
	_, err := call(context.Background(), func(context.Context, json.RawMessage) (any, error) { panic("boom") }, nil)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v", err)
	}
}

func TestReadLoopRecovery(t *testing.T) {
	logs := &syncBuffer{}
	a, err := New(validConfig(), slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	recovery := a.readLoopRecovery()
	func() {
		defer recovery(nil)
		panic("bug in OnMessage")
	}()
	if !strings.Contains(logs.String(), "bug in OnMessage") {
		t.Errorf("panic not logged: %s", logs)
	}
}
