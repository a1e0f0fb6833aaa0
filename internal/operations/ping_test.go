package operations

import (
	"encoding/json"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/hosts"
)

func TestPingChargesAHostQueryThenSends(t *testing.T) {
	s, d, c := newFixture()
	d.resp = agentproto.Response{OK: true, Result: json.RawMessage(`{"agent_version":"1.2.3","agent_time_ms":1}`)}
	pong, err := s.Ping(t.Context(), "alice", "k1", "h1")
	if err != nil {
		t.Fatal(err)
	}
	if pong.AgentVersion != "1.2.3" || pong.RTT < 0 {
		t.Errorf("pong %+v, want version 1.2.3", pong)
	}
	if len(c.charged) != 1 || c.charged[0] != billing.RuleHostQuery {
		t.Errorf("charged %v, want one %s", c.charged, billing.RuleHostQuery)
	}
	if len(d.sent) != 1 || d.sent[0].op != agentproto.OpPing || d.sent[0].timeout != pingTimeout {
		t.Errorf("sent %+v, want one ping", d.sent)
	}
}

func TestPingRefusalsChargeAndSendNothing(t *testing.T) {
	cases := []struct {
		name, host string
		setup      func(*fakeDispatch, *fakeCharger)
		want       string
	}{
		{"another user's host", "h2", nil, apperr.CodeNotFound},
		{"unknown host", "nope", nil, apperr.CodeNotFound},
		{"banned host", "hb", nil, hosts.CodeHostBanned},
		{"offline", "h1", func(d *fakeDispatch, _ *fakeCharger) { d.online = false }, "host_offline"},
		{"broke", "h1", func(_ *fakeDispatch, c *fakeCharger) { c.broke = true }, billing.CodeInsufficientBalance},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, d, c := newFixture()
			if tc.setup != nil {
				tc.setup(d, c)
			}
			if _, err := s.Ping(t.Context(), "alice", "k1", tc.host); apperr.Code(err) != tc.want {
				t.Fatalf("error %v, want code %s", err, tc.want)
			}
			if len(d.sent) != 0 || len(c.charged) != 0 {
				t.Fatalf("refused ping sent %v and charged %v", d.sent, c.charged)
			}
		})
	}
}

func TestPingAgentRefusal(t *testing.T) {
	s, d, _ := newFixture()
	d.resp = agentproto.Response{OK: false}
	if _, err := s.Ping(t.Context(), "alice", "k1", "h1"); apperr.Code(err) != "agent_error" {
		t.Fatalf("error %v, want agent_error", err)
	}
}
