package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/lxzan/gws"

	"hostgate/internal/apperr"
	"hostgate/internal/terminals"
)

// The browser terminal WebSocket (docs/terminal.md, "Browser framing"):
// this file upgrades the request and hands the socket's events to the
// terminal's driver (terminals.Browser), which pumps output and input.

// Terminal WebSocket timing.
const (
	termReadIdle   = 3 * terminals.BrowserPingEvery // no message or pong for this long: gone
	termWriteLimit = 30 * time.Second               // a browser that takes no output for this long is dropped
)

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
		ws := &termSocket{}
		ws.b = s.cfg.Terminals.Browser(ctx, p, hostID, sid, ws)
		up := gws.NewUpgrader(ws, &gws.ServerOption{
			ReadMaxPayloadSize: terminals.MaxInput + 1024,
			ParallelEnabled:    false,
			Recovery:           gws.Recovery,
		})
		socket, err := up.Upgrade(w, r)
		if err != nil {
			s.log.InfoContext(ctx, "terminal upgrade failed", "host_id", hostID, "err", err)
			ws.b.Abandon()
			return
		}
		ws.conn = socket
		_ = socket.SetReadDeadline(time.Now().Add(termReadIdle))
		go socket.ReadLoop()
		ws.b.Start()
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

// termSocket is a browser terminal's WebSocket: terminals.Socket for the
// terminal's driver, and the socket's events handed on to it.
type termSocket struct {
	gws.BuiltinEventHandler
	conn *gws.Conn
	b    *terminals.Browser
}

func (t *termSocket) write(op gws.Opcode, b []byte) error {
	_ = t.conn.SetWriteDeadline(time.Now().Add(termWriteLimit))
	return t.conn.WriteMessage(op, b)
}

func (t *termSocket) WriteBinary(b []byte) error { return t.write(gws.OpcodeBinary, b) }
func (t *termSocket) WriteText(b []byte) error   { return t.write(gws.OpcodeText, b) }
func (t *termSocket) WritePing() error           { return t.write(gws.OpcodePing, nil) }
func (t *termSocket) Drop()                      { t.conn.NetConn().Close() }

func (t *termSocket) WriteClose(code uint16, reason []byte) error {
	return t.conn.WriteClose(code, reason)
}

// OnPong implements gws.Event.
func (t *termSocket) OnPong(c *gws.Conn, _ []byte) {
	_ = c.SetReadDeadline(time.Now().Add(termReadIdle))
}

// OnMessage implements gws.Event: input and control from the browser,
// handled in order on the read loop.
func (t *termSocket) OnMessage(c *gws.Conn, m *gws.Message) {
	defer m.Close()
	_ = c.SetReadDeadline(time.Now().Add(termReadIdle))
	switch m.Opcode {
	case gws.OpcodeBinary:
		t.b.Message(true, m.Bytes())
	case gws.OpcodeText:
		t.b.Message(false, m.Bytes())
	}
}

// OnClose implements gws.Event: the browser left or the socket broke.
func (t *termSocket) OnClose(*gws.Conn, error) { t.b.Closed() }
