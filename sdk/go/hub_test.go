package hostgate

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// TestAgainstARealHub drives the SDK's shell sessions and webhook calls
// against a hub with a connected in-process agent.
func TestAgainstARealHub(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_WEBHOOK_ALLOW_PRIVATE", "1"))
	u := h.Register(t)
	var key struct{ Secret string }
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "sdk"}).Want(t, 200, "").JSON(t, &key)
	fin, _ := h.Admin(t, "finance")
	h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
		map[string]any{"tokens": 50, "reason": "sdk test"}).Want(t, 200, "")
	host := h.ConnectAgent(t, u.User.ID, nil)
	c := New(h.URL, key.Secret)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("install command", func(t *testing.T) {
		_, cr, err := c.CreateHost(ctx, "one-liner", 0, true)
		if err != nil || cr == nil {
			t.Fatalf("create: %v", err)
		}
		base := h.URL + "/install/" + cr.InstallToken
		if cr.InstallCommand.PowerShell != "irm "+base+".ps1 | iex" || cr.InstallCommand.Shell != "curl -fsSL "+base+".sh | sh" {
			t.Fatalf("install_command %+v for token %q", cr.InstallCommand, cr.InstallToken)
		}
	})

	t.Run("shell session", func(t *testing.T) {
		s, err := c.OpenShell(ctx, host, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(ctx, "echo s''dk; exit 4\n"); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for {
			o, err := s.Read(ctx, 0, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(o.Data)
			if o.EOF {
				if !strings.Contains(out.String(), "sdk") || o.ExitCode == nil || *o.ExitCode != 4 {
					t.Fatalf("output %q exit %v", out.String(), o.ExitCode)
				}
				break
			}
		}
		if err := s.Resize(ctx, 80, 24); ErrorCode(err) != "terminal_ended" {
			t.Fatalf("resize after exit: %v", err)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("orchestration", func(t *testing.T) {
		game := t.TempDir()
		sleep, err := os.ReadFile("/bin/sleep") // a controller that exits at once
		if err != nil {
			t.Skip("no /bin/sleep")
		}
		if err := os.WriteFile(filepath.Join(game, "GameCenter.exe"), sleep, 0o755); err != nil {
			t.Fatal(err)
		}
		n := 17
		if _, err := c.OrchestrateStart(ctx, host, game, OrchestrateStart{RunGateCount: &n}); ErrorCode(err) != "invalid_body" {
			t.Fatalf("run_gate_count 17: %v, want invalid_body", err)
		}
		n = 3
		res, err := c.OrchestrateStart(ctx, host, game, OrchestrateStart{RunGateCount: &n, Enabled: map[string]bool{"SelGate": false}})
		if err != nil || res.GameDir != game || res.Controller.PID == 0 || len(res.ConfigChanged) != 1 {
			t.Fatalf("start: %+v, %v", res, err)
		}
		zero := 0
		sd, err := c.OrchestrateShutdown(ctx, host, game, OrchestrateShutdown{TimeoutOverrideS: &zero})
		if err != nil || len(sd.Stopped) != 7 || sd.Stopped[6].Section != "DBServer" || sd.Stopped[6].Stage != "not_running" {
			t.Fatalf("shutdown: %+v, %v", sd, err)
		}
	})

	t.Run("l1 config and webhooks", func(t *testing.T) {
		got := make(chan string, 4)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got <- string(b)
		}))
		defer recv.Close()
		res, err := c.PutL1Config(ctx, host, L1Config{BID: 4242, SecretKey: "0123456789abcdef0123456789abcdef", URL: recv.URL})
		if err != nil || res.BID != 4242 || !res.HasSecretKey || res.DeliveryID == "" {
			t.Fatalf("put: %+v %v", res, err)
		}
		select {
		case <-got:
		case <-time.After(20 * time.Second):
			t.Fatal("no webhook")
		}
		var rows []WebhookDelivery
		if !eventually.Within(10*time.Second, func() bool {
			rows, err = c.WebhookDeliveries(ctx, host, 10)
			if err != nil {
				t.Fatal(err)
			}
			return len(rows) == 1 && rows[0].Status == "success"
		}) {
			t.Fatalf("history: %+v", rows)
		}
		if rows[0].ID != res.DeliveryID {
			t.Fatalf("history row %s, want %s", rows[0].ID, res.DeliveryID)
		}
		if _, err := c.RetryWebhookDelivery(ctx, host, rows[0].ID); ErrorCode(err) != "delivery_not_dead" {
			t.Fatalf("retry of a delivered row: %v", err)
		}
	})

	t.Run("user-level deliveries", func(t *testing.T) {
		type delivery struct {
			header http.Header
			body   []byte
		}
		got := make(chan delivery, 4)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got <- delivery{r.Header.Clone(), b}
		}))
		defer recv.Close()
		ws, err := c.RotateWebhookSecret(ctx)
		if err != nil || !strings.HasPrefix(ws.Secret, "whsec_") {
			t.Fatalf("rotate: %+v %v", ws, err)
		}
		off, _, err := c.CreateHost(ctx, "no-agent", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		// A job on a host without an agent: skipped at once, then job.finished.
		job, err := c.CreateJob(ctx, JobRequest{Target: JobTarget{HostIDs: []string{off.ID}},
			Operation: ShellOperation("/bin/sh", "-c true", 10), NotifyURL: recv.URL})
		if err != nil {
			t.Fatal(err)
		}
		var d delivery
		select {
		case d = <-got:
		case <-time.After(20 * time.Second):
			t.Fatal("no job.finished delivery")
		}
		ev, err := VerifyWebhook(d.header, d.body, ws.Secret)
		if err != nil || ev.Event != WebhookEventJobFinished {
			t.Fatalf("verify: %+v %v", ev, err)
		}
		if j, err := ev.Job(); err != nil || j.ID != job.ID {
			t.Fatalf("the event's job %+v %v, want %s", j, err, job.ID)
		}
		var page Page[WebhookDelivery]
		if !eventually.Within(10*time.Second, func() bool {
			page, err = c.ListUserWebhookDeliveries(ctx, 10, 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(page.Items) == 1 && page.Items[0].Status == "success"
		}) {
			t.Fatalf("user deliveries: %+v", page)
		}
		row := page.Items[0]
		if row.ID != ev.DeliveryID || row.EventType != WebhookEventJobFinished || page.Total != 1 || page.Limit != 10 || row.Attempts != 1 {
			t.Fatalf("row %+v of page %+v, want delivery %s", row, page, ev.DeliveryID)
		}
		if p, err := c.ListUserWebhookDeliveries(ctx, 10, 1); err != nil || len(p.Items) != 0 || p.Total != 1 || p.Offset != 1 {
			t.Fatalf("second page: %+v %v", p, err)
		}
		if _, err := c.RetryUserWebhookDelivery(ctx, row.ID); ErrorCode(err) != "delivery_not_dead" {
			t.Fatalf("retry of a delivered row: %v", err)
		}
		if _, err := c.RetryUserWebhookDelivery(ctx, "6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13"); !IsNotFound(err) {
			t.Fatalf("retry of an unknown delivery: %v", err)
		}
	})
}
