package httpapi_test

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// specReceiver is a webhook receiver written from spec 6.2/6.3 and
// docs/webhooks.md section 4 alone (HMACs by crypto/hmac, not package
// webhooks). It holds one host's secret, verifies each delivery with it,
// refuses what does not verify, deduplicates by delivery id and adopts the
// new secret.
type specReceiver struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	secret string
	fail   bool // answer 500 to everything
	seen   map[string]bool
	got    []verified
	errs   []string
	hits   int
}

// verified is one delivery the receiver accepted.
type verified struct {
	Format     string // "A" or "B", by its headers
	DeliveryID string // uuid, without B's wd_ prefix
	Source     string // A's source; B's changed_by.kind
	ActorID    string // B only
	BID        int64
	URL        string
	NewSecret  string
	BeforeBID  int64 // B only
}

func newSpecReceiver(t *testing.T, secret string) *specReceiver {
	rc := &specReceiver{t: t, secret: secret, seen: map[string]bool{}}
	rc.srv = httptest.NewServer(rc)
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *specReceiver) URL() string { return rc.srv.URL + "/hook" }

func (rc *specReceiver) setFail(f bool) {
	rc.mu.Lock()
	rc.fail = f
	rc.mu.Unlock()
}

func (rc *specReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.hits++
	if rc.fail {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	if rc.seen[r.Header.Get("X-Gateway-Delivery")] {
		w.WriteHeader(http.StatusOK)
		return
	}
	v, err := rc.verify(r.Header, body)
	if err != nil {
		rc.errs = append(rc.errs, err.Error())
		http.Error(w, "refused", http.StatusUnauthorized)
		return
	}
	rc.seen[r.Header.Get("X-Gateway-Delivery")] = true
	rc.secret = v.NewSecret
	rc.got = append(rc.got, v)
	w.WriteHeader(http.StatusOK)
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return m.Sum(nil)
}

func fresh(ts string) error {
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q", ts)
	}
	if d := time.Now().Unix() - t; d > 300 || d < -300 {
		return fmt.Errorf("timestamp %d outside the 300 s window", t)
	}
	return nil
}

// verify checks one delivery against the secret held now.
func (rc *specReceiver) verify(h http.Header, body []byte) (verified, error) {
	if h.Get("Content-Type") != "application/json" {
		return verified{}, fmt.Errorf("content type %q", h.Get("Content-Type"))
	}
	if h.Get("X-Gateway-Timestamp") != "" {
		return rc.verifyB(h, body)
	}
	return rc.verifyA(h, body)
}

func (rc *specReceiver) verifyA(h http.Header, body []byte) (verified, error) {
	if h.Get("User-Agent") != "gateway-webhook/1.0" || h.Get("X-Gateway-Event") != "host.l1_config_updated" {
		return verified{}, fmt.Errorf("A headers: %v", h)
	}
	var ts, sig string
	for p := range strings.SplitSeq(h.Get("X-Gateway-Signature"), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	got, err := hex.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(rc.secret, ts, body)) {
		return verified{}, fmt.Errorf("A signature does not verify with the held secret")
	}
	if err := fresh(ts); err != nil {
		return verified{}, err
	}
	var b struct {
		Event, DeliveryID, UserID, HostID, Source string
		OccurredAt                                time.Time
		Data                                      struct {
			BID       int64  `json:"bid"`
			SecretKey string `json:"secret_key"`
			URL       string `json:"url"`
		}
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return verified{}, err
	}
	var raw map[string]any
	_ = json.Unmarshal(body, &raw)
	if b.Event != "host.l1_config_updated" || raw["delivery_id"] != h.Get("X-Gateway-Delivery") || raw["user_id"] == nil ||
		raw["host_id"] == nil || raw["occurred_at"] == nil || len(b.Data.SecretKey) != 32 || b.Data.URL != rc.URL() {
		return verified{}, fmt.Errorf("A body %s", body)
	}
	return verified{Format: "A", DeliveryID: h.Get("X-Gateway-Delivery"), Source: raw["source"].(string),
		BID: b.Data.BID, URL: b.Data.URL, NewSecret: b.Data.SecretKey}, nil
}

func (rc *specReceiver) verifyB(h http.Header, body []byte) (verified, error) {
	if h.Get("User-Agent") != "gateway-new-webhook/1.0" || h.Get("X-Gateway-Event") != "host.l1_config.updated" ||
		!strings.HasPrefix(h.Get("X-Gateway-Delivery"), "wd_") {
		return verified{}, fmt.Errorf("B headers: %v", h)
	}
	ts := h.Get("X-Gateway-Timestamp")
	sig, ok := strings.CutPrefix(h.Get("X-Gateway-Signature"), "sha256=")
	got, err := hex.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, mac(rc.secret, ts, body)) {
		return verified{}, fmt.Errorf("B signature does not verify with the held secret")
	}
	if err := fresh(ts); err != nil {
		return verified{}, err
	}
	var b struct {
		Event      string                        `json:"event"`
		DeliveryID string                        `json:"delivery_id"`
		Timestamp  string                        `json:"timestamp"`
		HostID     string                        `json:"host_id"`
		HostName   string                        `json:"host_name"`
		ChangedBy  struct{ Kind, ID, IP string } `json:"changed_by"`
		Before     map[string]any                `json:"before"`
		After      struct {
			BID       int64  `json:"bid"`
			SecretKey string `json:"secret_key"`
			ReportURL string `json:"report_url"`
		}
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return verified{}, err
	}
	_, hasOldSecret := b.Before["secret_key"]
	if b.Event != "host.l1_config.updated" || b.DeliveryID != h.Get("X-Gateway-Delivery") || b.HostName == "" ||
		b.Timestamp == "" || hasOldSecret || b.ChangedBy.IP == "" || b.After.ReportURL != rc.URL() || len(b.After.SecretKey) != 32 {
		return verified{}, fmt.Errorf("B body %s", body)
	}
	bid, _ := b.Before["bid"].(float64)
	return verified{Format: "B", DeliveryID: strings.TrimPrefix(b.DeliveryID, "wd_"), Source: b.ChangedBy.Kind,
		ActorID: b.ChangedBy.ID, BID: b.After.BID, URL: b.After.ReportURL, NewSecret: b.After.SecretKey, BeforeBID: int64(bid)}, nil
}

// webhookWait is how long a change may take to reach the receiver, or a
// delivery its recorded state.
const webhookWait = 30 * time.Second

// accepted is a check for eventually.Error: nil once the receiver has
// accepted n deliveries, else how many it has and what it refused.
func (rc *specReceiver) accepted(n int) func() error {
	return func() error {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if len(rc.got) < n {
			return fmt.Errorf("receiver accepted %d of %d deliveries; refusals: %v", len(rc.got), n, rc.errs)
		}
		return nil
	}
}

// verified returns the deliveries the receiver has accepted, in order.
func (rc *specReceiver) verified() []verified {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]verified(nil), rc.got...)
}

func newSecret() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// l1Fixture is a user with an API key, some balance, and a host with an
// enrolled agent token.
type l1Fixture struct {
	h          *hubtest.Hub
	user       hubtest.Auth
	key        string
	host       host
	creds      creds
	agentToken string
}

func newL1Fixture(t *testing.T, h *hubtest.Hub, balance float64) l1Fixture {
	t.Helper()
	f := l1Fixture{h: h, user: h.Register(t)}
	f.key = apiKey(t, h, f.user.AccessToken)
	f.host, f.creds = createWithCreds(t, h, f.key)
	var tok agentproto.TokenResponse
	online(t, h, f.host.ID, f.creds.InstallToken).Want(t, 200, "").JSON(t, &tok)
	f.agentToken = tok.AgentToken
	if balance > 0 {
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+f.user.User.ID+"/balance/adjust",
			map[string]any{"tokens": balance, "reason": "l1 test"}).Want(t, 200, "")
	}
	return f
}

type l1Resp struct {
	BID           int64  `json:"bid"`
	HasSecretKey  bool   `json:"has_secret_key"`
	URL           string `json:"url"`
	AgentOnline   bool   `json:"agent_online"`
	DeliveryID    string `json:"delivery_id"`
	WebhookFormat string `json:"webhook_format"`
	OK            bool   `json:"ok"`
}

// put writes an L1 configuration through source ("web", "client_api" or
// "agent") and returns the answer.
func (f l1Fixture) put(t *testing.T, source string, body map[string]any) *hubtest.Response {
	t.Helper()
	c := f.h.Client(t)
	switch source {
	case "web":
		return c.As(f.user.AccessToken).Do("PUT", "/v1/user/hosts/"+f.host.ID+"/l1-config", body)
	case "client_api":
		return c.As(f.key).Do("PUT", "/v1/api/hosts/"+f.host.ID+"/l1-config", body)
	case "agent":
		return c.As(f.agentToken).Do("POST", agentproto.PathSettings, body)
	}
	t.Fatalf("unknown source %s", source)
	return nil
}

type deliveryRow struct {
	ID         string     `json:"id"`
	EventType  string     `json:"event_type"`
	Format     string     `json:"format"`
	Status     string     `json:"status"`
	Attempts   int        `json:"attempts"`
	TargetURL  string     `json:"target_url"`
	HTTPStatus *int       `json:"http_status"`
	CreatedAt  time.Time  `json:"created_at"`
	Delivered  *time.Time `json:"delivered_at"`
	LastError  string     `json:"last_error"`
}

func (f l1Fixture) history(t *testing.T, cred string) []deliveryRow {
	t.Helper()
	var out struct{ Items []deliveryRow }
	f.h.Client(t).As(cred).Do("GET", "/v1/user/hosts/"+f.host.ID+"/webhook-deliveries?limit=200", nil).Want(t, 200, "").JSON(t, &out)
	return out.Items
}

// row is a check for eventually.Error: nil once the host's delivery id
// is listed and satisfies ok, with the row in *into; else the row as it
// is, or the whole history if id is not in it.
func (f l1Fixture) row(t *testing.T, id string, into *deliveryRow, ok func(deliveryRow) bool) func() error {
	return func() error {
		rows := f.history(t, f.user.AccessToken)
		for _, r := range rows {
			if r.ID == id {
				if !ok(r) {
					return fmt.Errorf("delivery %s not in the expected state: %+v", id, r)
				}
				*into = r
				return nil
			}
		}
		return fmt.Errorf("delivery %s not listed: %+v", id, rows)
	}
}

// listed is a row condition that only needs the row to be listed.
func listed(deliveryRow) bool { return true }

func allowPrivate() hubtest.Option { return hubtest.WithEnv("HOSTGATE_WEBHOOK_ALLOW_PRIVATE", "1") }

// TestL1ConfigWebhooksFromAllSources: every source, in both formats,
// produces a delivery the spec receiver verifies with the secret it holds;
// the API route charges control.update_l1; the history shows them all to
// a user token and to an API key.
func TestL1ConfigWebhooksFromAllSources(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode, allowPrivate())
		f := newL1Fixture(t, h, 10)
		rc := newSpecReceiver(t, f.creds.SecretKey)
		type change struct{ source, format string }
		changes := []change{{"web", "A"}, {"client_api", "A"}, {"agent", "A"}, {"web", "B"}, {"client_api", "B"}, {"agent", "B"}}
		var ids []string
		for i, c := range changes {
			bid := f.host.BID + int64(i) + 1
			var out l1Resp
			f.put(t, c.source, map[string]any{"bid": bid, "secret_key": newSecret(), "url": rc.URL(), "webhook_format": c.format}).
				Want(t, 200, "").JSON(t, &out)
			if out.DeliveryID == "" || (c.source != "agent" && (out.BID != bid || !out.HasSecretKey || out.URL != rc.URL() || out.WebhookFormat != c.format)) ||
				(c.source == "agent" && !out.OK) {
				t.Fatalf("%s answer %+v", c.source, out)
			}
			ids = append(ids, out.DeliveryID)
			// One at a time: each verifies with the secret the previous one taught.
			eventually.Error(t, webhookWait, "the change delivered", rc.accepted(i+1))
			got := rc.verified()[i]
			wantKind := map[string]string{"web": "user", "client_api": "api_key", "agent": "agent"}[c.source]
			if c.format == "A" {
				wantKind = c.source
			}
			if got.Format != c.format || got.DeliveryID != out.DeliveryID || got.Source != wantKind || got.BID != bid {
				t.Fatalf("change %d (%s/%s): receiver got %+v", i, c.source, c.format, got)
			}
			if c.format == "B" && got.BeforeBID != bid-1 {
				t.Errorf("change %d: before.bid %d, want %d", i, got.BeforeBID, bid-1)
			}
		}
		// rotate-secret changes the secret: it is reported like any change
		// (here in format B), so the receiver's chain stays whole.
		var rotU struct {
			Credentials creds `json:"credentials"`
		}
		h.Client(t).As(f.user.AccessToken).Do("POST", "/v1/user/hosts/"+f.host.ID+"/rotate-secret", nil).Want(t, 200, "").JSON(t, &rotU)
		eventually.Error(t, webhookWait, "user rotate-secret delivered", rc.accepted(7))
		if got := rc.verified()[6]; got.Source != "user" || got.NewSecret != rotU.Credentials.SecretKey || got.BID != f.host.BID+6 {
			t.Fatalf("user rotate-secret delivered %+v", got)
		}
		var rotK creds
		h.Client(t).As(f.key).Do("POST", "/v1/api/hosts/"+f.host.ID+"/rotate-secret", nil).Want(t, 200, "").JSON(t, &rotK)
		eventually.Error(t, webhookWait, "API rotate-secret delivered", rc.accepted(8))
		if got := rc.verified()[7]; got.Source != "api_key" || got.NewSecret != rotK.SecretKey {
			t.Fatalf("API rotate-secret delivered %+v", got)
		}
		for range 2 {
			ids = append(ids, rc.verified()[len(ids)].DeliveryID)
		}
		changes = append(changes, change{"web", "B"}, change{"client_api", "B"})
		if b := balanceOf(t, h, f.user.AccessToken); b != 8 {
			t.Errorf("balance %v after two API writes, want 8 (control.update_l1 = 1 each)", b)
		}
		var hv struct {
			Host struct {
				BID           int64  `json:"bid"`
				ReportURL     string `json:"report_url"`
				WebhookFormat string `json:"webhook_format"`
			} `json:"host"`
		}
		h.Client(t).As(f.user.AccessToken).Do("GET", "/v1/user/hosts/"+f.host.ID, nil).Want(t, 200, "").JSON(t, &hv)
		if hv.Host.BID != f.host.BID+6 || hv.Host.ReportURL != rc.URL() || hv.Host.WebhookFormat != "B" {
			t.Errorf("host after the writes: %+v", hv.Host)
		}
		// The receiver has seen every delivery; the worker records each
		// outcome just after the receiver answers, so wait for that.
		for _, id := range ids {
			var r deliveryRow
			eventually.Error(t, webhookWait, "the outcome recorded", f.row(t, id, &r, func(r deliveryRow) bool { return r.Status != "pending" && r.Status != "retrying" }))
		}
		for _, cred := range []string{f.user.AccessToken, f.key} {
			rows := f.history(t, cred)
			if len(rows) != len(changes) {
				t.Fatalf("history has %d rows, want %d", len(rows), len(changes))
			}
			for i, r := range rows { // newest first
				want := ids[len(ids)-1-i]
				if r.ID != want || r.Status != "success" || r.Attempts != 1 || r.HTTPStatus == nil || *r.HTTPStatus != 200 ||
					r.Delivered == nil || r.TargetURL != rc.URL() {
					t.Errorf("row %d: %+v, want success of %s", i, r, want)
				}
			}
		}
		// An API key opens only the history routes under /v1/user.
		h.Client(t).As(f.key).Do("GET", "/v1/user/hosts", nil).Want(t, 401, "")
	})
}

// TestL1ConfigDeliveriesInOrderAfterFailures: three quick changes while the
// receiver fails; once it recovers, it gets them in order and verifies each
// with the secret it holds.
func TestL1ConfigDeliveriesInOrderAfterFailures(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode, allowPrivate(), hubtest.WithEnv("HOSTGATE_WEBHOOK_SCHEDULE_SCALE", "0.01"))
		f := newL1Fixture(t, h, 10)
		rc := newSpecReceiver(t, f.creds.SecretKey)
		rc.setFail(true)
		var ids []string
		for i, src := range []string{"web", "client_api", "agent"} {
			var out l1Resp
			f.put(t, src, map[string]any{"bid": f.host.BID + int64(i) + 1, "secret_key": newSecret(), "url": rc.URL()}).
				Want(t, 200, "").JSON(t, &out)
			ids = append(ids, out.DeliveryID)
		}
		var first deliveryRow
		eventually.Error(t, webhookWait, "a second attempt at the first delivery", f.row(t, ids[0], &first, func(r deliveryRow) bool { return r.Attempts >= 2 }))
		if first.Status != "retrying" || first.HTTPStatus == nil || *first.HTTPStatus != 500 || first.LastError == "" {
			t.Fatalf("first delivery while failing: %+v", first)
		}
		for _, id := range ids[1:] {
			var r deliveryRow
			eventually.Error(t, webhookWait, "a later delivery listed", f.row(t, id, &r, listed))
			if r.Status != "pending" || r.Attempts != 0 {
				t.Fatalf("a later delivery went out before the first: %+v", r)
			}
		}
		rc.setFail(false)
		eventually.Error(t, webhookWait, "the three deliveries", rc.accepted(3))
		got := rc.verified()
		for i, g := range got {
			if g.DeliveryID != ids[i] {
				t.Fatalf("delivery %d is %s, want %s (order)", i, g.DeliveryID, ids[i])
			}
		}
		rc.mu.Lock()
		errs := rc.errs
		rc.mu.Unlock()
		if len(errs) != 0 {
			t.Errorf("receiver refused deliveries: %v", errs)
		}
	})
}

// TestWebhookDeadLetterAndManualRetry: with the test-only scale, a delivery
// the receiver keeps refusing dies after 5 attempts; a manual retry (user
// token or API key) sends it once more; retrying a live one is refused.
func TestWebhookDeadLetterAndManualRetry(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode, allowPrivate(), hubtest.WithEnv("HOSTGATE_WEBHOOK_SCHEDULE_SCALE", "0.0001"))
		f := newL1Fixture(t, h, 0)
		rc := newSpecReceiver(t, f.creds.SecretKey)
		rc.setFail(true)
		var out l1Resp
		f.put(t, "web", map[string]any{"bid": 7, "secret_key": newSecret(), "url": rc.URL(), "webhook_format": "B"}).
			Want(t, 200, "").JSON(t, &out)
		var dead deliveryRow
		eventually.Error(t, webhookWait, "dead letter", f.row(t, out.DeliveryID, &dead, func(r deliveryRow) bool { return r.Status == "dead_letter" }))
		if dead.Attempts != 5 {
			t.Fatalf("dead after %d attempts, want 5", dead.Attempts)
		}
		retry := "/v1/user/hosts/" + f.host.ID + "/webhook-deliveries/" + out.DeliveryID + "/retry"
		rc.setFail(false)
		var row deliveryRow
		h.Client(t).As(f.key).Do("POST", retry, nil).Want(t, 200, "").JSON(t, &row)
		if row.Status != "retrying" || row.Attempts != 5 {
			t.Fatalf("retried row: %+v", row)
		}
		eventually.Error(t, webhookWait, "the retried delivery", rc.accepted(1))
		var done deliveryRow
		eventually.Error(t, webhookWait, "success after the manual retry", f.row(t, out.DeliveryID, &done, func(r deliveryRow) bool { return r.Status == "success" }))
		if done.Attempts != 6 {
			t.Errorf("attempts %d after the manual retry, want 6", done.Attempts)
		}
		h.Client(t).As(f.user.AccessToken).Do("POST", retry, nil).Want(t, 409, "delivery_not_dead")
		h.Client(t).As(f.user.AccessToken).Do("POST", "/v1/user/hosts/"+f.host.ID+
			"/webhook-deliveries/00000000-0000-4000-8000-000000000000/retry", nil).Want(t, 404, "not_found")
		// An empty URL clears the report URL: the row is history only.
		f.put(t, "web", map[string]any{"bid": 8, "secret_key": newSecret(), "url": ""}).Want(t, 200, "").JSON(t, &out)
		var r deliveryRow
		eventually.Error(t, webhookWait, "the change listed", f.row(t, out.DeliveryID, &r, listed))
		if r.Status != "skipped_no_url" {
			t.Errorf("change without url: %+v", r)
		}
	})
}

// TestL1ConfigValidation: bad input is refused with its code, changes
// nothing, queues nothing and costs nothing.
func TestL1ConfigValidation(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode) // private targets refused
		f := newL1Fixture(t, h, 5)
		good := func(change func(map[string]any)) map[string]any {
			b := map[string]any{"bid": 42, "secret_key": newSecret(), "url": "https://hooks.example.com/l1"}
			change(b)
			return b
		}
		cases := []struct {
			name string
			body map[string]any
			code string
		}{
			{"bid zero", good(func(b map[string]any) { b["bid"] = 0 }), "invalid_bid"},
			{"bid negative", good(func(b map[string]any) { b["bid"] = -3 }), "invalid_bid"},
			{"bid 2^53", good(func(b map[string]any) { b["bid"] = int64(1) << 53 }), "invalid_bid"},
			{"secret short", good(func(b map[string]any) { b["secret_key"] = strings.Repeat("a", 31) }), "invalid_secret_key"},
			{"secret long", good(func(b map[string]any) { b["secret_key"] = strings.Repeat("a", 33) }), "invalid_secret_key"},
			{"secret not hex", good(func(b map[string]any) { b["secret_key"] = strings.Repeat("g", 32) }), "invalid_secret_key"},
			{"url scheme", good(func(b map[string]any) { b["url"] = "ftp://example.com/x" }), "invalid_url"},
			{"url relative", good(func(b map[string]any) { b["url"] = "/hook" }), "invalid_url"},
			{"url too long", good(func(b map[string]any) { b["url"] = "https://example.com/" + strings.Repeat("a", 2030) }), "invalid_url"},
			{"url loopback", good(func(b map[string]any) { b["url"] = "http://127.0.0.1:9/x" }), "url_not_allowed"},
			{"url localhost", good(func(b map[string]any) { b["url"] = "http://localhost/x" }), "url_not_allowed"},
			{"url private", good(func(b map[string]any) { b["url"] = "https://10.1.2.3/x" }), "url_not_allowed"},
			{"url link-local", good(func(b map[string]any) { b["url"] = "http://169.254.169.254/latest" }), "url_not_allowed"},
			{"url v6 loopback", good(func(b map[string]any) { b["url"] = "http://[::1]/x" }), "url_not_allowed"},
			{"url nat64 loopback", good(func(b map[string]any) { b["url"] = "http://[64:ff9b::7f00:1]/x" }), "url_not_allowed"},
			{"url nat64 private", good(func(b map[string]any) { b["url"] = "http://[64:ff9b::a00:1]/x" }), "url_not_allowed"},
			{"url nat64 local-use", good(func(b map[string]any) { b["url"] = "http://[64:ff9b:1::808:808]/x" }), "url_not_allowed"},
			{"url v4-compatible loopback", good(func(b map[string]any) { b["url"] = "http://[::127.0.0.1]/x" }), "url_not_allowed"},
			{"url v4-compatible private", good(func(b map[string]any) { b["url"] = "http://[::10.0.0.1]/x" }), "url_not_allowed"},
			{"url v4-mapped loopback", good(func(b map[string]any) { b["url"] = "http://[::ffff:127.0.0.1]/x" }), "url_not_allowed"},
			{"url v4-translated loopback", good(func(b map[string]any) { b["url"] = "http://[::ffff:0:127.0.0.1]/x" }), "url_not_allowed"},
			{"url 6to4 loopback", good(func(b map[string]any) { b["url"] = "http://[2002:7f00:1::]/x" }), "url_not_allowed"},
			{"url 6to4 private", good(func(b map[string]any) { b["url"] = "http://[2002:a00:1::1]/x" }), "url_not_allowed"},
			{"url teredo private client", good(func(b map[string]any) { b["url"] = "http://[2001:0:808:808:8000:ffff:f5ff:fffe]/x" }), "url_not_allowed"},
			{"url shared space", good(func(b map[string]any) { b["url"] = "http://100.64.0.1/x" }), "url_not_allowed"},
			{"format", good(func(b map[string]any) { b["webhook_format"] = "C" }), "invalid_webhook_format"},
		}
		for _, c := range cases {
			for _, src := range []string{"web", "client_api", "agent"} {
				if r := f.put(t, src, c.body); r.Status != 400 || r.Code() != c.code {
					t.Errorf("%s via %s: %d %s, want 400 %s", c.name, src, r.Status, r.Body, c.code)
				}
			}
		}
		// A bid another of the user's hosts has: 409, whatever the entry.
		other, _ := createWithCreds(t, h, f.key)
		for _, src := range []string{"web", "client_api", "agent"} {
			f.put(t, src, good(func(b map[string]any) { b["bid"] = other.BID })).Want(t, 409, "bid_collision")
		}
		var hv struct{ Host host }
		h.Client(t).As(f.user.AccessToken).Do("GET", "/v1/user/hosts/"+f.host.ID, nil).Want(t, 200, "").JSON(t, &hv)
		if hv.Host.BID != f.host.BID {
			t.Errorf("bid changed to %d by refused writes", hv.Host.BID)
		}
		if rows := f.history(t, f.user.AccessToken); len(rows) != 0 {
			t.Errorf("refused writes queued %d deliveries", len(rows))
		}
		// Input errors are found before the charge; a bid clash only in the
		// write, after it (spec 8, charging rule 1: no refund).
		if b := balanceOf(t, h, f.user.AccessToken); b != 4 {
			t.Errorf("refused API writes cost %v tokens, want 1 (the bid clash)", 5-b)
		}
	})
}

// TestL1ConfigChargeAndTenants: the API write costs control.update_l1 and
// is refused without balance, queueing nothing; another user's host is
// not_found on every new route, for user tokens and API keys alike.
func TestL1ConfigChargeAndTenants(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		a, b := newL1Fixture(t, h, 0), newL1Fixture(t, h, 0)
		body := map[string]any{"bid": 99, "secret_key": newSecret(), "url": "https://hooks.example.com/l1"}
		a.put(t, "client_api", body).Want(t, 402, "insufficient_balance")
		if rows := a.history(t, a.key); len(rows) != 0 {
			t.Fatalf("unpaid write queued %d deliveries", len(rows))
		}
		paths := []struct{ method, path string }{
			{"PUT", "/v1/user/hosts/%s/l1-config"},
			{"GET", "/v1/user/hosts/%s/webhook-deliveries"},
			{"POST", "/v1/user/hosts/%s/webhook-deliveries/00000000-0000-4000-8000-000000000000/retry"},
		}
		for _, cred := range []string{a.user.AccessToken, a.key} {
			for _, p := range paths {
				if cred == a.key && p.method == "PUT" {
					p.path = "/v1/api/hosts/%s/l1-config"
				}
				var send any
				if p.method == "PUT" {
					send = body
				}
				h.Client(t).As(cred).Do(p.method, fmt.Sprintf(p.path, b.host.ID), send).Want(t, 404, "not_found")
			}
		}
		if rows := b.history(t, b.user.AccessToken); len(rows) != 0 {
			t.Errorf("B's host got %d deliveries from A", len(rows))
		}
	})
}

// TestL1ConfigAgentOnline: with the agent connected, the answer says so,
// and the agent gets SettingsUpdate: it saves the new settings, reloads
// in-process and comes back.
func TestL1ConfigAgentOnline(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	user := h.Register(t)
	var (
		stateDir string
		reloads  atomic.Int64
	)
	hostID := h.ConnectAgent(t, user.User.ID, func(c *agent.Config) {
		stateDir = c.StateDir
		c.OnStatus = func(st agent.Status) { reloads.Store(int64(st.Reloads)) }
	})
	secret := newSecret()
	var out l1Resp
	h.Client(t).As(user.AccessToken).Do("PUT", "/v1/user/hosts/"+hostID+"/l1-config",
		map[string]any{"bid": 4242, "secret_key": secret, "url": "https://hooks.example.com/l1"}).Want(t, 200, "").JSON(t, &out)
	if !out.AgentOnline || out.BID != 4242 || out.DeliveryID == "" {
		t.Fatalf("answer %+v, want agent_online", out)
	}
	eventually.Error(t, 20*time.Second, "the agent applies the settings", func() error {
		b, _ := os.ReadFile(filepath.Join(stateDir, "settings.json"))
		on, _ := h.Dispatch.Online(t.Context(), hostID)
		if reloads.Load() >= 1 && on && strings.Contains(string(b), secret) && strings.Contains(string(b), "4242") {
			return nil
		}
		return fmt.Errorf("reloads %d, online %v, settings.json %q", reloads.Load(), on, b)
	})
}

// TestAgentWithStaleSettingsIsUpdatedAtConnect: an agent that says hello
// with settings other than the host's (a change it missed while offline)
// is sent the host's settings and applies them.
func TestAgentWithStaleSettingsIsUpdatedAtConnect(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	user := h.Register(t)
	var (
		stateDir, secret  string
		bid               int64
		reloads, sessions atomic.Int64
	)
	hostID := h.ConnectAgent(t, user.User.ID, func(c *agent.Config) {
		stateDir, secret, bid = c.StateDir, c.SecretKey, c.BID
		c.BID++ // stale: the host's bid is c.BID
		c.OnStatus = func(st agent.Status) { reloads.Store(int64(st.Reloads)); sessions.Store(int64(st.Sessions)) }
	})
	eventually.Error(t, 20*time.Second, "the stale agent updated", func() error {
		b, _ := os.ReadFile(filepath.Join(stateDir, "settings.json"))
		on, _ := h.Dispatch.Online(t.Context(), hostID)
		if reloads.Load() >= 1 && on && strings.Contains(string(b), secret) && strings.Contains(string(b), strconv.FormatInt(bid, 10)) {
			return nil
		}
		return fmt.Errorf("reloads %d, online %v, settings.json %q", reloads.Load(), on, b)
	})
	// Once current, reconnecting sends nothing more: the reload's
	// reconnection is welcomed, and no second update follows.
	eventually.True(t, 20*time.Second, "the reconnection after the reload", func() bool { return sessions.Load() >= 2 })
	time.Sleep(300 * time.Millisecond) // an observation window: the check at connect sends from a goroutine, with no event to wait for
	if n := reloads.Load(); n != 1 {
		t.Errorf("reloads = %d, want exactly 1", n)
	}
}

// TestL1ConfigAcceptsPublicEmbeddedIPv4: an IPv6 address is judged by the
// IPv4 address it embeds, so a public one (8.8.8.8 through the well-known
// NAT64 prefix, or mapped) is accepted like 8.8.8.8 itself.
func TestL1ConfigAcceptsPublicEmbeddedIPv4(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode) // private targets refused
		f := newL1Fixture(t, h, 0)
		for i, u := range []string{"http://[64:ff9b::808:808]/x", "http://[::ffff:8.8.8.8]/x", "http://[2002:808:808::1]/x"} {
			f.put(t, "web", map[string]any{"bid": 4200 + i, "secret_key": newSecret(), "url": u}).Want(t, 200, "")
		}
	})
}
