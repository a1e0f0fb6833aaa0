package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

// TestShellSessionAcrossInstances drives a shell session through the Go
// SDK on hub b while the agent process is connected to hub a.
func TestShellSessionAcrossInstances(t *testing.T) {
	// A plain POSIX shell, as the terminal tests use everywhere.
	t.Setenv("SHELL", "/bin/sh")
	e := NewEnv(t, true)
	a, b := e.StartHub(), e.StartHub()
	cust := NewCustomer(t, a)
	cust.Fund(a, 100)
	creds := cust.CreateHost(a, "term")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 15*time.Second, "agent connected", func() bool { return cust.Connected(b, creds.HostID) })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := hostgate.New(b.URL, cust.Key)
	s, err := c.OpenShell(ctx, creds.HostID, 80, 24)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	readUntil := func(want string) {
		t.Helper()
		var out strings.Builder
		for !strings.Contains(out.String(), want) {
			o, err := s.Read(ctx, 0, 2*time.Second)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			out.Write(o.Data)
			if o.EOF && !strings.Contains(out.String(), want) {
				t.Fatalf("EOF before %q; output %q", want, out.String())
			}
		}
	}
	if err := s.Write(ctx, "echo hel''lo\n"); err != nil {
		t.Fatal(err)
	}
	readUntil("hello")
	if err := s.Resize(ctx, 101, 33); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, "stty size; exit 7\n"); err != nil {
		t.Fatal(err)
	}
	readUntil("33 101")
	for {
		o, err := s.Read(ctx, 0, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if o.EOF {
			if o.ExitCode == nil || *o.ExitCode != 7 {
				t.Fatalf("exit code %v, want 7", o.ExitCode)
			}
			break
		}
	}
	if err := s.Write(ctx, "late\n"); err == nil || !strings.Contains(err.Error(), "terminal_ended") {
		t.Fatalf("write after exit: %v, want terminal_ended", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
