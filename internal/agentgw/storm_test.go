package agentgw_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

type hostCreds struct {
	HostID           string `json:"host_id"`
	InstallToken     string `json:"install_token"`
	AgentPrivkeySeed string `json:"agent_privkey_seed"`
	AgentPubkey      string `json:"agent_pubkey"`
	APIEndpoint      string `json:"api_endpoint"`
	WSURL            string `json:"ws_url"`
}

// TestReconnectStormIsShedAndRecovers: more agents than the handshake
// limits allow connect at once; some are shed with 503 + Retry-After, and
// every one is connected in the end without help.
func TestReconnectStormIsShedAndRecovers(t *testing.T) {
	const n = 40
	h := hubtest.Start(t, hubtest.Embedded,
		hubtest.WithEnv("HOSTGATE_AGENT_HANDSHAKE_CONCURRENCY", "2"),
		hubtest.WithEnv("HOSTGATE_AGENT_HANDSHAKE_RATE", "10"))
	u := h.Register(t)
	var key struct{ Secret string }
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "storm"}).Want(t, 200, "").JSON(t, &key)
	creds := make([]hostCreds, n)
	for i := range creds {
		var out struct{ Credentials hostCreds }
		h.Client(t).As(key.Secret).Do("POST", "/v1/api/hosts", map[string]any{"name": "storm", "with_credentials": true}).Want(t, 201, "").JSON(t, &out)
		creds[i] = out.Credentials
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var connected atomic.Int64
	for _, c := range creds {
		var once sync.Once
		a, err := agent.New(agent.Config{
			HostID: c.HostID, InstallToken: c.InstallToken, AgentPrivkeySeed: c.AgentPrivkeySeed, AgentPubkey: c.AgentPubkey,
			WSURL: c.WSURL, APIEndpoint: c.APIEndpoint, StateDir: t.TempDir(), L1Listen: agent.L1ListenOff,
			BackoffBase: 100 * time.Millisecond, BackoffCap: time.Second, MetricsOverride: 200 * time.Millisecond,
			OnStatus: func(s agent.Status) {
				if s.Connected {
					once.Do(func() { connected.Add(1) })
				}
			},
		}, hubtest.Logger(t))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _ = a.Run(ctx) })
	}
	t.Cleanup(func() { cancel(); wg.Wait() })

	eventually.Within(60*time.Second, func() bool { return connected.Load() >= n }) // checked below, after the log line
	admitted, shed := h.Admission().Counts()
	t.Logf("%d agents connected; handshakes admitted %d, shed %d", connected.Load(), admitted, shed)
	if connected.Load() != n {
		t.Fatalf("%d of %d agents connected within 60 s", connected.Load(), n)
	}
	if shed == 0 {
		t.Error("no handshake was shed; the limits were not exercised")
	}

	// The admin console sees them live, with history.
	admin, _ := h.Admin(t, "viewer")
	var sum struct {
		OnlineHosts int64 `json:"online_hosts"`
	}
	h.Client(t).As(admin).Do("GET", "/v1/admin/dashboard/summary", nil).Want(t, 200, "").JSON(t, &sum)
	if sum.OnlineHosts != n {
		t.Errorf("online_hosts = %d, want %d", sum.OnlineHosts, n)
	}
	var one struct {
		Host struct {
			PublicIP string `json:"public_ip"`
			OS       string `json:"os"`
		} `json:"host"`
		WSConnected bool `json:"ws_connected"`
	}
	h.Client(t).As(admin).Do("GET", "/v1/admin/hosts/"+creds[0].HostID, nil).Want(t, 200, "").JSON(t, &one)
	if !one.WSConnected || one.Host.PublicIP != "127.0.0.1" || one.Host.OS == "" {
		t.Errorf("admin host = %+v, want connected from 127.0.0.1 with an OS", one)
	}
	var items struct{ Items []json.RawMessage }
	eventually.True(t, 10*time.Second, "the first host's metrics listed", func() bool {
		if err := h.Hosts.FlushMetrics(t.Context()); err != nil { // written in batches
			t.Fatal(err)
		}
		h.Client(t).As(admin).Do("GET", "/v1/admin/hosts/"+creds[0].HostID+"/metrics?limit=5", nil).Want(t, 200, "").JSON(t, &items)
		return len(items.Items) > 0
	})
	eventually.True(t, 10*time.Second, "the first host's enrolment and connection events listed", func() bool { // written in batches too
		if err := h.Hosts.FlushEvents(t.Context()); err != nil {
			t.Fatal(err)
		}
		h.Client(t).As(admin).Do("GET", "/v1/admin/hosts/"+creds[0].HostID+"/events", nil).Want(t, 200, "").JSON(t, &items)
		return len(items.Items) >= 2 // enrolment and connection
	})
	var list struct {
		Total int `json:"total"`
	}
	h.Client(t).As(admin).Do("GET", "/v1/admin/hosts?q="+creds[1].HostID[:8], nil).Want(t, 200, "").JSON(t, &list)
	if list.Total != 1 {
		t.Errorf("admin search by id prefix: total %d, want 1", list.Total)
	}
}
