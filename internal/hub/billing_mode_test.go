package hub_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"hostgate/internal/hub"
)

// TestBillingModeVariable: HOSTGATE_BILLING_MODE sets the mode of a new
// installation and is ignored, with an info line saying so, once the
// store has one.
func TestBillingModeVariable(t *testing.T) {
	data := t.TempDir()
	start := func(mode string) (got, logged string) {
		t.Helper()
		cfg, err := hub.Parse(func(k string) string {
			return map[string]string{"HOSTGATE_DATA_DIR": data, "HOSTGATE_BILLING_MODE": mode}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		h, err := hub.Open(t.Context(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		got, err = h.Billing.Mode(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return got, logs.String()
	}
	if got, logs := start("free"); got != "free" || !strings.Contains(logs, "billing mode set from HOSTGATE_BILLING_MODE") {
		t.Errorf("first start: mode %s, logs:\n%s", got, logs)
	}
	if got, logs := start("charging"); got != "free" || !strings.Contains(logs, "level=INFO msg=\"HOSTGATE_BILLING_MODE ignored") {
		t.Errorf("restart with charging: mode %s, logs:\n%s", got, logs)
	}
}
