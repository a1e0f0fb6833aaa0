package operations

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
)

// TestEveryRowIsCarriedOut: Run carries out each row of
// agentproto.Controls as the row says — a row carried by value is sent as
// its op on its route and over controls/raw, charged by its rule and
// waited for by its wait; one with routes of its own goes over
// controls/raw as a raw control; one not implemented is refused before
// any charge.
func TestEveryRowIsCarriedOut(t *testing.T) {
	for _, c := range agentproto.Controls {
		if c.Carry == agentproto.ByValue && c.Route != "" && !slices.Contains(RouteControls[c.Route], c.Value) {
			t.Errorf("%s: route %s does not take it", c.Name, c.Route)
		}
		s, d, ch := newFixture()
		// Args the row refuses are still sent (the rule is checked before
		// the charge), so take args each row accepts where there are any.
		args, ok := acceptedArgs(c)
		if !ok {
			t.Logf("%s: no candidate args are valid; not run", c.Name)
			continue
		}
		_, err := s.Run(t.Context(), Call{UserID: "alice", HostID: "h1", Controls: c.Value, Path: args.Path, Data: args.Data})
		switch c.Carry {
		case agentproto.ByValue:
			if err != nil || len(d.sent) != 1 || d.sent[0].op != c.Op || d.sent[0].timeout != c.Timeout(args) ||
				len(ch.charged) != 1 || ch.charged[0] != c.Rule || RuleOf(c.Value) != c.Rule {
				t.Errorf("%s: err %v, sent %+v, charged %v; want %s waited %v, charged %s", c.Name, err, d.sent, ch.charged, c.Op, c.Timeout(args), c.Rule)
			}
		case agentproto.OwnRoute:
			if err != nil || len(d.sent) != 1 || d.sent[0].op != agentproto.OpRawControl || RuleOf(c.Value) != RuleRawControl {
				t.Errorf("%s: err %v, sent %+v; want a raw control", c.Name, err, d.sent)
			}
		case agentproto.NotImplemented:
			if apperr.Code(err) != CodeNotImplemented || len(d.sent)+len(ch.charged) != 0 {
				t.Errorf("%s: err %v, sent %+v, charged %v; want not_implemented", c.Name, err, d.sent, ch.charged)
			}
		}
	}
}

// acceptedArgs are args c's rule accepts, from a few candidates.
func acceptedArgs(c agentproto.Control) (agentproto.ControlArgs, bool) {
	for _, path := range []string{"/p", `HKLM\x`} {
		for _, data := range []string{"", `"x"`, `{"action":"list"}`, `{"url":"http://h/x"}`} {
			a := agentproto.ControlArgs{Path: path}
			if data != "" {
				a.Data = json.RawMessage(data)
			}
			if c.Args == nil || c.Args(a) == nil {
				return a, true
			}
		}
	}
	return agentproto.ControlArgs{}, false
}

// TestANewControlIsOneRow: a control added to the table as one row is
// validated, priced, sent and waited for by Run from that row alone, and
// its route (if any) takes it. (The OpenAPI document and the SDKs are
// checked against the table by sdk/go's TestControlsParity, billing's
// rule codes by internal/billing.)
func TestANewControlIsOneRow(t *testing.T) {
	errBad := agentproto.ArgsError("data.n must be positive")
	row := agentproto.Control{
		Value: 1 << 40, Name: "NEW_OP", Op: "test.new_op", Const: "CtlNewOp",
		Route: "test/new", Rule: "control.new_op.per_call",
		Args: func(a agentproto.ControlArgs) error {
			if string(a.Data) != `{"n":1}` {
				return errBad
			}
			return nil
		},
		Wait: func(agentproto.ControlArgs) time.Duration { return 42 * time.Second },
	}
	before := agentproto.Controls
	agentproto.Controls = append(slices.Clip(before), row)
	t.Cleanup(func() { agentproto.Controls = before })

	if err := agentproto.ValidateArgs(row.Value, agentproto.ControlArgs{}); !errors.Is(err, errBad) {
		t.Errorf("ValidateArgs: %v, want the row's rule", err)
	}
	if got := routeControls(agentproto.Controls)["test/new"]; !slices.Equal(got, []int64{row.Value}) {
		t.Errorf("route test/new takes %v", got)
	}
	s, d, ch := newFixture()
	if _, err := s.Run(t.Context(), Call{UserID: "alice", HostID: "h1", Controls: row.Value, Data: json.RawMessage(`{"n":2}`)}); apperr.Code(err) != apperr.CodeInvalidBody {
		t.Errorf("bad args: %v", err)
	}
	if _, err := s.Run(t.Context(), Call{UserID: "alice", HostID: "h1", Controls: row.Value, Data: json.RawMessage(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	if len(d.sent) != 1 || d.sent[0].op != row.Op || d.sent[0].timeout != 42*time.Second ||
		len(ch.charged) != 1 || ch.charged[0] != row.Rule || RuleOf(row.Value) != row.Rule {
		t.Errorf("sent %+v, charged %v", d.sent, ch.charged)
	}
	if agentproto.OpName(row.Value) != row.Op {
		t.Errorf("OpName: %s", agentproto.OpName(row.Value))
	}
}
