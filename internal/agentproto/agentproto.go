// Package agentproto is the hub↔agent wire protocol: the JSON envelopes
// carried in WebSocket text messages, the command names, and the protocol
// number with its history. Both the hub and the agent import it; it is the
// specification docs/agent-protocol.md is written from.
//
// A session, after an HTTP upgrade authenticated by an agent token:
//
//	agent → hub  hello      {protocol, agent_version, os, hostname, settings_fp}
//	hub → agent  welcome    {protocol, host_id, heartbeat_s, metrics_s}
//	             (or error  {code, message} and close, e.g. an unsupported protocol)
//	then, in any order:
//	hub → agent  cmd        id, {op, deadline_ms, args}
//	agent → hub  cmd_resp   id, {ok, result | error}
//	agent → hub  heartbeat  {}            every heartbeat_s; the hub answers heartbeat_ack
//	agent → hub  metrics    MetricsResult every metrics_s
//	agent → hub  event      {kind, message}
//	agent → hub  upgrade    {version, state, reason}  progress of an agent.upgrade
//	either way   binary     stream frames (package streams), once both sides speak ≥ 2
//
// Nothing but hello is accepted before welcome; an unknown type later is
// answered with an error envelope and otherwise ignored.
package agentproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Protocol numbers. Version is what this build speaks; MinSupported is the
// oldest a hub still accepts at hello.
//
// History:
//   - 1 (2026-11-23): hello/welcome, cmd/cmd_resp, heartbeat, metrics, event.
//   - 2 (2026-11-23): binary stream frames (docs/streams.md) after welcome,
//     PTY streams (StreamMeta), the shell.resize op.
const (
	Version      = 2
	MinSupported = 1
)

// MinStreams is the first protocol with binary stream frames. A side sends
// binary messages only when the peer's protocol (hello's for the hub,
// welcome's for the agent) is at least this.
const MinStreams = 2

// HasStreams reports whether a peer speaking protocol carries stream frames.
func HasStreams(protocol int) bool { return protocol >= MinStreams }

// Envelope types.
const (
	TypeHello        = "hello"
	TypeWelcome      = "welcome"
	TypeError        = "error"
	TypeCmd          = "cmd"
	TypeCmdResp      = "cmd_resp"
	TypeHeartbeat    = "heartbeat"
	TypeHeartbeatAck = "heartbeat_ack"
	TypeMetrics      = "metrics"
	TypeEvent        = "event"
	TypeUpgrade      = "upgrade"
)

// MaxMessage bounds one WebSocket message in either direction.
const MaxMessage = 4 << 20

// Envelope is one WebSocket text message.
type Envelope struct {
	Type string `json:"type"`
	// ID correlates a cmd with its cmd_resp. The hub never reuses one.
	ID   string          `json:"id,omitempty"`
	Body json.RawMessage `json:"body,omitempty"`
}

// Hello opens a session (agent → hub).
type Hello struct {
	Protocol     int    `json:"protocol"`
	AgentVersion string `json:"agent_version"`
	OS           string `json:"os"`
	Hostname     string `json:"hostname"`
	// SettingsFP is SettingsUpdate.Fingerprint of the agent's L1 settings
	// (empty when it has none).
	SettingsFP string `json:"settings_fp,omitempty"`
}

// Welcome accepts a session (hub → agent).
type Welcome struct {
	Protocol   int    `json:"protocol"`
	HostID     string `json:"host_id"`
	HeartbeatS int    `json:"heartbeat_s"`
	MetricsS   int    `json:"metrics_s"`
	ServerTime int64  `json:"server_time_ms"`
}

// Error is a protocol or command error.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Command asks the agent to carry out one operation (hub → agent). The
// agent refuses a command past its deadline and an id it has already seen.
type Command struct {
	Op         string          `json:"op"`
	DeadlineMs int64           `json:"deadline_ms"`
	Args       json.RawMessage `json:"args,omitempty"`
}

// Response answers a command (agent → hub).
type Response struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Metrics is one sample (agent → hub), the spec's MetricsResult.
type Metrics struct {
	CPUPct   float64 `json:"cpu_pct"`
	MemPct   float64 `json:"mem_pct"`
	DiskPct  float64 `json:"disk_pct"`
	NetRxBps float64 `json:"net_rx_bps"`
	NetTxBps float64 `json:"net_tx_bps"`
	TCPConns int64   `json:"tcp_conns"`
	UptimeS  int64   `json:"uptime_s"`
}

// Event is something the agent wants recorded in the host's history.
type Event struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Operations. Later protocol versions add to this list; an agent answers an
// op it does not know with error code "unknown_op".
const (
	// OpPing: no args; result Pong. Proves the round trip.
	OpPing = "agent.ping"
)

// OpUpgrade asks the agent to replace its executable (args Upgrade). The
// agent checks the arguments and answers at once with UpgradeAccepted; the
// download, checks, swap and restart follow in the background and are
// reported in upgrade messages (UpgradeReport).
const OpUpgrade = "agent.upgrade"

// Upgrade is the argument of OpUpgrade: where the new executable is and
// what it must be. The agent refuses a file whose size or SHA-256 differs,
// and one that does not report Version when run with "version".
type Upgrade struct {
	Version   string `json:"version"`
	ExeURL    string `json:"exe_url"`
	ExeSHA256 string `json:"exe_sha256"`
	ExeSize   int64  `json:"exe_size_bytes"`
}

// UpgradeAccepted is the result of OpUpgrade.
type UpgradeAccepted struct {
	State UpgradeState `json:"state"`
}

// UpgradeState is a step of an upgrade. Requested is the hub's; the agent
// reports the others. Done, Failed and RolledBack end an upgrade.
type UpgradeState string

// Upgrade states, in the order an upgrade moves through them.
const (
	UpgradeRequested   UpgradeState = "requested"
	UpgradeDownloading UpgradeState = "downloading"
	UpgradeVerifying   UpgradeState = "verifying"
	UpgradeRestarting  UpgradeState = "restarting"
	UpgradeDone        UpgradeState = "done"
	UpgradeFailed      UpgradeState = "failed"
	UpgradeRolledBack  UpgradeState = "rolled_back"
)

// Terminal reports whether s ends an upgrade.
func (s UpgradeState) Terminal() bool {
	return s == UpgradeDone || s == UpgradeFailed || s == UpgradeRolledBack
}

// Rank orders states so that a late or repeated report never moves an
// upgrade backwards: a state may only follow one of lower rank. It is -1
// for an unknown state.
func (s UpgradeState) Rank() int {
	switch s {
	case UpgradeRequested:
		return 0
	case UpgradeDownloading:
		return 1
	case UpgradeVerifying:
		return 2
	case UpgradeRestarting:
		return 3
	case UpgradeDone, UpgradeFailed, UpgradeRolledBack:
		return 4
	}
	return -1
}

// UpgradeReport is the body of an upgrade message (agent → hub). Reason
// says why an upgrade failed or was rolled back.
type UpgradeReport struct {
	Version string       `json:"version"`
	State   UpgradeState `json:"state"`
	Reason  string       `json:"reason,omitempty"`
}

// Pong is the result of OpPing.
type Pong struct {
	AgentTimeMs int64  `json:"agent_time_ms"`
	Version     string `json:"agent_version"`
}

// Error codes an agent uses in a Response.
const (
	CodeUnknownOp       = "unknown_op"
	CodeDeadlinePassed  = "deadline_passed"
	CodeDuplicate       = "duplicate_command"
	CodeBadArgs         = "invalid_args"
	CodeFailed          = "failed"
	CodeUnsupportedOS   = "unsupported_platform"
	CodeUnsupportedProt = "unsupported_protocol"
	// CodeUnsupportedControl: a controls value this agent does not carry
	// out (OpRawControl); the message names the value.
	CodeUnsupportedControl = "unsupported_control"
	// CodeNotImplemented: an operation of the table no agent carries out
	// yet (UPLOAD_FILE, 512).
	CodeNotImplemented = "not_implemented"
)

// Encode builds one message of type typ carrying body (nil for none).
//
// The message is valid UTF-8: it goes in a WebSocket text frame, which
// both ends close with 1007 when it is not (RFC 6455 §8.1), and gws
// refuses to write one. encoding/json replaces invalid UTF-8 in a Go
// string with U+FFFD but copies a json.RawMessage as it is (a command's
// args as the client sent them), so Encode replaces each run of invalid
// bytes with U+FFFD. They can only be inside JSON strings, where U+FFFD is
// valid.
func Encode(typ, id string, body any) ([]byte, error) {
	e := Envelope{Type: typ, ID: id}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("agentproto: encode %s: %w", typ, err)
		}
		e.Body = b
	}
	msg, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(msg) {
		msg = bytes.ToValidUTF8(msg, []byte("\uFFFD"))
	}
	return msg, nil
}

// ErrMalformed is returned for a message that is not a valid envelope.
var ErrMalformed = errors.New("agentproto: malformed message")

// Decode parses one message into its envelope; the body stays raw until
// the receiver knows its type.
func Decode(msg []byte) (Envelope, error) {
	var e Envelope
	if len(msg) > MaxMessage || json.Unmarshal(msg, &e) != nil || e.Type == "" || len(e.ID) > 128 {
		return Envelope{}, ErrMalformed
	}
	return e, nil
}

// DecodeBody parses an envelope's body into v.
func DecodeBody(e Envelope, v any) error {
	if len(e.Body) == 0 {
		return fmt.Errorf("%w: %s without body", ErrMalformed, e.Type)
	}
	if err := json.Unmarshal(e.Body, v); err != nil {
		return fmt.Errorf("%w: %s body: %v", ErrMalformed, e.Type, err)
	}
	return nil
}
