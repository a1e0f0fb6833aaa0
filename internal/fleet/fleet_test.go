package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
	"hostgate/internal/fleet"
	"hostgate/internal/hubtest"
)

func TestFleetAgainstARealHub(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	const n = 60
	creds, err := fleet.Provision(t.Context(), h.Hosts, u.User.ID, n, 4)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := fleet.WriteCredentials(&buf, creds); err != nil {
		t.Fatal(err)
	}
	back, err := fleet.ReadCredentials(&buf)
	if err != nil || len(back) != n || back[n-1] != creds[n-1] {
		t.Fatalf("credentials round trip: %d, %v", len(back), err)
	}

	run := func(creds []fleet.Credentials) (*fleet.Fleet, func()) {
		f := fleet.New(fleet.Config{Sources: []net.IP{net.ParseIP("127.0.0.2"), net.ParseIP("127.0.0.3")}, Ramp: 1000}, creds)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { _ = f.Run(ctx) })
		return f, func() { cancel(); wg.Wait() }
	}
	f, stop := run(back)
	eventually.True(t, 30*time.Second, "the whole fleet welcomed", func() bool { return f.Stats().AllConnectedMs > 0 })
	if s := f.Stats(); s.Welcomed != n || s.Connected != n {
		t.Fatalf("stats %+v", s)
	}
	// The hub registers an agent just after welcoming it.
	eventually.True(t, 30*time.Second, "the hub to hold the fleet", func() bool { return h.Dispatch.LocalCount() == n })

	// Commands reach simulated agents and are answered.
	for _, c := range creds[:10] {
		r, err := h.Dispatch.Send(t.Context(), c.HostID, agentproto.OpPing, nil, 5*time.Second)
		if err != nil || !r.OK {
			t.Fatalf("ping %s: %+v %v", c.HostID, r, err)
		}
		args, _ := json.Marshal(agentproto.ControlArgs{Path: `C:\x.txt`})
		r, err = h.Dispatch.Send(t.Context(), c.HostID, "files.str_rd", args, 5*time.Second)
		var rr agentproto.ReadResult
		if err != nil || !r.OK || json.Unmarshal(r.Result, &rr) != nil || rr.Content != "fleet" || rr.Path != `C:\x.txt` {
			t.Fatalf("read %s: %+v %v", c.HostID, r, err)
		}
		r, err = h.Dispatch.Send(t.Context(), c.HostID, "process.shell", nil, 5*time.Second)
		var sh agentproto.ShellResult
		if err != nil || !r.OK || json.Unmarshal(r.Result, &sh) != nil || sh.Stdout != "hi\n" || sh.ExitCode != 0 {
			t.Fatalf("shell (a job bench's echo hi) %s: %+v %v", c.HostID, r, err)
		}
		r, err = h.Dispatch.Send(t.Context(), c.HostID, "service.ctl", nil, 5*time.Second)
		if err != nil || r.OK || r.Error == nil || r.Error.Code != agentproto.CodeUnknownOp {
			t.Fatalf("unsupported op %s: %+v %v", c.HostID, r, err)
		}
	}
	eventually.True(t, 30*time.Second, "heartbeats and metrics", func() bool { s := f.Stats(); return s.Heartbeats > 0 && s.Metrics > 0 })

	// Dropped agents come back by themselves.
	for _, c := range creds[:5] {
		h.Dispatch.Disconnect(t.Context(), c.HostID, "test drop")
	}
	eventually.True(t, 30*time.Second, "dropped agents back", func() bool {
		for _, c := range creds[:5] {
			if on, _ := h.Dispatch.Online(t.Context(), c.HostID); !on {
				return false
			}
		}
		return f.Stats().Dials > n
	})
	stop()
	eventually.True(t, 30*time.Second, "the hub to see the fleet gone", func() bool { return h.Dispatch.LocalCount() == 0 })

	// A second run: the install tokens are spent, so the agents renew their
	// tokens by challenge-response with their keys.
	f2, stop2 := run(back[:10])
	defer stop2()
	eventually.True(t, 30*time.Second, "re-enrolled agents welcomed", func() bool { return f2.Stats().AllConnectedMs > 0 })
}
