package l1gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
	"hostgate/internal/l1"
	"hostgate/internal/operations"
)

// Answers that are not the operation's own.
var (
	// rateLimited is sent with HTTP 429 before the body is read.
	rateLimited = l1.Fail("rate limited")
	// unavailable is sent with HTTP 503 when coordination or the database
	// fails; nothing was carried out and the sender may retry.
	unavailable = l1.Fail("temporarily unavailable, retry later")
)

// Serve answers one request: the source address ip as the hub determined
// it, the bid query parameter as sent and the body (read here, at most
// l1.MaxBody+1 bytes). It returns the HTTP status and the answer: 200 for
// every answer of the protocol, refusals included; 429 when ip is over its
// rate; 503 when the hub cannot check the request.
func (s *Service) Serve(ctx context.Context, ip, bidParam string, body io.Reader) (int, l1.Response) {
	if status, resp, ok := s.limit(ctx, ip); !ok {
		return status, resp
	}
	raw, err := io.ReadAll(io.LimitReader(body, l1.MaxBody+1))
	if err != nil {
		raw = nil // an aborted or oversized body decodes as nothing, like any bad one
	}
	now := s.now() // one clock for the ts window and the nonce's expiry
	bid := parseBID(bidParam)
	c, req, reason, err := s.decode(ctx, bid, raw, now)
	if err != nil {
		s.log.ErrorContext(ctx, "l1 gateway: find host", "client_ip", ip, "err", err)
		return http.StatusServiceUnavailable, unavailable
	}
	if reason == "" {
		reason, err = s.admit(ctx, c, req, now)
		if err != nil {
			s.log.ErrorContext(ctx, "l1 gateway: replay check", "client_ip", ip, "host_id", c.HostID, "err", err)
			return http.StatusServiceUnavailable, unavailable
		}
	}
	if reason != "" {
		s.refuse(ctx, ip, reason)
		return http.StatusOK, l1.Invalid()
	}
	return http.StatusOK, s.run(ctx, ip, bid, c, req)
}

// parseBID is the bid query parameter, or 0 when it is not a positive
// integer (no host has it).
func parseBID(param string) int64 {
	bid, err := strconv.ParseInt(param, 10, 64)
	if err != nil || bid <= 0 {
		return 0
	}
	return bid
}

// limit counts the request against ip's window and answers when it is
// over the rate or cannot be counted.
func (s *Service) limit(ctx context.Context, ip string) (int, l1.Response, bool) {
	ok, first, err := s.rate.Allow(ctx, ip)
	if err != nil {
		s.log.ErrorContext(ctx, "l1 gateway: rate limit check", "client_ip", ip, "err", err)
		return http.StatusServiceUnavailable, unavailable, false
	}
	if !ok {
		if first { // once per address and window, so a flood does not flood the log
			s.refuse(ctx, ip, "rate_limited")
		}
		return http.StatusTooManyRequests, rateLimited, false
	}
	return 0, l1.Response{}, true
}

// refuse logs a refusal: the address and a reason category, never the
// body, a key or a plaintext.
func (s *Service) refuse(ctx context.Context, ip, reason string) {
	s.log.InfoContext(ctx, "l1 gateway refused", "client_ip", ip, "reason", reason)
}

// decode finds the candidate whose key opens body. A refusal is a reason
// category with a nil error; an error is the hub's own failure.
//
// Every candidate is tried, and with none a dummy key is, so a refusal
// costs one decode per host with the bid and at least one: an unknown bid
// looks like a wrong key. A stored key that cannot be used is logged as
// the server fault it is and counts as a key that did not decode.
func (s *Service) decode(ctx context.Context, bid int64, body []byte, now time.Time) (Candidate, l1.Request, string, error) {
	var cands []Candidate
	if bid > 0 {
		var err error
		if cands, err = s.store.HostsByBID(ctx, bid); err != nil {
			return Candidate{}, l1.Request{}, "", err
		}
	}
	if len(cands) == 0 {
		_, _ = s.dummy.Decode(body, now)
		return Candidate{}, l1.Request{}, "unknown_bid", nil
	}
	for _, c := range cands {
		codec, err := s.codec(bid, c)
		if err != nil {
			s.log.ErrorContext(ctx, "l1 gateway: unusable stored secret", "host_id", c.HostID, "err", err)
			_, _ = s.dummy.Decode(body, now)
			continue
		}
		if req, err := codec.Decode(body, now); err == nil {
			return c, req, "", nil
		}
	}
	return Candidate{}, l1.Request{}, "undecodable", nil
}

func (s *Service) codec(bid int64, c Candidate) (*l1.Codec, error) {
	secret, err := s.keys.Open(c.SecretSealed, []byte(c.HostID))
	if err != nil {
		return nil, fmt.Errorf("open secret: %w", err)
	}
	return l1.NewCodec(bid, string(secret))
}

// admit refuses a replayed nonce, a banned host and a suspended owner's
// host. The nonce is recorded first, in the database, so a refused request
// cannot be replayed once the host is unbanned, and no request can be
// replayed after a restart.
func (s *Service) admit(ctx context.Context, c Candidate, req l1.Request, now time.Time) (string, error) {
	err := l1.CheckReplay(ctx, s.store, c.HostID, req, now)
	switch {
	case errors.Is(err, l1.ErrReplayed):
		return "replayed", nil
	case err != nil:
		return "", err
	case c.Status == hosts.StatusBanned:
		return "host_banned", nil
	case !c.OwnerActive:
		return "owner_suspended", nil
	}
	return "", nil
}

// run carries out a decoded request as the owner's raw control call: every
// control goes to operations.Run as POST …/controls/raw would send it, so
// UPLOAD_FILE answers "not_implemented: …" and a value the agent does not
// carry out "unsupported_control: …". A message whose nonce the agent
// already holds is refused like any replay (l1.Invalid()), before anything
// is charged.
func (s *Service) run(ctx context.Context, ip string, bid int64, c Candidate, req l1.Request) l1.Response {
	res, err := s.carryOut(ctx, bid, c, req)
	if errors.Is(err, errAgentReplayed) {
		s.refuse(ctx, ip, "replayed_on_agent")
		return l1.Invalid()
	}
	if err != nil {
		code := apperr.Code(err)
		s.failed(ctx, ip, c, req, code)
		if code == "internal" {
			s.log.ErrorContext(ctx, "l1 gateway: operation", "host_id", c.HostID, "control", req.Control, "err", err)
			return l1.Fail("internal error")
		}
		return l1.Fail(failureText(err))
	}
	s.log.InfoContext(ctx, "l1 gateway call", "client_ip", ip, "host_id", c.HostID, "control", req.Control)
	return l1.OK(res)
}

// carryOut shares the nonce with the agent, then runs the call. A call
// that operations.Prepare refuses (bad arguments, UPLOAD_FILE) is refused
// by Run the same way before it reaches the agent or is charged, so its
// nonce is not sent: it is not carried out anywhere.
func (s *Service) carryOut(ctx context.Context, bid int64, c Candidate, req l1.Request) (json.RawMessage, error) {
	if _, err := operations.Prepare("", req.Control, req.Args.Path, req.Args.Data); err == nil {
		if err := s.shareNonce(ctx, bid, c, req); err != nil {
			return nil, err
		}
	}
	return s.ops.Run(ctx, operations.Call{
		UserID: c.UserID, HostID: c.HostID, Controls: req.Control, Path: req.Args.Path, Data: req.Args.Data,
	})
}

// errAgentReplayed: the agent already holds the message's nonce (its local
// listener carried the same frame out, or refused it), so the message is
// a replay there.
var errAgentReplayed = errors.New("l1 gateway: the agent already holds the nonce")

// shareTimeout bounds the agent's answer to OpL1Nonce: one synced append.
const shareTimeout = 10 * time.Second

// shareNonce records req's nonce on the host's agent, in the memory its
// local listener checks (docs/l1.md §3), before the call is charged and
// sent. errAgentReplayed when the agent already holds it; the dispatch
// error (host_offline, agent_timeout, …) or the agent's failure when it
// could not be recorded, so that nothing is carried out or charged
// without it. An agent older than the operation (unknown_op) cannot
// share its nonces: the call goes on, refused only by the hub's own
// memory (logged).
func (s *Service) shareNonce(ctx context.Context, bid int64, c Candidate, req l1.Request) error {
	args, err := json.Marshal(agentproto.L1Nonce{BID: bid, Nonce: req.Nonce, ExpiresAt: req.NonceExpiry().Unix()})
	if err != nil {
		return err
	}
	resp, err := s.agent.Send(ctx, c.HostID, agentproto.OpL1Nonce, args, shareTimeout)
	switch {
	case err != nil:
		return err
	case resp.Error != nil && resp.Error.Code == agentproto.CodeUnknownOp:
		s.log.InfoContext(ctx, "l1 gateway: the agent is too old to share L1 nonces; its local listener may carry this message out again",
			"host_id", c.HostID)
		return nil
	case !resp.OK || resp.Error != nil:
		return operations.AgentFailure(resp.Error)
	}
	var r agentproto.L1NonceResult
	if err := json.Unmarshal(resp.Result, &r); err != nil || !r.Recorded {
		return errAgentReplayed
	}
	return nil
}

func (s *Service) failed(ctx context.Context, ip string, c Candidate, req l1.Request, code string) {
	s.log.InfoContext(ctx, "l1 gateway call failed", "client_ip", ip, "host_id", c.HostID,
		"control", req.Control, "code", code)
}

// failureText is the msg of a failed operation: the client API's error
// code, then its message, e.g. "host_offline: the host's agent is not
// connected", so that a legacy client can tell failures apart by prefix.
func failureText(err error) string {
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		return e.Code + ": " + e.Message
	}
	return "internal error"
}
