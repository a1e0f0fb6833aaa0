package webhooks

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestSecretsDoNotPrint: an Event in a log line or error shows no secret.
func TestSecretsDoNotPrint(t *testing.T) {
	e := testEvent()
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("queued", "event", e, "key", e.SigningKey)
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("queued", "event", e, "after", e.After, "key", e.SigningKey)
	out := fmt.Sprintf("%v %+v %#v %s %q %x %d %v", e, e, e, e.SigningKey, e.SigningKey, e.SigningKey, e.SigningKey, e.After) + logged.String()
	for _, secret := range []string{oldSecret, newSecret} {
		if strings.Contains(out, secret) {
			t.Fatalf("a secret was printed:\n%s", out)
		}
	}
	if !strings.Contains(out, "[redacted]") {
		t.Fatalf("no redaction marker in:\n%s", out)
	}
}
