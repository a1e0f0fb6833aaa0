package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/hosts"
)

// Version is what simulated agents report as their agent version.
const Version = "0.0.0-fleet"

// agent is one simulated agent. Its run loop owns the token; the socket
// and the welcome's intervals are shared with the read loop and the
// fleet's ticker under mu.
type agent struct {
	f      *Fleet
	creds  hosts.Credentials
	index  int
	source net.IP

	token    string
	tokenExp time.Time
	enrolled bool // the install token has been spent

	mu          sync.Mutex
	conn        *gws.Conn
	welcomed    bool
	everWelcome bool
	heartbeatS  int
	metricsS    int
	closed      bool // the fleet is stopping
}

// run keeps the agent connected until ctx ends.
func (a *agent) run(ctx context.Context) {
	fails := 0
	for ctx.Err() == nil {
		welcomed, wait := a.session(ctx)
		if welcomed {
			fails = 0
		}
		fails++
		if wait == 0 {
			wait = backoff(fails)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// session enrols if needed, connects and serves until the socket closes.
// It reports whether the hub welcomed it, and how long the hub asked it
// to wait before the next try (0 for the usual backoff).
func (a *agent) session(ctx context.Context) (welcomed bool, wait time.Duration) {
	select {
	case a.f.sem <- struct{}{}:
	case <-ctx.Done():
		return false, 0
	}
	conn, wait, err := a.connect(ctx)
	<-a.f.sem
	if err != nil {
		a.f.failures.Add(1)
		a.f.cfg.Log.Debug("fleet agent: connect", "host_id", a.creds.HostID, "err", err)
		return false, wait
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		conn.NetConn().Close()
		return false, 0
	}
	a.conn = conn
	a.mu.Unlock()
	a.f.connected.Add(1)
	a.send(agentproto.TypeHello, "", agentproto.Hello{Protocol: 1, AgentVersion: Version, OS: "windows",
		Hostname: "fleet-" + strconv.Itoa(a.index)})
	conn.ReadLoop() // until the socket closes
	a.f.connected.Add(-1)
	a.mu.Lock()
	welcomed = a.welcomed
	if a.welcomed {
		a.f.welcomed.Add(-1)
	}
	a.conn, a.welcomed = nil, false
	a.mu.Unlock()
	return welcomed, 0
}

// connect obtains a token when needed and opens the WebSocket.
func (a *agent) connect(ctx context.Context) (*gws.Conn, time.Duration, error) {
	if a.token == "" || time.Until(a.tokenExp) < time.Minute {
		if err := a.obtainToken(ctx); err != nil {
			return nil, 0, err
		}
	}
	a.f.dials.Add(1)
	h := http.Header{}
	h.Set("Authorization", "Bearer "+a.token)
	conn, resp, err := gws.NewClient(a, &gws.ClientOption{
		Addr: a.creds.WSURL, RequestHeader: h, HandshakeTimeout: 15 * time.Second,
		ReadBufferSize: 1024, ReadMaxPayloadSize: agentproto.MaxMessage,
		NewDialer: func() (gws.Dialer, error) {
			d := &net.Dialer{Timeout: 15 * time.Second}
			if a.source != nil {
				d.LocalAddr = &net.TCPAddr{IP: a.source}
			}
			return d, nil
		},
	})
	if err != nil {
		var wait time.Duration
		if resp != nil {
			switch resp.StatusCode {
			case http.StatusUnauthorized:
				a.token = "" // expired or superseded: renew before the next try
			case http.StatusServiceUnavailable:
				if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
					wait = time.Duration(s)*time.Second + backoff(1)
				}
			}
		}
		return nil, wait, err
	}
	return conn, 0, nil
}

// obtainToken spends the install token once, then renews by ed25519
// challenge-response, as the real agent does.
func (a *agent) obtainToken(ctx context.Context) error {
	base := strings.TrimRight(a.creds.APIEndpoint, "/")
	var tr agentproto.TokenResponse
	if !a.enrolled {
		status, _, err := a.f.post(ctx, base+agentproto.PathOnline,
			agentproto.OnlineRequest{HostID: a.creds.HostID, InstallToken: a.creds.InstallToken}, &tr)
		if err == nil || status == http.StatusUnauthorized {
			a.enrolled = true // spent, or spent by an earlier run: use the key from now on
		}
		if err == nil {
			a.token, a.tokenExp = tr.AgentToken, tr.ExpiresAt
			return nil
		}
		if status != http.StatusUnauthorized {
			return err
		}
	}
	seed, err := base64.StdEncoding.DecodeString(a.creds.AgentPrivkeySeed)
	if err != nil || len(seed) != ed25519.SeedSize {
		return errors.New("fleet: bad agent key seed")
	}
	var ch agentproto.ChallengeResponse
	if _, _, err := a.f.post(ctx, base+agentproto.PathRefresh, agentproto.RefreshRequest{HostID: a.creds.HostID}, &ch); err != nil {
		return err
	}
	sig := ed25519.Sign(ed25519.NewKeyFromSeed(seed), agentproto.ChallengeMessage(a.creds.HostID, ch.Challenge))
	req := agentproto.RefreshRequest{HostID: a.creds.HostID, Challenge: ch.Challenge, Signature: base64.StdEncoding.EncodeToString(sig)}
	if _, _, err := a.f.post(ctx, base+agentproto.PathRefresh, req, &tr); err != nil {
		return err
	}
	a.token, a.tokenExp = tr.AgentToken, tr.ExpiresAt
	return nil
}

func (a *agent) send(typ, id string, body any) {
	msg, err := agentproto.Encode(typ, id, body)
	if err != nil {
		return
	}
	a.mu.Lock()
	c := a.conn
	a.mu.Unlock()
	if c != nil {
		_ = c.WriteMessage(gws.OpcodeText, msg)
	}
}

// close ends the agent's connection for good (the fleet is stopping).
func (a *agent) close() {
	a.mu.Lock()
	a.closed = true
	c := a.conn
	a.mu.Unlock()
	if c != nil {
		c.NetConn().Close()
	}
}

// onTick is called every second of the fleet's clock.
func (a *agent) onTick(n int) {
	a.mu.Lock()
	ok, hb, ms := a.welcomed, a.heartbeatS, a.metricsS
	a.mu.Unlock()
	if !ok {
		return
	}
	if hb > 0 && (n+a.index)%hb == 0 {
		a.send(agentproto.TypeHeartbeat, "", nil)
		a.f.heartbeats.Add(1)
	}
	if ms > 0 && (n+a.index)%ms == 0 {
		a.send(agentproto.TypeMetrics, "", agentproto.Metrics{CPUPct: float64(a.index % 100), MemPct: 42, DiskPct: 17,
			TCPConns: 12, UptimeS: int64(n)})
		a.f.metrics.Add(1)
	}
}

// OnOpen implements gws.Event.
func (a *agent) OnOpen(*gws.Conn) {}

// OnClose implements gws.Event.
func (a *agent) OnClose(*gws.Conn, error) {}

// OnPing implements gws.Event.
func (a *agent) OnPing(c *gws.Conn, p []byte) { _ = c.WritePong(p) }

// OnPong implements gws.Event.
func (a *agent) OnPong(*gws.Conn, []byte) {}

// OnMessage implements gws.Event.
func (a *agent) OnMessage(c *gws.Conn, m *gws.Message) {
	defer m.Close()
	if m.Opcode != gws.OpcodeText {
		return
	}
	e, err := agentproto.Decode(m.Bytes())
	if err != nil {
		return
	}
	switch e.Type {
	case agentproto.TypeWelcome:
		var w agentproto.Welcome
		if agentproto.DecodeBody(e, &w) != nil {
			return
		}
		a.mu.Lock()
		a.welcomed, a.heartbeatS, a.metricsS = true, w.HeartbeatS, w.MetricsS
		first := !a.everWelcome
		a.everWelcome = true
		a.mu.Unlock()
		a.f.welcomed.Add(1)
		if first {
			a.f.firstWelcome()
		}
	case agentproto.TypeCmd:
		var cmd agentproto.Command
		if agentproto.DecodeBody(e, &cmd) != nil {
			return
		}
		a.f.commands.Add(1)
		a.send(agentproto.TypeCmdResp, e.ID, answer(cmd, a.index))
	}
}

// answer is a simulated agent's answer to a command: the cheap operations
// a load test sends, and unknown_op for the rest.
func answer(cmd agentproto.Command, index int) agentproto.Response {
	var result any
	switch cmd.Op {
	case agentproto.OpPing:
		result = agentproto.Pong{AgentTimeMs: time.Now().UnixMilli(), Version: Version}
	case "files.str_rd":
		var args agentproto.ControlArgs
		_ = json.Unmarshal(cmd.Args, &args)
		result = agentproto.ReadResult{Path: args.Path, Content: "fleet", Encoding: "utf-8", Bytes: 5}
	case "process.shell":
		// A job bench's echo hi.
		result = agentproto.ShellResult{Stdout: "hi\n", DurationMs: 1}
	case "system.metrics":
		result = agentproto.Metrics{CPUPct: float64(index % 100), MemPct: 42, DiskPct: 17, TCPConns: 12}
	default:
		return agentproto.Response{Error: &agentproto.Error{Code: agentproto.CodeUnknownOp, Message: "the fleet simulator does not run " + cmd.Op}}
	}
	b, _ := json.Marshal(result)
	return agentproto.Response{OK: true, Result: b}
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
