// Package operations carries out one client API operation on a host: it
// checks the host and the input, charges the call, sends the command to
// the host's agent and turns the agent's answer into a result or a client
// error. It is Flow 1 of docs/architecture.md after authentication.
package operations

import (
	"context"
	"encoding/json"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
)

// Hosts decides whether a caller's host may take commands.
type Hosts interface {
	// Commandable is nil for owner's undeleted, unbanned host; not_found
	// or host_banned otherwise.
	Commandable(ctx context.Context, owner, id string) error
}

// Dispatcher reaches a host's agent wherever it is connected.
type Dispatcher interface {
	Online(ctx context.Context, hostID string) (bool, error)
	Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error)
}

// Charger charges a call before it runs.
type Charger interface {
	ChargeCall(ctx context.Context, userID, apiKeyID, hostID, code string) (billing.Charged, error)
}

// Service runs operations.
type Service struct {
	hosts    Hosts
	dispatch Dispatcher
	billing  Charger
}

// NewService wires the operations service.
func NewService(h Hosts, d Dispatcher, b Charger) *Service {
	return &Service{hosts: h, dispatch: d, billing: b}
}

// Call is one operation requested through the client API.
type Call struct {
	// Route is the client API route below /v1/api/hosts/{id}/ (e.g.
	// "files/dir"); "" is controls/raw, which takes any operation.
	Route    string
	UserID   string
	APIKeyID string
	HostID   string
	Controls int64
	Path     string
	Data     json.RawMessage
}

// Prepared is an operation checked without a host: what Run would send
// for it and how it is charged and waited for.
type Prepared struct {
	Controls int64
	Op       string
	Args     json.RawMessage
	// Rule is the pricing rule the call is charged by.
	Rule string
	// Timeout is how long the hub waits for the agent's answer.
	Timeout time.Duration
}

// Prepare checks an operation as controls/raw (route "") or a client API
// route checks it, without a host: the controls value for the route, then
// the input, with the codes Run gives (invalid_body, not_implemented).
// Jobs validate their operation with it.
func Prepare(route string, controls int64, path string, data json.RawMessage) (Prepared, error) {
	v, err := controlsFor(route, controls)
	if err != nil {
		return Prepared{}, err
	}
	args := agentproto.ControlArgs{Path: path, Data: data}
	op, raw, spec, err := plan(v, args)
	if err != nil {
		return Prepared{}, err
	}
	if err := agentproto.ValidateArgs(v, args); err != nil {
		return Prepared{}, apperr.New(apperr.CodeInvalidBody, messageOf(err))
	}
	return Prepared{Controls: v, Op: op, Args: raw, Rule: spec.rule, Timeout: spec.timeout(args)}, nil
}

// AgentFailure turns an agent's error answer into the client error Run
// gives for it.
func AgentFailure(e *agentproto.Error) error { return agentFailure(e) }

// Run carries out c and returns the agent's result. In order: the host
// must be the caller's (not_found) and not banned (host_banned); the input
// must be valid (invalid_body); the agent must be connected (host_offline);
// then the call is charged (insufficient_balance) and sent. Nothing is
// charged for a call refused before the charge.
func (s *Service) Run(ctx context.Context, c Call) (json.RawMessage, error) {
	ctlValue, err := controlsFor(c.Route, c.Controls)
	if err != nil {
		return nil, err
	}
	c.Controls = ctlValue
	args := agentproto.ControlArgs{Path: c.Path, Data: c.Data}
	op, raw, spec, err := plan(c.Controls, args)
	if err != nil {
		return nil, err
	}
	if err := s.hosts.Commandable(ctx, c.UserID, c.HostID); err != nil {
		return nil, err
	}
	if err := agentproto.ValidateArgs(c.Controls, args); err != nil {
		return nil, apperr.New(apperr.CodeInvalidBody, messageOf(err))
	}
	if online, err := s.dispatch.Online(ctx, c.HostID); err != nil {
		return nil, err
	} else if !online {
		return nil, apperr.New("host_offline", "the host's agent is not connected")
	}
	if _, err := s.billing.ChargeCall(ctx, c.UserID, c.APIKeyID, c.HostID, spec.rule); err != nil {
		return nil, err
	}
	resp, err := s.dispatch.Send(ctx, c.HostID, op, raw, spec.timeout(args))
	if err != nil {
		return nil, err
	}
	if !resp.OK || resp.Error != nil {
		return nil, agentFailure(resp.Error)
	}
	return resp.Result, nil
}

// Charge charges a call of rule code on the caller's host without an agent
// command (host queries).
func (s *Service) Charge(ctx context.Context, userID, apiKeyID, hostID, code string) error {
	_, err := s.billing.ChargeCall(ctx, userID, apiKeyID, hostID, code)
	return err
}

func messageOf(err error) string {
	if e, ok := err.(*agentproto.Error); ok {
		return e.Message
	}
	return err.Error()
}

// CodeAgentError: the agent answered a call it should always carry out
// (a ping) with an error.
const CodeAgentError = "agent_error"

// pingTimeout bounds a ping's round trip.
const pingTimeout = 10 * time.Second

// Pong is a ping's answer: the round trip as the hub measured it and the
// agent's version.
type Pong struct {
	RTT          time.Duration
	AgentVersion string
}

// Ping sends a ping to the caller's host, charged as a host query
// (billing.RuleHostQuery), in the order Run checks a call: the host the
// caller's and not banned, its agent connected, then the charge and the
// round trip. An agent that answers with an error is agent_error.
func (s *Service) Ping(ctx context.Context, userID, apiKeyID, hostID string) (Pong, error) {
	if err := s.hosts.Commandable(ctx, userID, hostID); err != nil {
		return Pong{}, err
	}
	if online, err := s.dispatch.Online(ctx, hostID); err != nil {
		return Pong{}, err
	} else if !online {
		return Pong{}, apperr.New("host_offline", "the host's agent is not connected")
	}
	if _, err := s.billing.ChargeCall(ctx, userID, apiKeyID, hostID, billing.RuleHostQuery); err != nil {
		return Pong{}, err
	}
	start := time.Now()
	resp, err := s.dispatch.Send(ctx, hostID, agentproto.OpPing, nil, pingTimeout)
	if err != nil {
		return Pong{}, err
	}
	if !resp.OK || resp.Error != nil {
		return Pong{}, apperr.New(CodeAgentError, "the agent refused the ping")
	}
	var pong agentproto.Pong
	_ = json.Unmarshal(resp.Result, &pong)
	return Pong{RTT: time.Since(start), AgentVersion: pong.Version}, nil
}
