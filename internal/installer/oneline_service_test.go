package installer

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"hostgate/internal/agentdist"
	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

type oneLineHosts struct{ redeemed []string }

func (*oneLineHosts) Exe() (string, string) {
	return "https://dl.example.com/agent.exe", strings.Repeat("ab", 32)
}
func (*oneLineHosts) APIEndpoint() string { return "https://hub.example.com" }
func (h *oneLineHosts) RedeemInstallToken(_ context.Context, token, _ string) (hosts.Credentials, error) {
	h.redeemed = append(h.redeemed, token)
	if token != "good" {
		return hosts.Credentials{}, apperr.NotFound("install token")
	}
	return creds(), nil
}

type noBinaries struct{}

func (noBinaries) Binary(string, string) (agentdist.Binary, bool) { return agentdist.Binary{}, false }

type limit struct{ left int }

func (l *limit) Allow(context.Context, string) (bool, bool, error) {
	l.left--
	return l.left >= 0, l.left == -1, nil
}

func TestOneLineFetch(t *testing.T) {
	h := &oneLineHosts{}
	o := &OneLine{Hosts: h, Downloads: noBinaries{}, Limit: &limit{left: 3}, Log: slog.New(slog.DiscardHandler)}
	ctx := t.Context()
	if _, _, err := o.Fetch(ctx, "good.exe", "192.0.2.1"); apperr.Code(err) != apperr.CodeNotFound {
		t.Fatalf("good.exe: %v, want not_found", err)
	}
	sc, refused, err := o.Fetch(ctx, "good.ps1", "192.0.2.1")
	if err != nil || refused || !strings.Contains(string(sc.Body), creds().HostID) {
		t.Fatalf("good.ps1: refused %v, %v", refused, err)
	}
	sc, refused, err = o.Fetch(ctx, "spent.ps1", "192.0.2.1")
	if err != nil || !refused || string(sc.Body) != string(Refused(PS1).Body) {
		t.Fatalf("spent.ps1: refused %v, %v", refused, err)
	}
	// No Linux agent to install: refused before the token is spent.
	if _, _, err := o.Fetch(ctx, "good.sh", "192.0.2.1"); err == nil {
		t.Fatal("good.sh with no Linux binaries: no error")
	}
	if len(h.redeemed) != 2 {
		t.Fatalf("redeemed %v, want the two .ps1 tokens only", h.redeemed)
	}
	if _, _, err := o.Fetch(ctx, "good.ps1", "192.0.2.1"); apperr.Code(err) != apperr.CodeRateLimited {
		t.Fatalf("past the limit: %v, want rate_limited", err)
	}
}
