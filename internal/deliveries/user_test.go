package deliveries_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/deliveries"
	"hostgate/internal/eventually"
	"hostgate/internal/keyring"
	"hostgate/internal/paging"
	"hostgate/internal/webhooks"
)

// userReceiver verifies job.finished events with the user's secret, as
// docs/webhooks.md tells a receiver to.
type userReceiver struct {
	secret  string
	failing atomic.Bool
	mu      sync.Mutex
	got     []webhooks.UserBody
	headers []http.Header
	hits    int
	refused int
	srv     *httptest.Server
}

func newUserReceiver(t *testing.T, secret string) *userReceiver {
	rc := &userReceiver{secret: secret}
	rc.srv = httptest.NewServer(rc)
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *userReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.hits++
	if rc.failing.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	b, err := webhooks.Verify(r.Header, body, rc.secret, time.Now(), webhooks.Window)
	if err != nil {
		rc.refused++
		http.Error(w, "refused", http.StatusUnauthorized)
		return
	}
	rc.got, rc.headers = append(rc.got, b), append(rc.headers, r.Header.Clone())
}

// userEvent queues a job.finished event of e's user to target, signed
// with secret, and returns its id.
func (e *env) userEvent(t *testing.T, target, secret string) string {
	t.Helper()
	data := map[string]any{"id": "job-1", "state": "finished"}
	d, err := deliveries.UserEvent(uuid.NewString(), e.user, webhooks.EventJobFinished, target, data, webhooks.Secret(secret), e.kr, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.Deliveries.EnqueueDelivery(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func (e *env) userGet(t *testing.T, id string) deliveries.Delivery {
	t.Helper()
	items, _, err := e.s.Deliveries.ListUserDeliveries(t.Context(), e.user, paging.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range items {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("user delivery %s not found", id)
	return deliveries.Delivery{}
}

func (e *env) userStatus(t *testing.T, id string, want deliveries.Status) func() error {
	return func() error {
		if d := e.userGet(t, id); d.Status != want {
			return &statusError{d.Status, want}
		}
		return nil
	}
}

type statusError struct{ got, want deliveries.Status }

func (s *statusError) Error() string { return "status " + string(s.got) + ", want " + string(s.want) }

func TestUserEventSignedWithUserSecret(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		const secret = "whsec_test-secret"
		rc := newUserReceiver(t, secret)
		id := e.userEvent(t, rc.srv.URL, secret)
		if n, err := e.worker("i1").RunOnce(t.Context()); n != 1 || err != nil {
			t.Fatalf("RunOnce: %d, %v", n, err)
		}
		d := e.userGet(t, id)
		if d.Status != deliveries.StatusSuccess || d.Attempts != 1 || d.HostID != "" {
			t.Fatalf("after RunOnce: %+v", d)
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if len(rc.got) != 1 || rc.got[0].ID != id || rc.got[0].Type != webhooks.EventJobFinished {
			t.Fatalf("receiver got %+v", rc.got)
		}
		var data map[string]string
		if err := json.Unmarshal(rc.got[0].Data, &data); err != nil || data["id"] != "job-1" {
			t.Errorf("data: %s (%v)", rc.got[0].Data, err)
		}
		h := rc.headers[0]
		if h.Get(webhooks.HeaderEvent) != "job.finished" || h.Get(webhooks.HeaderDelivery) != id ||
			!strings.HasPrefix(h.Get(webhooks.HeaderSignature), "t=") || h.Get("User-Agent") != webhooks.UserAgentA {
			t.Errorf("headers: %v", h)
		}
	})
}

func TestUserEventWrongSecretRefused(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newUserReceiver(t, "whsec_the-receivers")
		id := e.userEvent(t, rc.srv.URL, "whsec_another")
		if _, err := e.worker("i1").RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := e.userGet(t, id); d.Status != deliveries.StatusRetrying || d.HTTPStatus == nil || *d.HTTPStatus != 401 {
			t.Errorf("refused delivery: %+v", d)
		}
	})
}

func TestUserEventRetriesDeadLetterAndManualRetry(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		const secret = "whsec_retry"
		rc := newUserReceiver(t, secret)
		rc.failing.Store(true)
		id := e.userEvent(t, rc.srv.URL, secret)
		w := e.worker("i1")
		start(t, w)
		eventually.Error(t, settle, "dead letter", e.userStatus(t, id, deliveries.StatusDeadLetter))
		if d := e.userGet(t, id); d.Attempts != 5 || d.LastError != "receiver answered 503" {
			t.Errorf("dead letter: %+v", d)
		}
		// A dead user-level row holds nothing back: a host's delivery
		// and another user event still go out.
		rc.failing.Store(false)
		other := e.userEvent(t, rc.srv.URL, secret)
		eventually.Error(t, settle, "the next event", e.userStatus(t, other, deliveries.StatusSuccess))

		svc := deliveries.NewUserService(e.s.Deliveries, w)
		if _, err := svc.RetryUserDelivery(t.Context(), uuid.NewString(), id); !apperr.Is(err, apperr.CodeNotFound) {
			t.Errorf("retry as another user: %v, want not_found", err)
		}
		if _, err := svc.RetryUserDelivery(t.Context(), e.user, other); !apperr.Is(err, deliveries.CodeDeliveryNotDead) {
			t.Errorf("retry of a delivered event: %v, want delivery_not_dead", err)
		}
		if _, err := svc.RetryUserDelivery(t.Context(), e.user, id); err != nil {
			t.Fatal(err)
		}
		eventually.Error(t, settle, "revived", e.userStatus(t, id, deliveries.StatusSuccess))
		page, err := svc.ListUserDeliveries(t.Context(), e.user, paging.Page{Limit: 10})
		if err != nil || page.Total != 2 || page.Items[0].ID != other {
			t.Errorf("history: %+v, %v", page, err)
		}
	})
}

func TestUserWebhookSecrets(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		s := deliveries.NewSecrets(e.s.Deliveries, e.kr)
		if st, err := s.WebhookSecretStatus(t.Context(), e.user); err != nil || st.Configured || st.CreatedAt != nil {
			t.Fatalf("status before rotate: %+v, %v", st, err)
		}
		if _, err := s.WebhookSecret(t.Context(), e.user); !apperr.Is(err, deliveries.CodeWebhookSecretMissing) {
			t.Fatalf("secret before rotate: %v, want webhook_secret_missing", err)
		}
		first, at, err := s.RotateWebhookSecret(t.Context(), e.user)
		if err != nil || !strings.HasPrefix(string(first), "whsec_") || len(first) < 40 {
			t.Fatalf("rotate: %d chars, %v", len(first), err)
		}
		got, err := s.WebhookSecret(t.Context(), e.user)
		if err != nil || got != first {
			t.Fatalf("WebhookSecret: got a different secret (%v)", err)
		}
		st, _ := s.WebhookSecretStatus(t.Context(), e.user)
		if !st.Configured || st.CreatedAt == nil || !st.CreatedAt.Equal(at) {
			t.Errorf("status: %+v, want configured at %v", st, at)
		}
		second, _, _ := s.RotateWebhookSecret(t.Context(), e.user)
		if got, _ := s.WebhookSecret(t.Context(), e.user); second == first || got != second {
			t.Error("rotate did not replace the secret")
		}
		// Sealed at rest: the stored bytes do not hold the secret.
		sealed, _, _ := e.s.Deliveries.UserSecret(t.Context(), e.user)
		if strings.Contains(string(sealed), string(second)) {
			t.Error("the secret is stored in the clear")
		}
	})
}

func TestUserEventRefusesBadInput(t *testing.T) {
	kr := newEnvKeyring(t)
	for _, tc := range []struct{ target, secret string }{{"ftp://x", "s"}, {"/relative", "s"}, {"https://x.example", ""}} {
		if _, err := deliveries.UserEvent(uuid.NewString(), "u", webhooks.EventJobFinished, tc.target, nil, webhooks.Secret(tc.secret), kr, time.Now()); err == nil {
			t.Errorf("UserEvent(%q, secret %q): no error", tc.target, tc.secret)
		}
	}
}

func newEnvKeyring(t *testing.T) *keyring.Keyring {
	kr, err := keyring.New(rand32(), rand32())
	if err != nil {
		t.Fatal(err)
	}
	return kr
}

func TestSecretsEventForTheJobs(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		s := deliveries.NewSecrets(e.s.Deliveries, e.kr)
		if err := s.CheckSecret(t.Context(), e.user); !apperr.Is(err, deliveries.CodeWebhookSecretMissing) {
			t.Fatalf("CheckSecret before rotate: %v", err)
		}
		secret, _, err := s.RotateWebhookSecret(t.Context(), e.user)
		if err != nil || s.CheckSecret(t.Context(), e.user) != nil {
			t.Fatalf("rotate: %v", err)
		}
		rc := newUserReceiver(t, string(secret))
		d, err := s.Event(t.Context(), e.user, webhooks.EventJobFinished, rc.srv.URL, map[string]string{"id": "j"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := e.s.Deliveries.EnqueueDelivery(t.Context(), d); err != nil {
			t.Fatal(err)
		}
		if _, err := e.worker("i1").RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := e.userGet(t, d.ID); got.Status != deliveries.StatusSuccess {
			t.Errorf("delivery: %+v", got)
		}
	})
}
