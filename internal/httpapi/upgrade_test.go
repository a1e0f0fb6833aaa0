package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

type upgradeView struct {
	Version     string `json:"version"`
	FromVersion string `json:"from_version"`
	State       string `json:"state"`
	Reason      string `json:"reason"`
	RequestedBy string `json:"requested_by"`
}

type pushResult struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Agent   struct {
		HostID           string       `json:"host_id"`
		WSConnected      bool         `json:"ws_connected"`
		InstalledVersion string       `json:"installed_version"`
		Upgrade          *upgradeView `json:"upgrade"`
	} `json:"agent"`
}

// publish publishes a version of body served by srv and returns its name.
func publish(t *testing.T, h *hubtest.Hub, tok, url string, body []byte, sha string, extra map[string]any) string {
	t.Helper()
	ver := fmt.Sprintf("0.%d.0", versionSeq.Add(1))
	if sha == "" {
		sum := sha256.Sum256(body)
		sha = hex.EncodeToString(sum[:])
	}
	req := map[string]any{"version": ver, "exe_url": url, "exe_sha256": sha, "exe_size_bytes": len(body)}
	for k, v := range extra {
		req[k] = v
	}
	h.Client(t).As(tok).Do("POST", "/v1/admin/gateway-versions", req).Want(t, 200, "")
	return ver
}

func hostUpgrade(t *testing.T, h *hubtest.Hub, tok, hostID string) *upgradeView {
	t.Helper()
	var out struct {
		Upgrade *upgradeView `json:"upgrade"`
	}
	h.Client(t).As(tok).Do("GET", "/v1/admin/hosts/"+hostID, nil).Want(t, 200, "").JSON(t, &out)
	return out.Upgrade
}

// TestPushUpgradeRefusals: every refusal comes before anything is
// recorded: no upgrade, no audit row.
func TestPushUpgradeRefusals(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		op, _ := h.Admin(t, "operator")
		user := h.Register(t)
		online := h.ConnectAgent(t, user.User.ID, nil)
		offline, _, err := h.Hosts.Create(t.Context(), user.User.ID, "offline", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		good := publish(t, h, op, "http://127.0.0.1:1/a.exe", []byte("x"), "", nil)
		yanked := publish(t, h, op, "http://127.0.0.1:1/a.exe", []byte("x"), "", nil)
		c.As(op).Do("POST", "/v1/admin/gateway-versions/"+yanked+"/yank", nil).Want(t, 200, "")
		future := publish(t, h, op, "http://127.0.0.1:1/a.exe", []byte("x"), "", map[string]any{"min_supported_protocol": 99})

		push := func(hostID string, body any) *hubtest.Response {
			return c.As(op).Do("POST", "/v1/admin/hosts/"+hostID+"/push-upgrade", body)
		}
		push(online, map[string]string{}).Want(t, 400, "version_required")
		push(online, map[string]string{"version": "9.9.9"}).Want(t, 404, "version_not_found")
		push(online, map[string]string{"version": yanked}).Want(t, 409, "version_yanked")
		push(online, map[string]string{"version": future}).Want(t, 409, "version_unsupported")
		push(offline.ID, map[string]string{"version": good}).Want(t, 409, "host_offline")
		push("00000000-0000-4000-8000-000000000000", map[string]string{"version": good}).Want(t, 404, "not_found")
		push("not-a-uuid", map[string]string{"version": good}).Want(t, 400, "")

		if rows := auditRows(t, h, op, "?action=host.push_upgrade").Total; rows != 0 {
			t.Errorf("refused pushes wrote %d audit rows", rows)
		}
		for _, id := range []string{online, offline.ID} {
			if u := hostUpgrade(t, h, op, id); u != nil {
				t.Errorf("host %s has an upgrade after refusals: %+v", id, u)
			}
		}
		battery.Report(t, "T52", "push of a yanked version → 409 version_yanked; no upgrade recorded, 0 audit rows (%s)", mode)
	})
}

// TestPushUpgradeWrongHashFails: the agent downloads the file, finds its
// SHA-256 wrong and refuses it; the admin sees each step and the reason,
// a second push during the first is refused, and the agent stays up.
func TestPushUpgradeWrongHashFails(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		op, opID := h.Admin(t, "operator")
		user := h.Register(t)
		hostID := h.ConnectAgent(t, user.User.ID, nil)

		release := make(chan struct{})
		exe := []byte("not the executable the version promises")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			_, _ = w.Write(exe)
		}))
		t.Cleanup(srv.Close)
		t.Cleanup(func() {
			select {
			case <-release:
			default:
				close(release)
			}
		})
		ver := publish(t, h, op, srv.URL+"/hostgate-agent", exe, strings.Repeat("0", 64), nil)

		var res pushResult
		c.As(op).Do("POST", "/v1/admin/hosts/"+hostID+"/push-upgrade", map[string]string{"version": ver}).Want(t, 200, "").JSON(t, &res)
		if !res.OK || res.Version != ver || res.Agent.HostID != hostID || !res.Agent.WSConnected || res.Agent.Upgrade == nil {
			t.Fatalf("push result %+v", res)
		}
		if u := res.Agent.Upgrade; u.Version != ver || u.RequestedBy != opID || (u.State != "requested" && u.State != "downloading") {
			t.Fatalf("upgrade right after the push: %+v", u)
		}
		if rows := auditRows(t, h, op, "?action=host.push_upgrade").Total; rows != 1 {
			t.Errorf("audit rows = %d, want 1", rows)
		}

		// The download hangs: the upgrade is in progress and a second push
		// is refused without an audit row.
		c.As(op).Do("POST", "/v1/admin/hosts/"+hostID+"/push-upgrade", map[string]string{"version": ver}).Want(t, 409, "upgrade_in_progress")
		if rows := auditRows(t, h, op, "?action=host.push_upgrade").Total; rows != 1 {
			t.Errorf("audit rows after a refused push = %d, want 1", rows)
		}
		close(release)

		var u *upgradeView
		eventually.Error(t, 20*time.Second, "the upgrade failed", func() error {
			if u = hostUpgrade(t, h, op, hostID); u.State != "failed" {
				return fmt.Errorf("upgrade %+v", u)
			}
			return nil
		})
		if !strings.Contains(u.Reason, "sha256") {
			t.Errorf("reason %q does not name the SHA-256 mismatch", u.Reason)
		}
		var events struct {
			Items []struct{ Kind, Message string }
		}
		c.As(op).Do("GET", "/v1/admin/hosts/"+hostID+"/events", nil).Want(t, 200, "").JSON(t, &events)
		var kinds []string
		for i := len(events.Items) - 1; i >= 0; i-- {
			if strings.HasPrefix(events.Items[i].Kind, "upgrade.") {
				kinds = append(kinds, events.Items[i].Kind)
			}
		}
		if strings.Join(kinds, ",") != "upgrade.requested,upgrade.downloading,upgrade.verifying,upgrade.failed" {
			t.Errorf("upgrade events %v", kinds)
		}
		// The old agent keeps serving.
		if on, err := h.Dispatch.Online(t.Context(), hostID); err != nil || !on {
			t.Fatalf("agent offline after a refused upgrade: %v %v", on, err)
		}
		// A finished upgrade does not block the next push.
		c.As(op).Do("POST", "/v1/admin/hosts/"+hostID+"/push-upgrade", map[string]string{"version": ver}).Want(t, 200, "")
		battery.Report(t, "T52", "wrong SHA-256 pushed to a real agent: upgrade %s (%.50s), events %v, old agent still online (%s)", u.State, u.Reason, kinds, mode)
	})
}
