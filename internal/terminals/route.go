package terminals

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/billing"
)

// Operations on a terminal, as they travel between instances.
const (
	opOpen   = "open"
	opWrite  = "write"
	opRead   = "read"
	opResize = "resize"
	opClose  = "close"
)

// routeMargin is what a caller waits for a routed reply on top of the
// operation's own time: two hops through coordination and the work.
const routeMargin = 5 * time.Second

// request is one operation for the instance holding a terminal.
type request struct {
	ReqID     string    `json:"req_id"`
	ReplyTo   string    `json:"reply_to"`
	Op        string    `json:"op"`
	Principal Principal `json:"principal"`
	HostID    string    `json:"host_id"`
	SID       string    `json:"sid,omitempty"`
	Cols      int       `json:"cols,omitempty"`
	Rows      int       `json:"rows,omitempty"`
	Input     []byte    `json:"input,omitempty"`
	Max       int       `json:"max,omitempty"`
	From      int64     `json:"from"`
	WaitMs    int64     `json:"wait_ms,omitempty"`
}

// reply answers a request: a result, or an error code and message.
type reply struct {
	ReqID   string `json:"req_id"`
	SID     string `json:"sid,omitempty"`
	Chunk   Chunk  `json:"chunk"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Spent is what the operation's charge took there, for the answer's
	// charge headers here; nil when it reached no charge step.
	Spent *billing.Spent `json:"spent,omitempty"`
}

// message is what goes over an instance's channel: one of the two.
type message struct {
	Request *request `json:"request,omitempty"`
	Reply   *reply   `json:"reply,omitempty"`
}

func channelOf(instance string) string { return "terminals:inst:" + instance }

// call sends r to instance and waits for its reply. busy is how long the
// operation may take there.
func (s *Service) call(ctx context.Context, instance string, r request, busy time.Duration) (reply, error) {
	r.ReqID, r.ReplyTo = uuid.NewString(), s.cfg.Instance
	w := make(chan reply, 1)
	s.mu.Lock()
	s.waiters[r.ReqID] = w
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiters, r.ReqID)
		s.mu.Unlock()
	}()
	b, err := json.Marshal(message{Request: &r})
	if err != nil {
		return reply{}, err
	}
	if err := s.cfg.Coord.Publish(ctx, channelOf(instance), b); err != nil {
		return reply{}, err
	}
	t := time.NewTimer(busy + routeMargin)
	defer t.Stop()
	select {
	case rep := <-w:
		if rep.Spent != nil {
			billing.Note(ctx, *rep.Spent)
		}
		if rep.Code != "" {
			return reply{}, apperr.New(rep.Code, rep.Message)
		}
		return rep, nil
	case <-t.C:
		return reply{}, apperr.New(apperr.CodeUnavailable, "the hub instance holding this terminal did not answer")
	case <-ctx.Done():
		return reply{}, ctx.Err()
	}
}

// Run serves this instance's channel and sweeps idle terminals until ctx
// ends; then it closes every terminal it holds. ready is closed once the
// subscription is in place.
func (s *Service) Run(ctx context.Context, ready chan<- struct{}) error {
	sub, err := s.cfg.Coord.Subscribe(ctx, channelOf(s.cfg.Instance))
	if err != nil {
		return err
	}
	defer sub.Close()
	defer s.closeAll()
	close(ready)
	tick := time.NewTicker(min(s.cfg.IdleTimeout/4, 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case b, ok := <-sub.C():
			if !ok {
				return nil
			}
			s.handle(ctx, b)
		case now := <-tick.C:
			s.sweep(now)
		}
	}
}

func (s *Service) handle(ctx context.Context, b []byte) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		s.cfg.Log.WarnContext(ctx, "malformed terminal message", "err", err)
		return
	}
	switch {
	case m.Reply != nil:
		s.mu.Lock()
		w := s.waiters[m.Reply.ReqID]
		s.mu.Unlock()
		if w != nil {
			select {
			case w <- *m.Reply:
			default:
			}
		}
	case m.Request != nil:
		go s.serveRouted(ctx, *m.Request)
	}
}

// serveRouted carries out a request from another instance and replies.
func (s *Service) serveRouted(ctx context.Context, r request) {
	ctx, receipt := billing.WithReceipt(ctx)
	rep, err := s.serve(ctx, r)
	if errors.Is(err, context.Canceled) {
		return
	}
	rep.ReqID = r.ReqID
	if spent, seen := receipt.Spent(); seen {
		rep.Spent = &spent
	}
	if err != nil {
		rep.Code = apperr.Code(err)
		rep.Message = "internal error"
		if e, ok := errors.AsType[*apperr.Error](err); ok {
			rep.Message = e.Message
		} else {
			s.cfg.Log.ErrorContext(ctx, "terminal operation failed", "op", r.Op, "err", err)
		}
	}
	b, err := json.Marshal(message{Reply: &rep})
	if err == nil {
		err = s.cfg.Coord.Publish(ctx, channelOf(r.ReplyTo), b)
	}
	if err != nil {
		s.cfg.Log.WarnContext(ctx, "terminal reply not sent", "op", r.Op, "err", err)
	}
}
