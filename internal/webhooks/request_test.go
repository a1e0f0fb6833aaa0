package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	oldSecret = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"
	newSecret = "8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b"
)

// sentAt is the attempt time of the golden requests (30 s after the change).
var sentAt = time.Unix(1767268830, 0)

func testEvent() Event {
	return Event{
		DeliveryID: "6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13",
		UserID:     "0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d",
		HostID:     "9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d",
		HostName:   "web-1",
		Source:     SourceWeb,
		OccurredAt: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC),
		ChangedBy:  Actor{Kind: ActorUser, ID: "0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d", IP: "203.0.113.7"},
		Before:     Before{BID: 4821936602771, ReportURL: "https://old.example.com/l1"},
		After:      After{BID: 4821936602771, SecretKey: newSecret, ReportURL: "https://hooks.example.com/l1"},
		TargetURL:  "https://hooks.example.com/l1",
		SigningKey: oldSecret,
	}
}

// The golden deliveries of docs/webhooks.md; their signatures were also
// checked with the page's Python receiver.
const (
	goldenBodyA = `{"event":"host.l1_config_updated","delivery_id":"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","user_id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d","source":"web","occurred_at":"2026-01-01T12:00:00Z","data":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","url":"https://hooks.example.com/l1"}}`
	goldenSigA  = "t=1767268830,v1=8bf413fc057d2efee63d86bfabd4cea8fcd421bdd496402b4dad829bb928ace5"
	goldenBodyB = `{"event":"host.l1_config.updated","delivery_id":"wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","timestamp":"2026-01-01T12:00:00Z","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d","host_name":"web-1","changed_by":{"kind":"user","id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","ip":"203.0.113.7"},"before":{"bid":4821936602771,"report_url":"https://old.example.com/l1"},"after":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","report_url":"https://hooks.example.com/l1"}}`
	goldenSigB  = "sha256=f8245af2a924668a83831d3dfab3a591468fb1ee83cbb10afafca23a3fac1bbf"
)

func mustRequest(t *testing.T, f Format, e Event, now time.Time) (http.Header, []byte) {
	t.Helper()
	req, err := NewRequest(context.Background(), f, e, now)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != http.MethodPost || req.URL.String() != e.TargetURL {
		t.Fatalf("request is %s %s, want POST %s", req.Method, req.URL, e.TargetURL)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	if req.ContentLength != int64(len(body)) || req.GetBody == nil {
		t.Fatalf("ContentLength %d for %d bytes, GetBody set %v", req.ContentLength, len(body), req.GetBody != nil)
	}
	return req.Header, body
}

func TestGoldenRequests(t *testing.T) {
	for _, tc := range []struct {
		format Format
		header http.Header
		body   string
	}{
		{FormatA, http.Header{
			"Content-Type":        {"application/json"},
			"X-Gateway-Event":     {"host.l1_config_updated"},
			"X-Gateway-Delivery":  {"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13"},
			"X-Gateway-Signature": {goldenSigA},
			"User-Agent":          {"gateway-webhook/1.0"},
		}, goldenBodyA},
		{FormatB, http.Header{
			"Content-Type":        {"application/json"},
			"User-Agent":          {"gateway-new-webhook/1.0"},
			"X-Gateway-Event":     {"host.l1_config.updated"},
			"X-Gateway-Delivery":  {"wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13"},
			"X-Gateway-Timestamp": {"1767268830"},
			"X-Gateway-Signature": {goldenSigB},
		}, goldenBodyB},
	} {
		h, body := mustRequest(t, tc.format, testEvent(), sentAt)
		if !maps.EqualFunc(h, tc.header, slices.Equal) {
			t.Errorf("format %s headers:\n got %v\nwant %v", tc.format, h, tc.header)
		}
		if string(body) != tc.body {
			t.Errorf("format %s body:\n got %s\nwant %s", tc.format, body, tc.body)
		}
	}
}

// TestBodyFieldsMatchSpec lists the spec's tables (6.2, 6.3) field by field.
func TestBodyFieldsMatchSpec(t *testing.T) {
	want := map[Format]map[string][]string{
		FormatA: {
			"":     {"event", "delivery_id", "user_id", "host_id", "source", "occurred_at", "data"},
			"data": {"bid", "secret_key", "url"},
		},
		FormatB: {
			"":           {"event", "delivery_id", "timestamp", "host_id", "host_name", "changed_by", "before", "after"},
			"changed_by": {"kind", "id", "ip"},
			"before":     {"bid", "report_url"},
			"after":      {"bid", "secret_key", "report_url"},
		},
	}
	for f, objects := range want {
		_, body := mustRequest(t, f, testEvent(), sentAt)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(body, &top); err != nil {
			t.Fatal(err)
		}
		for name, fields := range objects {
			obj := top
			if name != "" {
				obj = nil
				if err := json.Unmarshal(top[name], &obj); err != nil {
					t.Fatalf("format %s: %s: %v", f, name, err)
				}
			}
			if got := slices.Sorted(maps.Keys(obj)); !slices.Equal(got, slices.Sorted(slices.Values(fields))) {
				t.Errorf("format %s object %q has fields %v, want %v", f, name, got, fields)
			}
		}
	}
}

func TestOldSecretNeverSent(t *testing.T) {
	for _, f := range []Format{FormatA, FormatB} {
		h, body := mustRequest(t, f, testEvent(), sentAt)
		if strings.Contains(string(body), oldSecret) || strings.Contains(strings.Join(slices.Concat(slices.Collect(maps.Values(h))...), " "), oldSecret) {
			t.Errorf("format %s request carries the previous secret", f)
		}
	}
}

// TestFreshTimestampPerAttempt: a retry re-signs the same body at its own time.
func TestFreshTimestampPerAttempt(t *testing.T) {
	for _, f := range []Format{FormatA, FormatB} {
		h1, b1 := mustRequest(t, f, testEvent(), sentAt)
		later := sentAt.Add(2 * time.Hour)
		h2, b2 := mustRequest(t, f, testEvent(), later)
		if string(b1) != string(b2) {
			t.Errorf("format %s: body changed between attempts", f)
		}
		if h1.Get(HeaderSignature) == h2.Get(HeaderSignature) {
			t.Errorf("format %s: two attempts share a signature", f)
		}
		if _, err := verifyAny(f, h2, b2, oldSecret, later); err != nil {
			t.Errorf("format %s: second attempt: %v", f, err)
		}
		if _, err := verifyAny(f, h1, b1, oldSecret, later); err == nil {
			t.Errorf("format %s: first attempt still accepted two hours later", f)
		}
	}
}

func TestNewRequestRefusesBadEvent(t *testing.T) {
	for name, edit := range map[string]func(*Event){
		"no delivery id":     func(e *Event) { e.DeliveryID = "" },
		"no user id":         func(e *Event) { e.UserID = "" },
		"no host id":         func(e *Event) { e.HostID = "" },
		"no signing key":     func(e *Event) { e.SigningKey = "" },
		"no new secret":      func(e *Event) { e.After.SecretKey = "" },
		"bad source":         func(e *Event) { e.Source = "cli" },
		"no occurred_at":     func(e *Event) { e.OccurredAt = time.Time{} },
		"relative target":    func(e *Event) { e.TargetURL, e.After.ReportURL = "/l1", "/l1" },
		"ftp target":         func(e *Event) { e.TargetURL, e.After.ReportURL = "ftp://h/x", "ftp://h/x" },
		"target not new url": func(e *Event) { e.TargetURL = "https://elsewhere.example.com/" },
	} {
		e := testEvent()
		edit(&e)
		for _, f := range []Format{FormatA, FormatB} {
			_, err := NewRequest(context.Background(), f, e, sentAt)
			if err == nil {
				t.Errorf("%s, format %s: accepted", name, f)
				continue
			}
			if strings.Contains(err.Error(), oldSecret) || strings.Contains(err.Error(), newSecret) {
				t.Errorf("%s: error %q shows a secret", name, err)
			}
		}
	}
	if _, err := NewRequest(context.Background(), "C", testEvent(), sentAt); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"A", "B"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	for _, s := range []string{"", "a", "C", "AB"} {
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%q) accepted", s)
		}
	}
}

// TestDocsShowTheGoldenRequests keeps docs/webhooks.md in step.
func TestDocsShowTheGoldenRequests(t *testing.T) {
	doc, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{oldSecret, goldenSigA, goldenSigB, "<!-- hub: delivery states -->", "<!-- hub: retry route -->"} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("docs/webhooks.md does not show %q", s)
		}
	}
	// The page pretty-prints the bodies; compare them as JSON.
	for _, body := range []string{goldenBodyA, goldenBodyB} {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(body), "", "  "); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), pretty.String()) {
			t.Errorf("docs/webhooks.md does not show this body indented by two spaces:\n%s", pretty.String())
		}
	}
}
