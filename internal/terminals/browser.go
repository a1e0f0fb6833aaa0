package terminals

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"hostgate/internal/apperr"
)

// The browser terminal (docs/terminal.md, "Browser framing"): one
// WebSocket whose binary messages carry terminal bytes both ways and
// whose text messages are small JSON control messages — resize (and
// input as text) from the browser, exit and error from the hub. Browser
// is the one pump between a terminal and that socket; the transport only
// upgrades the request and hands the socket's events on.

// Browser timing.
const (
	// BrowserPingEvery is how often the hub pings the browser; the
	// transport counts a socket silent for three of these as gone.
	BrowserPingEvery = 30 * time.Second
	// browserLoginCheck is how soon a logout or suspension ends the terminal.
	browserLoginCheck = time.Second
	// browserReadWait is one long-poll for output.
	browserReadWait = 25 * time.Second
	// browserChunk is the most output in one message.
	browserChunk = 32 << 10
	// browserCloseTimeout bounds ending the terminal once the socket has gone.
	browserCloseTimeout = 10 * time.Second
)

// Close codes the hub uses on the browser's socket.
const (
	CloseNormal = 1000 // the shell exited, or the terminal ended
	CloseError  = 1011 // the terminal failed; an error message came first
	CloseBadMsg = 1003 // a control message the hub does not understand
)

// Control is a JSON control message on the browser's socket, either way.
type Control struct {
	Type     string `json:"type"` // browser: resize, input; hub: exit, error
	Cols     int    `json:"cols,omitempty"`
	Rows     int    `json:"rows,omitempty"`
	Data     string `json:"data,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Error    string `json:"error,omitempty"`
	Message  string `json:"message,omitempty"`
}

// Socket is the browser's WebSocket as the transport gives it: each write
// is one message, under the transport's write limit.
type Socket interface {
	WriteBinary(b []byte) error
	WriteText(b []byte) error
	WritePing() error
	WriteClose(code uint16, reason []byte) error
	// Drop ends the connection at once, without a close frame.
	Drop()
}

// Browser is one browser terminal: the terminal sid of p on hostID,
// which may live on another hub instance, driven over sock.
type Browser struct {
	s      *Service
	p      Principal
	hostID string
	sid    string
	sock   Socket
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

// Browser returns the driver of the terminal sid (opened for p on hostID)
// over sock. ctx carries the request's values; its end does not end the
// terminal. Call Start once the socket is open, Message for each message
// the browser sends and Closed when the socket has gone; Abandon ends the
// terminal when the socket never opened.
func (s *Service) Browser(ctx context.Context, p Principal, hostID, sid string, sock Socket) *Browser {
	b := &Browser{s: s, p: p, hostID: hostID, sid: sid, sock: sock, log: s.log()}
	b.ctx, b.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return b
}

func (s *Service) log() *slog.Logger {
	if s.cfg.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.cfg.Log
}

// Start pumps the terminal's output to the browser and watches the
// socket's liveness and the login session.
func (b *Browser) Start() {
	go b.pump()
	go b.watch()
}

// Abandon ends the terminal of a socket that never opened.
func (b *Browser) Abandon() {
	b.cancel()
	b.closeTerminal()
}

// pump long-polls the terminal's output and writes it to the browser.
// The next read is asked for only when the browser has taken the last
// chunk, so a slow browser slows its own terminal and nothing else.
func (b *Browser) pump() {
	from := int64(0)
	for {
		c, err := b.s.Read(b.ctx, b.p, b.hostID, b.sid, ReadOptions{From: from, Max: browserChunk, Wait: browserReadWait})
		if err != nil {
			if b.ctx.Err() == nil {
				b.fail(err)
			}
			return
		}
		if len(c.Data) > 0 {
			if b.sock.WriteBinary(c.Data) != nil {
				b.sock.Drop()
				return
			}
			from = c.Offset + int64(len(c.Data))
		}
		if c.EOF {
			b.sendControl(Control{Type: "exit", ExitCode: c.ExitCode, Reason: c.Reason})
			_ = b.sock.WriteClose(CloseNormal, nil)
			return
		}
	}
}

func (b *Browser) sendControl(c Control) {
	m, _ := json.Marshal(c)
	_ = b.sock.WriteText(m)
}

// fail tells the browser why the terminal broke and closes the socket.
func (b *Browser) fail(err error) {
	code, msg := apperr.CodeInternal, "internal error"
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		code, msg = e.Code, e.Message
	} else {
		b.log.Error("terminal failed", "host_id", b.hostID, "err", err)
	}
	if code == CodeTerminalEnded {
		b.sendControl(Control{Type: "exit"})
		_ = b.sock.WriteClose(CloseNormal, nil)
		return
	}
	b.sendControl(Control{Type: "error", Error: code, Message: msg})
	_ = b.sock.WriteClose(CloseError, []byte(code))
}

// watch pings, which keeps proxies from cutting an idle terminal and
// finds dead peers, and ends the terminal once the console login session
// it was opened from has ended (logout, suspension), on any instance.
func (b *Browser) watch() {
	ping := time.NewTicker(BrowserPingEvery)
	defer ping.Stop()
	login := time.NewTicker(browserLoginCheck)
	defer login.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-ping.C:
			_ = b.sock.WritePing()
		case <-login.C:
			if ended, err := b.s.LoginEnded(b.ctx, b.p); err == nil && ended {
				b.fail(apperr.New(apperr.CodeInvalidToken, "your login session has ended"))
				b.cancel()
				b.closeTerminal()
				return
			}
		}
	}
}

// Message handles a message from the browser — input (binary) or a
// control message (text) — in order on the socket's read loop, so input
// backs up into the browser's socket when the shell does not take it.
// Input or a resize after the shell ended is dropped: only the pump ends
// the socket then, once the output before the end has gone out.
func (b *Browser) Message(binary bool, data []byte) {
	var err error
	if binary {
		if len(data) > 0 {
			err = b.s.Write(b.ctx, b.p, b.hostID, b.sid, data)
		}
	} else {
		var ctl Control
		if json.Unmarshal(data, &ctl) != nil {
			b.sendControl(Control{Type: "error", Error: apperr.CodeInvalidBody, Message: "a text message must be a JSON control message"})
			_ = b.sock.WriteClose(CloseBadMsg, nil)
			return
		}
		switch ctl.Type {
		case "resize":
			err = b.s.Resize(b.ctx, b.p, b.hostID, b.sid, ctl.Cols, ctl.Rows)
		case "input":
			if ctl.Data != "" {
				err = b.s.Write(b.ctx, b.p, b.hostID, b.sid, []byte(ctl.Data))
			}
		default:
			b.sendControl(Control{Type: "error", Error: apperr.CodeInvalidBody, Message: "unknown control message type"})
		}
	}
	switch {
	case err == nil || b.ctx.Err() != nil:
	case apperr.Is(err, CodeTerminalEnded):
		// The shell has ended, but its last output may not have reached
		// the browser yet: the pump sends it, then the exit message and
		// the close. Ending the socket here would overtake that output.
	case apperr.Is(err, apperr.CodeInvalidBody):
		// A bad resize costs nothing but an error message.
		e, _ := errors.AsType[*apperr.Error](err)
		b.sendControl(Control{Type: "error", Error: e.Code, Message: e.Message})
	default:
		b.fail(err)
	}
}

// Closed ends the terminal once the browser has left or the socket broke;
// the agent kills its processes.
func (b *Browser) Closed() {
	b.cancel()
	b.closeTerminal()
}

// closeTerminal ends the terminal once.
func (b *Browser) closeTerminal() {
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), browserCloseTimeout)
		defer cancel()
		if err := b.s.Close(ctx, b.p, b.hostID, b.sid); err != nil && !apperr.Is(err, apperr.CodeNotFound) {
			b.log.Info("terminal close failed", "host_id", b.hostID, "err", err)
		}
	})
}
