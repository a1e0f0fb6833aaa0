package httpapi_test

import (
	"fmt"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/store"
)

// TestStatusFollowsTheLink: the moment the hub has a host's agent
// connected, its stored status says online, over every route and in the
// store (not at the next liveness flush, 90 s later): at the first
// connection (pending → online) and at a reconnection after the host went
// offline.
func TestStatusFollowsTheLink(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		id := h.ConnectAgent(t, u.User.ID, nil) // returns once the hub has it connected
		checkOnline(t, h, u.AccessToken, id, "first connection")

		// The hub stops; the host goes offline in the store (as the sweep
		// would after 5 min); the agent reconnects to the restarted hub.
		h = h.RestartWith(t, func() {
			st, err := store.Open(t.Context(), h.Env["HOSTGATE_DATABASE_URL"], h.Env["HOSTGATE_DATA_DIR"], nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			later := time.Now().Add(time.Hour)
			if err := st.Hosts.SweepStatus(t.Context(), later, later); err != nil {
				t.Fatal(err)
			}
			if got, _, _ := st.Hosts.HostByID(t.Context(), id); got.Status != "offline" {
				t.Fatalf("status after the sweep = %s, want offline", got.Status)
			}
		})
		eventually.Error(t, 20*time.Second, "the agent reconnected", connected(t, h, id))
		checkOnline(t, h, u.AccessToken, id, "reconnection")
	})
}

// connected is a check for eventually.Error: nil once h holds host id's
// agent connected.
func connected(t *testing.T, h *hubtest.Hub, id string) func() error {
	return func() error {
		if on, err := h.Dispatch.Online(t.Context(), id); err != nil || !on {
			return fmt.Errorf("host %s: online %v (%v)", id, on, err)
		}
		return nil
	}
}

// checkOnline reads the host at once, from the store and over the user,
// client and admin routes.
func checkOnline(t *testing.T, h *hubtest.Hub, userToken, id, when string) {
	t.Helper()
	got, _, err := h.Store().Hosts.HostByID(t.Context(), id)
	if err != nil || got.Status != "online" {
		t.Errorf("%s: stored status = %q (%v), want online", when, got.Status, err)
	}
	var one struct {
		Host   host `json:"host"`
		Online bool `json:"online"`
	}
	h.Client(t).As(userToken).Do("GET", "/v1/user/hosts/"+id, nil).Want(t, 200, "").JSON(t, &one)
	if one.Host.Status != "online" || !one.Online {
		t.Errorf("%s: GET /v1/user/hosts/{id} = status %q, online %v; want online, true", when, one.Host.Status, one.Online)
	}
	var list struct{ Items []host }
	h.Client(t).As(userToken).Do("GET", "/v1/user/hosts", nil).Want(t, 200, "").JSON(t, &list)
	if len(list.Items) != 1 || list.Items[0].Status != "online" {
		t.Errorf("%s: GET /v1/user/hosts = %+v, want the host online", when, list.Items)
	}
	tok, _ := h.Admin(t, "viewer")
	var adm struct {
		Host        host `json:"host"`
		WSConnected bool `json:"ws_connected"`
	}
	h.Client(t).As(tok).Do("GET", "/v1/admin/hosts/"+id, nil).Want(t, 200, "").JSON(t, &adm)
	if adm.Host.Status != "online" || !adm.WSConnected {
		t.Errorf("%s: GET /v1/admin/hosts/{id} = status %q, ws_connected %v; want online, true", when, adm.Host.Status, adm.WSConnected)
	}
}
