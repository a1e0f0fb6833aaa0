package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"hostgate/internal/webhooks"
)

const userSecret = "whsec_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5"

func TestVerifyUserEvent(t *testing.T) {
	now := time.Now()
	body := []byte(`{"id":"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","type":"job.finished","created_at":"2026-01-05T10:00:00Z","data":{"id":"j1","state":"finished"}}`)
	req, err := webhooks.NewUserRequest(context.Background(), "https://hooks.example.com/jobs", webhooks.EventJobFinished,
		"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13", body, userSecret, now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := webhooks.Verify(req.Header, body, userSecret, now, 0)
	if err != nil || got.Type != "job.finished" || string(got.Data) != `{"id":"j1","state":"finished"}` {
		t.Fatalf("Verify: %+v, %v", got, err)
	}
	if req.Header.Get("X-Gateway-Event") != "job.finished" || req.Header.Get("X-Gateway-Delivery") != got.ID ||
		!strings.HasPrefix(req.Header.Get("X-Gateway-Signature"), fmt.Sprintf("t=%d,v1=", now.Unix())) {
		t.Errorf("headers: %v", req.Header)
	}
	cases := []struct {
		name   string
		body   []byte
		secret string
		now    time.Time
		event  string
		want   error
	}{
		{"tampered body", append([]byte(nil), strings.Replace(string(body), "finished\"}", "failed\"}", 1)...), userSecret, now, "", webhooks.ErrSignature},
		{"wrong secret", body, "whsec_other", now, "", webhooks.ErrSignature},
		{"no secret", body, "", now, "", webhooks.ErrSignature},
		{"stale", body, userSecret, now.Add(10 * time.Minute), "", webhooks.ErrStale},
		{"event header differs", body, userSecret, now, "host.l1_config_updated", webhooks.ErrMalformed},
	}
	for _, c := range cases {
		h := req.Header.Clone()
		if c.event != "" {
			h.Set("X-Gateway-Event", c.event)
		}
		if _, err := webhooks.Verify(h, c.body, c.secret, c.now, 0); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := webhooks.NewUserRequest(context.Background(), "https://x.example", "job.finished", "id", body, "", now); err == nil {
		t.Error("NewUserRequest without a secret: no error")
	}
}

// Example_jobFinished is a receiver of job.finished: verify with the
// webhook secret shown by POST /v1/api/webhook-secret/rotate, then act
// once per id.
func Example_jobFinished() {
	seen := map[string]bool{}
	receive := func(r io.Reader, header map[string][]string) int {
		body, _ := io.ReadAll(io.LimitReader(r, 1<<20))
		ev, err := webhooks.Verify(header, body, userSecret, time.Now(), webhooks.Window)
		if err != nil {
			return 401
		}
		if !seen[ev.ID] { // a retry repeats the id: act once
			seen[ev.ID] = true
			fmt.Println("job finished:", string(ev.Data))
		}
		return 200
	}
	body := []byte(`{"id":"7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b24","type":"job.finished","created_at":"2026-01-05T10:00:00Z","data":{"id":"j1","state":"finished"}}`)
	req, _ := webhooks.NewUserRequest(context.Background(), "https://hooks.example.com/jobs", webhooks.EventJobFinished,
		"7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b24", body, userSecret, time.Now())
	fmt.Println(receive(strings.NewReader(string(body)), req.Header))
	fmt.Println(receive(strings.NewReader(string(body)), req.Header))
	fmt.Println(receive(strings.NewReader(`{"forged":true}`), req.Header))
	// Output:
	// job finished: {"id":"j1","state":"finished"}
	// 200
	// 200
	// 401
}

// TestUserSignatureGolden holds docs/webhooks.md section 8's example.
func TestUserSignatureGolden(t *testing.T) {
	body := `{"id":"7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b24","type":"job.finished","created_at":"2026-01-05T10:00:00Z","data":{"id":"j1","state":"finished"}}`
	const want = "341b6b87a5f26fa8257dd1b3cd1c4d0b0c9978c3357202a22cb4dcb8ceb63c73"
	if got := webhooks.Sign(userSecret, 1767607200, []byte(body)); got != want {
		t.Errorf("signature: got %s, want %s", got, want)
	}
}
