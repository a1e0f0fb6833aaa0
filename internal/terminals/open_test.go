package terminals

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/coord/inproc"
)

// fakeHosts: alice owns host-1; host-banned is banned; nothing else exists.
type fakeHosts struct{}

func (fakeHosts) Commandable(_ context.Context, userID, hostID string) error {
	switch {
	case hostID == "host-banned":
		return apperr.New("host_banned", "this host is banned")
	case userID != "alice" || hostID != "host-1":
		return apperr.NotFound("host")
	}
	return nil
}

func (fakeHosts) AdminCommandable(_ context.Context, hostID string) (string, error) {
	switch hostID {
	case "host-1":
		return hostID, nil
	case "host-banned":
		return "", apperr.New("host_banned", "this host is banned")
	}
	return "", apperr.NotFound("host")
}

func (h fakeHosts) AdminExists(ctx context.Context, hostID string) error {
	if hostID == "host-banned" {
		return nil
	}
	_, err := h.AdminCommandable(ctx, hostID)
	return err
}

// fakeLogins: session "ended" is revoked; admin "adm-gone" is disabled
// (its sessions ended).
type fakeLogins struct{}

func (fakeLogins) SessionRevoked(_ context.Context, sessionID string) (bool, error) {
	return sessionID == "ended", nil
}

func (fakeLogins) AdminSessionEnded(_ context.Context, adminID, sessionID string) (bool, error) {
	return adminID == "adm-gone" || sessionID == "ended", nil
}

type fakeAudit struct {
	entries []audit.Entry
	err     error
}

func (f *fakeAudit) AppendAudit(_ context.Context, e audit.Entry) error {
	if f.err != nil {
		return f.err
	}
	f.entries = append(f.entries, e)
	return nil
}

func ticketService(t *testing.T, a *fakeAudit) *Service {
	co := inproc.New()
	t.Cleanup(func() { co.Close() })
	return New(Config{Instance: "inst-a", Coord: co, Hosts: fakeHosts{}, Logins: fakeLogins{}, Audit: a, Log: slog.New(slog.DiscardHandler)})
}

func TestUserTicketChecksTheHost(t *testing.T) {
	s := ticketService(t, &fakeAudit{})
	alice := Principal{Kind: KindUser, ID: "alice"}
	tk, err := s.UserTicket(t.Context(), alice, "host-1")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.RedeemTicket(t.Context(), tk, KindUser, "host-1"); err != nil || p.ID != "alice" {
		t.Fatalf("redeem: %+v %v", p, err)
	}
	if _, err := s.UserTicket(t.Context(), Principal{Kind: KindUser, ID: "bob"}, "host-1"); apperr.Code(err) != apperr.CodeNotFound {
		t.Errorf("another user's host: %v, want not_found", err)
	}
	if _, err := s.UserTicket(t.Context(), alice, "host-banned"); apperr.Code(err) != "host_banned" {
		t.Errorf("banned host: %v, want host_banned", err)
	}
}

func TestAdminTicketIsAudited(t *testing.T) {
	a := &fakeAudit{}
	s := ticketService(t, a)
	admin := Principal{Kind: KindAdmin, ID: "adm-1", SessionID: "sess"}
	actor := audit.Actor{AdminID: "adm-1", Role: "operator", RequestID: "req-1"}
	tk, err := s.AdminTicket(t.Context(), admin, actor, "host-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.entries) != 1 || a.entries[0].Action != audit.ActionHostTerminalOpen || a.entries[0].TargetID != "host-1" ||
		a.entries[0].AdminID != "adm-1" {
		t.Fatalf("audit: %+v", a.entries)
	}
	if _, err := s.RedeemTicket(t.Context(), tk, KindAdmin, "host-1"); err != nil {
		t.Fatalf("redeem: %v", err)
	}
	for _, host := range []string{"host-banned", "host-missing"} {
		if _, err := s.AdminTicket(t.Context(), admin, actor, host); err == nil {
			t.Errorf("%s: a ticket", host)
		}
	}
	if len(a.entries) != 1 {
		t.Errorf("refused tickets were audited: %+v", a.entries)
	}

	// An audit row that cannot be written leaves no usable ticket.
	a.err = errors.New("disk full")
	if _, err := s.AdminTicket(t.Context(), admin, actor, "host-1"); !errors.Is(err, a.err) {
		t.Fatalf("audit failure: %v", err)
	}
}

func TestUsableRechecksHostAndLogin(t *testing.T) {
	s := ticketService(t, &fakeAudit{})
	for _, c := range []struct {
		p    Principal
		host string
		code string
	}{
		{Principal{Kind: KindUser, ID: "alice", SessionID: "live"}, "host-1", ""},
		{Principal{Kind: KindUser, ID: "alice"}, "host-1", ""}, // no login session to end
		{Principal{Kind: KindUser, ID: "alice", SessionID: "ended"}, "host-1", CodeInvalidTicket},
		{Principal{Kind: KindUser, ID: "bob", SessionID: "live"}, "host-1", apperr.CodeNotFound},
		{Principal{Kind: KindUser, ID: "alice", SessionID: "live"}, "host-banned", "host_banned"},
		{Principal{Kind: KindAdmin, ID: "adm-1", SessionID: "s"}, "host-banned", ""},
		{Principal{Kind: KindAdmin, ID: "adm-1", SessionID: "s"}, "host-missing", apperr.CodeNotFound},
		{Principal{Kind: KindAdmin, ID: "adm-gone", SessionID: "s"}, "host-1", CodeInvalidTicket},
	} {
		err := s.Usable(t.Context(), c.p, c.host)
		if got := apperr.Code(err); (c.code == "" && err != nil) || (c.code != "" && got != c.code) {
			t.Errorf("Usable(%+v, %s) = %v, want %q", c.p, c.host, err, c.code)
		}
	}
}
