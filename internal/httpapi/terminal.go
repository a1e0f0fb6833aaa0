package httpapi

import (
	"context"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/admin"
	"hostgate/internal/audit"
	"hostgate/internal/terminals"
)

// Terminal routes (docs/terminal.md): tickets and the browser WebSocket
// for the user and admin consoles, and the client API's pull mode.

type ticketOut struct {
	Body struct {
		Ticket    string `json:"ticket" doc:"Single-use; open the terminal WebSocket with it within expires_in seconds"`
		ExpiresIn int    `json:"expires_in"`
	}
}

func (s *Server) terminalRoutes() {
	op(s, huma.Operation{OperationID: "userTerminalTicket", Method: http.MethodPost,
		Path: "/v1/user/hosts/{id}/terminal/ticket", Summary: "A 30-second, single-use ticket for the terminal WebSocket",
		Tags: []string{"terminal"}, Security: userSecurity},
		func(ctx context.Context, in *HostIDParam) (*ticketOut, error) {
			u := userOf(ctx)
			if err := s.limitOp(ctx, limitTicket, "user:"+u.UserID); err != nil {
				return nil, err
			}
			return ticket(s.cfg.Terminals.UserTicket(ctx, terminals.Principal{Kind: terminals.KindUser, ID: u.UserID, SessionID: u.SessionID}, in.ID))
		})
	adminOp(s, terminalAdmins, audit.ActionHostTerminalOpen, huma.Operation{OperationID: "adminTerminalTicket",
		Method: http.MethodPost, Path: "/v1/admin/hosts/{id}/terminal/ticket",
		Summary: "A 30-second, single-use ticket for the terminal WebSocket of any host (audited)", Tags: []string{"terminal"}},
		s.adminTerminalTicket)
	// The single-use ticket is the WebSocket's only credential
	// (terminal_ws.go).
	wsDoc := func(id, summary string) huma.Operation {
		return huma.Operation{OperationID: id, Summary: summary, Tags: []string{"terminal"}, Security: noSecurity,
			Parameters: []*huma.Param{
				{Name: "id", In: "path", Required: true, Description: "Host id", Schema: &huma.Schema{Type: "string", Format: "uuid"}},
				{Name: "ticket", In: "query", Required: true, Description: "The ticket from terminal/ticket; consumed by this request", Schema: &huma.Schema{Type: "string"}},
				{Name: "cols", In: "query", Description: "Terminal width (default 80)", Schema: &huma.Schema{Type: "integer"}},
				{Name: "rows", In: "query", Description: "Terminal height (default 24)", Schema: &huma.Schema{Type: "integer"}},
			},
			Responses: map[string]*huma.Response{"101": {Description: "Switching protocols; framing in docs/terminal.md"}}}
	}
	s.raw("GET /v1/user/hosts/{id}/terminal/ws", s.terminalWS(terminals.KindUser),
		wsDoc("userTerminalWS", "Open the terminal WebSocket with a ticket (no other credential)"))
	s.mu.Lock()
	s.policy = append(s.policy, AdminRoute{Route: Route{http.MethodGet, "/v1/admin/hosts/{id}/terminal/ws"}, Allowed: terminalAdmins})
	s.mu.Unlock()
	s.raw("GET /v1/admin/hosts/{id}/terminal/ws", s.terminalWS(terminals.KindAdmin),
		wsDoc("adminTerminalWS", "Open the terminal WebSocket of any host with an admin ticket"))
	s.shellSessionRoutes()
}

// terminalAdmins may open terminals on any host.
var terminalAdmins = admin.Allow(admin.Operator)

// ticket answers an issued terminal ticket.
func ticket(t string, err error) (*ticketOut, error) {
	if err != nil {
		return nil, err
	}
	out := &ticketOut{}
	out.Body.Ticket, out.Body.ExpiresIn = t, int(terminals.TicketTTL/time.Second)
	return out, nil
}

// adminTerminalTicket: the terminals service checks the host and writes
// the audit row before the ticket is usable.
func (s *Server) adminTerminalTicket(ctx context.Context, in *HostIDParam) (*ticketOut, error) {
	ap, _ := adminOf(ctx)
	if err := s.limitOp(ctx, limitTicket, "admin:"+ap.AdminID); err != nil {
		return nil, err
	}
	return ticket(s.cfg.Terminals.AdminTicket(ctx, terminals.Principal{Kind: terminals.KindAdmin, ID: ap.AdminID, SessionID: ap.SessionID}, actor(ctx), in.ID))
}

// Pull mode (spec 4.5, shell sessions): each call charged
// control.shell_session.per_op; a session answers only the user who
// opened it, on the host it was opened on.

type sessionOpenIn struct {
	HostIDParam
	Body *struct {
		Cols int `json:"cols,omitempty" minimum:"0" maximum:"65535" doc:"Width in columns (default 80)"`
		Rows int `json:"rows,omitempty" minimum:"0" maximum:"65535" doc:"Height in rows (default 24)"`
	}
}

type sessionOpenOut struct {
	Body struct {
		StreamID string `json:"stream_id"`
	}
}

// SessionParams name a shell session. (Exported: huma reads the
// parameters of exported embedded structs only.)
type SessionParams struct {
	ID  string `path:"id" format:"uuid" doc:"Host id"`
	SID string `path:"sid" maxLength:"100" doc:"stream_id from open"`
}

type sessionIn struct{ SessionParams }

type sessionWriteIn struct {
	SessionParams
	Body struct {
		Input string `json:"input" minLength:"1" maxLength:"65536" doc:"Text to type, e.g. \"ls\\n\""`
	}
}

type sessionReadIn struct {
	SessionParams
	Body *struct {
		Max    int  `json:"max,omitempty" minimum:"0" maximum:"1048576" doc:"Most bytes to return (default 16384)"`
		WaitMs *int `json:"wait_ms,omitempty" minimum:"0" maximum:"25000" doc:"Wait up to this long for output when none is ready (default 1000; 0 answers at once)"`
	}
}

// SessionRead is a pull-mode read: output since the last read.
type SessionRead struct {
	Data     string `json:"data" doc:"Output bytes, base64"`
	EOF      bool   `json:"eof" doc:"The output is over: the shell exited or the terminal ended"`
	ExitCode *int   `json:"exit_code,omitempty" doc:"With eof: the shell's exit status when known (-1: killed)"`
	Reason   string `json:"reason,omitempty" doc:"With eof: why the terminal ended, when not by the shell's exit"`
}

type sessionReadOut struct{ Body SessionRead }

type sessionResizeIn struct {
	SessionParams
	Body struct {
		Cols int `json:"cols" minimum:"1" maximum:"65535"`
		Rows int `json:"rows" minimum:"1" maximum:"65535"`
	}
}

// defaultReadWait is a pull-mode read's wait when the body names none, so
// that polling clients are not charged for empty answers in a tight loop.
const defaultReadWait = time.Second

func (s *Server) shellSessionRoutes() {
	path := "/v1/api/hosts/{id}/shell/session"
	op(s, clientOp(http.MethodPost, path+"/open", "apiShellOpen", "Open an interactive shell session (pull mode)"),
		func(ctx context.Context, in *sessionOpenIn) (*sessionOpenOut, error) {
			p, err := s.sessionCaller(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			var cols, rows int
			if in.Body != nil {
				cols, rows = in.Body.Cols, in.Body.Rows
			}
			sid, err := s.cfg.Terminals.Open(ctx, p, in.ID, cols, rows)
			if err != nil {
				return nil, err
			}
			out := &sessionOpenOut{}
			out.Body.StreamID = sid
			return out, nil
		})
	op(s, clientOp(http.MethodPost, path+"/{sid}/write", "apiShellWrite", "Type input into a shell session"),
		func(ctx context.Context, in *sessionWriteIn) (*OK, error) {
			p, err := s.sessionCaller(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return ok(), s.cfg.Terminals.Write(ctx, p, in.ID, in.SID, []byte(in.Body.Input))
		})
	op(s, clientOp(http.MethodPost, path+"/{sid}/read", "apiShellRead", "Read a shell session's output since the last read"),
		func(ctx context.Context, in *sessionReadIn) (*sessionReadOut, error) {
			p, err := s.sessionCaller(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			o := terminals.ReadOptions{From: -1, Wait: defaultReadWait}
			if in.Body != nil {
				o.Max = in.Body.Max
				if in.Body.WaitMs != nil {
					o.Wait = time.Duration(*in.Body.WaitMs) * time.Millisecond
				}
			}
			c, err := s.cfg.Terminals.Read(ctx, p, in.ID, in.SID, o)
			if err != nil {
				return nil, err
			}
			return &sessionReadOut{Body: SessionRead{Data: base64.StdEncoding.EncodeToString(c.Data),
				EOF: c.EOF, ExitCode: c.ExitCode, Reason: c.Reason}}, nil
		})
	op(s, clientOp(http.MethodPost, path+"/{sid}/resize", "apiShellResize", "Resize a shell session's terminal"),
		func(ctx context.Context, in *sessionResizeIn) (*OK, error) {
			p, err := s.sessionCaller(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return ok(), s.cfg.Terminals.Resize(ctx, p, in.ID, in.SID, in.Body.Cols, in.Body.Rows)
		})
	op(s, clientOp(http.MethodPost, path+"/{sid}/close", "apiShellClose", "Close a shell session; its processes end"),
		func(ctx context.Context, in *sessionIn) (*OK, error) {
			p, err := s.sessionCaller(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return ok(), s.cfg.Terminals.Close(ctx, p, in.ID, in.SID)
		})
}

// sessionCaller checks that the API key's user may use the host and
// names the caller for the terminals service, which charges each call.
func (s *Server) sessionCaller(ctx context.Context, hostID string) (terminals.Principal, error) {
	c := clientOf(ctx)
	if err := s.hostCommandable(ctx, c.UserID, hostID); err != nil {
		return terminals.Principal{}, err
	}
	return terminals.Principal{Kind: terminals.KindUser, ID: c.UserID, APIKeyID: c.KeyID}, nil
}
