package agentgw

import (
	"testing"
	"time"

	"hostgate/internal/hosts"
)

func TestHeartbeatAnsweredOnlyAfterAQuietSpell(t *testing.T) {
	var s session
	now := time.Unix(10_000, 0)
	if !s.ackDue("", now) {
		t.Fatal("a session the hub never wrote to must answer")
	}
	s.lastSent.Store(now.UnixNano())
	for _, c := range []struct {
		after time.Duration
		id    string
		want  bool
	}{
		{heartbeat, "", false}, // the next heartbeat: the agent heard from the hub 25 s ago
		{ackQuiet - time.Millisecond, "", false},
		{ackQuiet, "", true},
		{2 * heartbeat, "", true},      // every other heartbeat is answered
		{time.Second, "probe-1", true}, // a heartbeat with an id always is
	} {
		if got := s.ackDue(c.id, now.Add(c.after)); got != c.want {
			t.Errorf("%v after the last write, id %q: ackDue = %v, want %v", c.after, c.id, got, c.want)
		}
	}
	// Three heartbeat intervals is when the agent gives up: an answer is
	// always due before that.
	if ackQuiet+heartbeat >= 3*heartbeat {
		t.Fatalf("ackQuiet %v lets the agent go %v without hearing from the hub", ackQuiet, ackQuiet+heartbeat)
	}
}

const heartbeat = hosts.HeartbeatInterval
