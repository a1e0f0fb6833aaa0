package terminals

import (
	"context"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
)

// Hosts is what opening a terminal asks about its host (the hosts service).
type Hosts interface {
	// Commandable returns nil when hostID is userID's host and not banned.
	Commandable(ctx context.Context, userID, hostID string) error
	// AdminCommandable returns the host's id when an admin may act on it:
	// it exists and is not banned.
	AdminCommandable(ctx context.Context, hostID string) (string, error)
	// AdminExists returns nil when the host exists, banned or not.
	AdminExists(ctx context.Context, hostID string) error
}

// Logins tells whether the console login a ticket was issued in still
// holds: the user's session (accounts) or the admin's (admin).
type Logins interface {
	SessionRevoked(ctx context.Context, sessionID string) (bool, error)
	AdminSessionEnded(ctx context.Context, adminID, sessionID string) (bool, error)
}

// Auditor appends an admin audit entry.
type Auditor interface {
	AppendAudit(ctx context.Context, e audit.Entry) error
}

// UserTicket issues a terminal WebSocket ticket for p, a user, on their
// host hostID: not_found for another user's host, host_banned for a
// banned one.
func (s *Service) UserTicket(ctx context.Context, p Principal, hostID string) (string, error) {
	if err := s.cfg.Hosts.Commandable(ctx, p.ID, hostID); err != nil {
		return "", err
	}
	return s.IssueTicket(ctx, p, hostID)
}

// AdminTicket issues a terminal WebSocket ticket for p, an admin, on any
// host that is not banned, and records who asked (audit.ActionHostTerminalOpen
// by a). The ticket is usable only once its audit row is written: when
// the row cannot be written the ticket is taken back.
func (s *Service) AdminTicket(ctx context.Context, p Principal, a audit.Actor, hostID string) (string, error) {
	id, err := s.cfg.Hosts.AdminCommandable(ctx, hostID)
	if err != nil {
		return "", err
	}
	t, err := s.IssueTicket(ctx, p, id)
	if err != nil {
		return "", err
	}
	if err := s.cfg.Audit.AppendAudit(ctx, a.Entry(audit.ActionHostTerminalOpen, "host", id)); err != nil {
		_, _ = s.RedeemTicket(context.WithoutCancel(ctx), t, KindAdmin, id)
		return "", err
	}
	return t, nil
}

// Usable re-checks, when a ticket is used, that its principal p may still
// use hostID (a user: their host, not banned; an admin: the host exists)
// and that the login session the ticket was issued in has not ended
// (invalid_ticket then).
func (s *Service) Usable(ctx context.Context, p Principal, hostID string) error {
	var err error
	if p.Kind == KindUser {
		err = s.cfg.Hosts.Commandable(ctx, p.ID, hostID)
	} else {
		err = s.cfg.Hosts.AdminExists(ctx, hostID)
	}
	if err != nil {
		return err
	}
	ended, err := s.LoginEnded(ctx, p)
	if err != nil {
		return err
	}
	if ended {
		return apperr.New(CodeInvalidTicket, "the login session that asked for this ticket has ended")
	}
	return nil
}

// LoginEnded reports whether the console login behind p has ended: the
// user's or the admin's session ended (an admin's also when it is
// disabled or its role changes). A principal with no login session (the
// client API) never ends so.
func (s *Service) LoginEnded(ctx context.Context, p Principal) (bool, error) {
	if p.SessionID == "" {
		return false, nil
	}
	if p.Kind == KindAdmin {
		return s.cfg.Logins.AdminSessionEnded(ctx, p.ID, p.SessionID)
	}
	return s.cfg.Logins.SessionRevoked(ctx, p.SessionID)
}
