package terminals

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"time"

	"hostgate/internal/apperr"
)

// TicketTTL is how long a terminal ticket may wait to be used (what
// Config.TicketTTL defaults to).
const TicketTTL = 30 * time.Second

// ticketLen is the length of a ticket: 32 random bytes in base64url.
const ticketLen = 43

// ticket is what coordination keeps under a ticket's hash.
type ticket struct {
	Principal Principal `json:"principal"`
	HostID    string    `json:"host_id"`
}

func ticketKey(t string) string {
	sum := sha256.Sum256([]byte(t))
	return "terminals:ticket:" + hex.EncodeToString(sum[:])
}

// IssueTicket returns a single-use ticket that opens a terminal on hostID
// for p through the terminal WebSocket, valid for Config.TicketTTL. The
// caller has checked that p may use the host. Only the ticket's hash is
// stored.
func (s *Service) IssueTicket(ctx context.Context, p Principal, hostID string) (string, error) {
	b := make([]byte, 32)
	rand.Read(b)
	t := base64.RawURLEncoding.EncodeToString(b)
	v, err := json.Marshal(ticket{Principal: Principal{Kind: p.Kind, ID: p.ID, SessionID: p.SessionID}, HostID: hostID})
	if err != nil {
		return "", err
	}
	if err := s.cfg.Coord.PutTicket(ctx, ticketKey(t), v, s.cfg.TicketTTL); err != nil {
		return "", err
	}
	return t, nil
}

// RedeemTicket consumes t (of any number of concurrent redeemers, one
// succeeds) and returns the principal it was issued to. A ticket that is
// unknown, used, expired, issued for another host or for the other
// console (kind) is refused with invalid_ticket; it is consumed all the
// same.
func (s *Service) RedeemTicket(ctx context.Context, t, kind, hostID string) (Principal, error) {
	refused := apperr.New(CodeInvalidTicket, "the terminal ticket is invalid, used or expired; ask for a new one")
	if len(t) != ticketLen {
		return Principal{}, refused
	}
	v, ok, err := s.cfg.Coord.TakeTicket(ctx, ticketKey(t))
	if err != nil {
		return Principal{}, err
	}
	var tk ticket
	if !ok || json.Unmarshal(v, &tk) != nil || tk.HostID != hostID || tk.Principal.Kind != kind {
		return Principal{}, refused
	}
	return tk.Principal, nil
}
