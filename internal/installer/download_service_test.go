package installer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
)

type downloadHosts struct {
	exeURL string
	issued int
}

func (h *downloadHosts) Get(_ context.Context, owner, id string) (hosts.Host, error) {
	if owner != "alice" {
		return hosts.Host{}, apperr.NotFound("host")
	}
	return hosts.Host{ID: id, UserID: owner}, nil
}

func (h *downloadHosts) Exe() (string, string) { return h.exeURL, strings.Repeat("ab", 32) }

func (h *downloadHosts) IssueInstallToken(context.Context, string, string) (hosts.Credentials, error) {
	h.issued++
	return creds(), nil
}

type exeBytes struct{ err error }

func (e exeBytes) Get(context.Context) ([]byte, error) { return []byte("MZ"), e.err }

func TestDownloadsChecksBeforeIssuing(t *testing.T) {
	h := &downloadHosts{exeURL: "https://dl.example.com/agent.exe"}
	d := &Downloads{Hosts: h, Exe: exeBytes{}}
	sc, err := d.Installer(t.Context(), "alice", "host-1", PS1)
	if err != nil || !strings.Contains(string(sc.Body), creds().HostID) || h.issued != 1 {
		t.Fatalf("ps1: %v, issued %d", err, h.issued)
	}
	if _, err := d.Installer(t.Context(), "bob", "host-1", PS1); apperr.Code(err) != apperr.CodeNotFound || h.issued != 1 {
		t.Fatalf("another user's host: %v, issued %d", err, h.issued)
	}
	broken := errors.New("exe unavailable")
	d.Exe = exeBytes{err: broken}
	if _, err := d.Installer(t.Context(), "alice", "host-1", EXE); !errors.Is(err, broken) || h.issued != 1 {
		t.Fatalf("exe failure: %v, issued %d (want the token kept)", err, h.issued)
	}
	h.exeURL = ""
	if _, err := d.Installer(t.Context(), "alice", "host-1", PS1); err == nil || h.issued != 1 {
		t.Fatalf("no agent to install: %v, issued %d", err, h.issued)
	}
}
