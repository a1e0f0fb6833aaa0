package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/lxzan/gws"

	"hostgate/internal/apperr"
	"hostgate/internal/terminals"
)

// The browser terminal WebSocket (docs/terminal.md, "Browser framing"):
// binary messages carry terminal bytes both ways; text messages are small
// JSON control messages — resize (and input as text) from the browser,
// exit and error from the hub.

// Terminal WebSocket timing.
const (
	termPingEvery  = 30 * time.Second
	termLoginCheck = time.Second       // how soon a logout or suspension ends the terminal
	termReadIdle   = 3 * termPingEvery // no message or pong for this long: gone
	termWriteLimit = 30 * time.Second  // a browser that takes no output for this long is dropped
	termReadWait   = 25 * time.Second  // one long-poll for output
	termChunk      = 32 << 10
)

// Close codes the hub uses on the terminal WebSocket.
const (
	termCloseNormal = 1000 // the shell exited, or the terminal ended
	termCloseError  = 1011 // the terminal failed; an error message came first
	termCloseBadMsg = 1003 // a control message the hub does not understand
)

// termControl is a JSON control message, either way.
type termControl struct {
	Type     string `json:"type"` // browser: resize, input; hub: exit, error
	Cols     int    `json:"cols,omitempty"`
	Rows     int    `json:"rows,omitempty"`
	Data     string `json:"data,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Error    string `json:"error,omitempty"`
	Message  string `json:"message,omitempty"`
}

// terminalWS serves GET …/hosts/{id}/terminal/ws for the console of kind.
// The ticket is the only credential; everything that can fail is checked
// before the upgrade, so a refusal is a plain {error, message} answer.
// The ticket is redeemed (taken) first, so that any refusal, the transport
// checks included, spends it: a ticket is never good for a second try.
func (s *Server) terminalWS(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		hostID := r.PathValue("id")
		q := r.URL.Query()
		p, err := s.redeemTerminalTicket(ctx, q.Get("ticket"), kind, hostID)
		if terr := s.terminalWSAllowed(r); terr != nil {
			err = terr
		} else if _, uerr := uuid.Parse(hostID); uerr != nil {
			err = apperr.New(apperr.CodeInvalidID, "the host id is not a UUID")
		}
		if err == nil {
			err = s.cfg.Terminals.Usable(ctx, p, hostID)
		}
		var cols, rows int
		if err == nil {
			cols, rows, err = termSize(q)
		}
		var sid string
		if err == nil {
			sid, err = s.cfg.Terminals.Open(ctx, p, hostID, cols, rows)
		}
		if err != nil {
			writeProblem(w, problemFor(s.log, r, err))
			return
		}
		t := &termConn{s: s, p: p, hostID: hostID, sid: sid}
		t.ctx, t.cancel = context.WithCancel(context.WithoutCancel(ctx))
		up := gws.NewUpgrader(t, &gws.ServerOption{
			ReadMaxPayloadSize: terminals.MaxInput + 1024,
			ParallelEnabled:    false,
			Recovery:           gws.Recovery,
		})
		socket, err := up.Upgrade(w, r)
		if err != nil {
			s.log.InfoContext(ctx, "terminal upgrade failed", "host_id", hostID, "err", err)
			t.cancel()
			t.closeTerminal()
			return
		}
		t.socket = socket
		_ = socket.SetReadDeadline(time.Now().Add(termReadIdle))
		go socket.ReadLoop()
		go t.pumpOutput()
		go t.watch()
	}
}

// redeemTerminalTicket takes ticket (it cannot be used again, whatever
// happens next) and returns the principal it was issued to.
func (s *Server) redeemTerminalTicket(ctx context.Context, ticket, kind, hostID string) (terminals.Principal, error) {
	if ticket == "" {
		return terminals.Principal{}, apperr.New(apperr.CodeUnauthorized, "a terminal ticket is required")
	}
	return s.cfg.Terminals.RedeemTicket(ctx, ticket, kind, hostID)
}

// terminalWSAllowed applies the transport rules: TLS when the hub's
// public address is https, and an Origin, when the browser sends one,
// from the allowlist (the hub's own origin by default), so a page on
// another site cannot open a terminal with a ticket it got hold of.
func (s *Server) terminalWSAllowed(r *http.Request) error {
	if _, tls := s.clientAddr(r); s.cfg.Options.RequireTLS && !tls {
		return apperr.New(apperr.CodeForbidden, "the terminal needs wss://")
	}
	if o := r.Header.Get("Origin"); o != "" && !slices.Contains(s.cfg.Options.AllowedOrigins, o) {
		return apperr.New(apperr.CodeForbidden, "this origin may not open terminals")
	}
	return nil
}

func termSize(q url.Values) (cols, rows int, err error) {
	parse := func(name string) (int, error) {
		v := q.Get(name)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return 0, apperr.New(apperr.CodeInvalidQuery, name+" must be 1..65535")
		}
		return n, nil
	}
	if cols, err = parse("cols"); err != nil {
		return 0, 0, err
	}
	rows, err = parse("rows")
	return cols, rows, err
}

// termConn is one browser terminal: a WebSocket and the terminal it
// drives, which may live on another hub instance.
type termConn struct {
	gws.BuiltinEventHandler
	s      *Server
	p      terminals.Principal
	hostID string
	sid    string
	socket *gws.Conn
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

// pumpOutput long-polls the terminal's output and writes it to the
// browser. The next read is asked for only when the browser has taken the
// last chunk, so a slow browser slows its own terminal and nothing else.
func (t *termConn) pumpOutput() {
	from := int64(0)
	for {
		c, err := t.s.cfg.Terminals.Read(t.ctx, t.p, t.hostID, t.sid,
			terminals.ReadOptions{From: from, Max: termChunk, Wait: termReadWait})
		if err != nil {
			if t.ctx.Err() == nil {
				t.fail(err)
			}
			return
		}
		if len(c.Data) > 0 {
			if t.write(gws.OpcodeBinary, c.Data) != nil {
				t.socket.NetConn().Close()
				return
			}
			from = c.Offset + int64(len(c.Data))
		}
		if c.EOF {
			t.sendControl(termControl{Type: "exit", ExitCode: c.ExitCode, Reason: c.Reason})
			_ = t.socket.WriteClose(termCloseNormal, nil)
			return
		}
	}
}

func (t *termConn) write(op gws.Opcode, b []byte) error {
	_ = t.socket.SetWriteDeadline(time.Now().Add(termWriteLimit))
	return t.socket.WriteMessage(op, b)
}

func (t *termConn) sendControl(c termControl) {
	b, _ := json.Marshal(c)
	_ = t.write(gws.OpcodeText, b)
}

// fail tells the browser why the terminal broke and closes the socket.
func (t *termConn) fail(err error) {
	code, msg := apperr.CodeInternal, "internal error"
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		code, msg = e.Code, e.Message
	} else {
		t.s.log.Error("terminal failed", "host_id", t.hostID, "err", err)
	}
	if code == terminals.CodeTerminalEnded {
		t.sendControl(termControl{Type: "exit"})
		_ = t.socket.WriteClose(termCloseNormal, nil)
		return
	}
	t.sendControl(termControl{Type: "error", Error: code, Message: msg})
	_ = t.socket.WriteClose(termCloseError, []byte(code))
}

// watch pings, which keeps proxies from cutting an idle terminal and
// finds dead peers, and ends the terminal once the console login session
// it was opened from has ended (logout, suspension), on any instance.
func (t *termConn) watch() {
	ping := time.NewTicker(termPingEvery)
	defer ping.Stop()
	login := time.NewTicker(termLoginCheck)
	defer login.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-ping.C:
			_ = t.write(gws.OpcodePing, nil)
		case <-login.C:
			if ended, err := t.s.cfg.Terminals.LoginEnded(t.ctx, t.p); err == nil && ended {
				t.fail(apperr.New(apperr.CodeInvalidToken, "your login session has ended"))
				t.cancel()
				t.closeTerminal()
				return
			}
		}
	}
}

// OnPong implements gws.Event.
func (t *termConn) OnPong(c *gws.Conn, _ []byte) { _ = c.SetReadDeadline(time.Now().Add(termReadIdle)) }

// OnMessage implements gws.Event: input and control from the browser,
// handled in order on the read loop, so input backs up into the browser's
// socket when the shell does not take it.
func (t *termConn) OnMessage(c *gws.Conn, m *gws.Message) {
	defer m.Close()
	_ = c.SetReadDeadline(time.Now().Add(termReadIdle))
	var err error
	switch m.Opcode {
	case gws.OpcodeBinary:
		if m.Data.Len() > 0 {
			err = t.s.cfg.Terminals.Write(t.ctx, t.p, t.hostID, t.sid, m.Bytes())
		}
	case gws.OpcodeText:
		var ctl termControl
		if json.Unmarshal(m.Bytes(), &ctl) != nil {
			t.sendControl(termControl{Type: "error", Error: apperr.CodeInvalidBody, Message: "a text message must be a JSON control message"})
			_ = c.WriteClose(termCloseBadMsg, nil)
			return
		}
		switch ctl.Type {
		case "resize":
			err = t.s.cfg.Terminals.Resize(t.ctx, t.p, t.hostID, t.sid, ctl.Cols, ctl.Rows)
		case "input":
			if ctl.Data != "" {
				err = t.s.cfg.Terminals.Write(t.ctx, t.p, t.hostID, t.sid, []byte(ctl.Data))
			}
		default:
			t.sendControl(termControl{Type: "error", Error: apperr.CodeInvalidBody, Message: "unknown control message type"})
		}
	}
	switch {
	case err == nil || t.ctx.Err() != nil:
	case apperr.Is(err, apperr.CodeInvalidBody):
		// A bad resize costs nothing but an error message.
		e, _ := errors.AsType[*apperr.Error](err)
		t.sendControl(termControl{Type: "error", Error: e.Code, Message: e.Message})
	default:
		t.fail(err)
	}
}

// OnClose implements gws.Event: the browser left or the socket broke.
func (t *termConn) OnClose(*gws.Conn, error) {
	t.cancel()
	t.closeTerminal()
}

// closeTerminal ends the terminal once; the agent kills its processes.
func (t *termConn) closeTerminal() {
	t.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := t.s.cfg.Terminals.Close(ctx, t.p, t.hostID, t.sid); err != nil && !apperr.Is(err, apperr.CodeNotFound) {
			t.s.log.Info("terminal close failed", "host_id", t.hostID, "err", err)
		}
	})
}
