package operations

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/hosts"
)

type fakeHosts map[string]hosts.Host

func (f fakeHosts) Commandable(_ context.Context, owner, id string) error {
	h, ok := f[id]
	if !ok || h.UserID != owner {
		return apperr.NotFound("host")
	}
	if h.Status == hosts.StatusBanned {
		return apperr.New(hosts.CodeHostBanned, "this host is banned")
	}
	return nil
}

type sent struct {
	op      string
	args    agentproto.ControlArgs
	timeout time.Duration
}

type fakeDispatch struct {
	online bool
	resp   agentproto.Response
	sent   []sent
	raw    []json.RawMessage
}

func (f *fakeDispatch) Online(context.Context, string) (bool, error) { return f.online, nil }

func (f *fakeDispatch) Send(_ context.Context, _, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	var a agentproto.ControlArgs
	_ = json.Unmarshal(args, &a)
	f.sent = append(f.sent, sent{op, a, timeout})
	f.raw = append(f.raw, args)
	return f.resp, nil
}

type fakeCharger struct {
	broke   bool
	charged []string
}

func (f *fakeCharger) ChargeCall(_ context.Context, _, _, _, code string) (billing.Charged, error) {
	if f.broke {
		return billing.Charged{}, apperr.New(billing.CodeInsufficientBalance, "low")
	}
	f.charged = append(f.charged, code)
	return billing.Charged{Charged: true}, nil
}

func newFixture() (*Service, *fakeDispatch, *fakeCharger) {
	h := fakeHosts{
		"h1": {ID: "h1", UserID: "alice", Status: hosts.StatusOnline},
		"h2": {ID: "h2", UserID: "bob", Status: hosts.StatusOnline},
		"hb": {ID: "hb", UserID: "alice", Status: hosts.StatusBanned},
	}
	d := &fakeDispatch{online: true, resp: agentproto.Response{OK: true, Result: json.RawMessage(`{"pid":42}`)}}
	c := &fakeCharger{}
	return NewService(h, d, c), d, c
}

func TestRefusalsChargeAndSendNothing(t *testing.T) {
	cases := []struct {
		name   string
		call   Call
		setup  func(*fakeDispatch, *fakeCharger)
		wantEr string
	}{
		{"controls of another route", Call{Route: "files/dir", HostID: "h1", Controls: agentproto.CtlFileMk, Path: "/x"}, nil, apperr.CodeInvalidBody},
		{"raw controls absent", Call{HostID: "h1"}, nil, apperr.CodeInvalidBody},
		{"negative raw controls", Call{HostID: "h1", Controls: -4}, nil, apperr.CodeInvalidBody},
		{"raw upload", Call{HostID: "h1", Controls: agentproto.CtlUploadFile, Path: "/x"}, nil, CodeNotImplemented},
		{"raw watch dir without path", Call{HostID: "h1", Controls: agentproto.CtlChangeWatchDir}, nil, apperr.CodeInvalidBody},
		{"raw watch dir with data", Call{HostID: "h1", Controls: agentproto.CtlChangeWatchDir, Path: "/x",
			Data: json.RawMessage(`"y"`)}, nil, apperr.CodeInvalidBody},
		{"unknown raw controls, offline", Call{HostID: "h1", Controls: 1 << 40},
			func(d *fakeDispatch, _ *fakeCharger) { d.online = false }, "host_offline"},
		{"unknown raw controls, another user's host", Call{HostID: "h2", Controls: 1 << 40}, nil, apperr.CodeNotFound},
		{"missing controls on a two-operation route", Call{Route: "files/dir", HostID: "h1", Path: "/x"}, nil, apperr.CodeInvalidBody},
		{"another user's host", Call{Route: "files/dir", HostID: "h2", Controls: agentproto.CtlDirMk, Path: "/x"}, nil, apperr.CodeNotFound},
		{"unknown host", Call{Route: "files/dir", HostID: "nope", Controls: agentproto.CtlDirMk, Path: "/x"}, nil, apperr.CodeNotFound},
		{"banned host", Call{Route: "files/dir", HostID: "hb", Controls: agentproto.CtlDirMk, Path: "/x"}, nil, hosts.CodeHostBanned},
		{"missing path", Call{Route: "files/dir", HostID: "h1", Controls: agentproto.CtlDirMk}, nil, apperr.CodeInvalidBody},
		{"bad data", Call{Route: "process/shell", HostID: "h1", Controls: agentproto.CtlExecShell, Path: "sh",
			Data: json.RawMessage(`{"timeout_s":99999}`)}, nil, apperr.CodeInvalidBody},
		{"unknown data field", Call{Route: "process/shell", HostID: "h1", Controls: agentproto.CtlExecShell, Path: "sh",
			Data: json.RawMessage(`{"argz":"x"}`)}, nil, apperr.CodeInvalidBody},
		{"offline", Call{Route: "files/dir", HostID: "h1", Controls: agentproto.CtlDirMk, Path: "/x"},
			func(d *fakeDispatch, _ *fakeCharger) { d.online = false }, "host_offline"},
		{"broke", Call{Route: "files/dir", HostID: "h1", Controls: agentproto.CtlDirMk, Path: "/x"},
			func(_ *fakeDispatch, c *fakeCharger) { c.broke = true }, billing.CodeInsufficientBalance},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, d, c := newFixture()
			if tc.setup != nil {
				tc.setup(d, c)
			}
			tc.call.UserID = "alice"
			_, err := s.Run(t.Context(), tc.call)
			if apperr.Code(err) != tc.wantEr {
				t.Fatalf("error %v, want code %s", err, tc.wantEr)
			}
			if len(d.sent) != 0 || len(c.charged) != 0 {
				t.Fatalf("refused call sent %v and charged %v", d.sent, c.charged)
			}
		})
	}
}

func TestRunChargesThenSends(t *testing.T) {
	s, d, c := newFixture()
	res, err := s.Run(t.Context(), Call{Route: "process/shell", UserID: "alice", HostID: "h1",
		Controls: agentproto.CtlExecShell, Path: "/bin/sh", Data: json.RawMessage(`{"args":"-c true","timeout_s":100}`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `{"pid":42}` {
		t.Fatalf("result %s", res)
	}
	if len(c.charged) != 1 || c.charged[0] != billing.RuleExecShell {
		t.Fatalf("charged %v", c.charged)
	}
	got := d.sent[0]
	if got.op != "process.shell" || got.args.Path != "/bin/sh" || got.timeout != 100*time.Second+agentproto.WaitSlack {
		t.Fatalf("sent %+v", got)
	}
}

func TestSingleOperationRouteTakesAbsentControls(t *testing.T) {
	s, d, c := newFixture()
	if _, err := s.Run(t.Context(), Call{Route: "system/info", UserID: "alice", HostID: "h1"}); err != nil {
		t.Fatal(err)
	}
	if d.sent[0].op != "system.info" || c.charged[0] != billing.RuleSystemInfo {
		t.Fatalf("sent %v charged %v", d.sent, c.charged)
	}
}

func TestRawUsesTheOperationsRule(t *testing.T) {
	s, d, c := newFixture()
	if _, err := s.Run(t.Context(), Call{UserID: "alice", HostID: "h1", Controls: agentproto.CtlKillProcess, Path: "x.exe"}); err != nil {
		t.Fatal(err)
	}
	if d.sent[0].op != "process.kill" || c.charged[0] != billing.RuleKillProcess ||
		d.sent[0].timeout != time.Duration(agentproto.DefaultKillTimeoutS)*time.Second+agentproto.WaitSlack {
		t.Fatalf("sent %v charged %v", d.sent, c.charged)
	}
}

func TestAgentFailures(t *testing.T) {
	cases := map[string]string{
		"not_found":                   CodeTargetNotFound,
		agentproto.CodeBadArgs:        apperr.CodeInvalidBody,
		agentproto.CodeUnknownOp:      CodeAgentTooOld,
		agentproto.CodeUnsupportedOS:  agentproto.CodeUnsupportedOS,
		"unsafe_zip_entry":            "unsafe_zip_entry",
		"some_future_code":            CodeOperationFailed,
		CodeUnsupportedControl:        CodeUnsupportedControl,
		CodeNotImplemented:            CodeNotImplemented,
		agentproto.CodeDeadlinePassed: "agent_timeout",
	}
	for agentCode, want := range cases {
		s, d, c := newFixture()
		d.resp = agentproto.Response{OK: false, Error: &agentproto.Error{Code: agentCode, Message: "m"}}
		_, err := s.Run(t.Context(), Call{Route: "files/dir", UserID: "alice", HostID: "h1", Controls: agentproto.CtlDirRm, Path: "/x"})
		if apperr.Code(err) != want {
			t.Errorf("agent %s: got %v, want %s", agentCode, err, want)
		}
		if len(c.charged) != 1 {
			t.Errorf("agent %s: a failed operation stays charged (spec 8.1); charged %v", agentCode, c.charged)
		}
	}
}

func TestEveryRouteControlHasASpec(t *testing.T) {
	for route, ctls := range RouteControls {
		for _, v := range ctls {
			if _, _, ok := specOf(v); !ok {
				t.Errorf("%s: controls %d has no spec", route, v)
			}
			if _, ok := agentproto.ControlByValue(v); !ok {
				t.Errorf("%s: controls %d is not in the protocol table", route, v)
			}
		}
	}
}

// TestRawCarriesAnyValue: a value without an operation of the client API
// (outside the table, or a shell session or settings value) goes to the
// agent as control.raw with the value, path and data as sent, charged by
// RuleRawControl; the agent's unsupported_control comes back as is.
func TestRawCarriesAnyValue(t *testing.T) {
	for _, v := range []int64{3, 1 << 16, agentproto.CtlSettingsUpdate, 1 << 40, 1<<63 - 1} {
		s, d, c := newFixture()
		d.resp = agentproto.Response{Error: agentproto.UnsupportedControl(v)}
		_, err := s.Run(t.Context(), Call{UserID: "alice", HostID: "h1", Controls: v, Path: "p", Data: json.RawMessage(`{"k":1}`)})
		if apperr.Code(err) != CodeUnsupportedControl || !strings.Contains(err.Error(), strconv.FormatInt(v, 10)) {
			t.Errorf("%d: %v", v, err)
		}
		if len(d.sent) != 1 || d.sent[0].op != agentproto.OpRawControl || d.sent[0].timeout != defaultWait {
			t.Fatalf("%d: sent %+v", v, d.sent)
		}
		var rc agentproto.RawControl
		if err := json.Unmarshal(d.raw[0], &rc); err != nil || rc.Controls != v || rc.Path != "p" || string(rc.Data) != `{"k":1}` {
			t.Errorf("%d: args %s (%v)", v, d.raw[0], err)
		}
		if len(c.charged) != 1 || c.charged[0] != RuleRawControl || RuleOf(v) != RuleRawControl {
			t.Errorf("%d: charged %v", v, c.charged)
		}
	}
}

// TestRawChangeWatchDir: 2048 is sent as its op, charged as a directory
// operation.
func TestRawChangeWatchDir(t *testing.T) {
	s, d, c := newFixture()
	if _, err := s.Run(t.Context(), Call{UserID: "alice", HostID: "h1", Controls: agentproto.CtlChangeWatchDir, Path: "/srv/in"}); err != nil {
		t.Fatal(err)
	}
	if d.sent[0].op != "files.change_watch_dir" || d.sent[0].args.Path != "/srv/in" || c.charged[0] != billing.RuleDir {
		t.Fatalf("sent %+v charged %v", d.sent, c.charged)
	}
}
