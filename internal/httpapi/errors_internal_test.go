package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAbandonedRequestsAreNoErrors: a failure because the caller went
// away is logged as information; every other unexpected failure, even a
// cancellation the caller did not cause, as an error.
func TestAbandonedRequestsAreNoErrors(t *testing.T) {
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		err   error
		level string
	}{
		{"caller gone", gone, fmt.Errorf("postgres: read host: %w", context.Canceled), "INFO"},
		{"cancelled inside, caller still there", context.Background(), context.Canceled, "ERROR"},
		{"caller gone, another failure", gone, errors.New("disk full"), "ERROR"},
	} {
		var out bytes.Buffer
		log := slog.New(slog.NewTextHandler(&out, nil))
		r := httptest.NewRequestWithContext(c.ctx, "GET", "/v1/api/hosts", nil)
		if p := problemFor(log, r, c.err); p.Status != 500 || p.Code != "internal" {
			t.Errorf("%s: answer %+v", c.name, p)
		}
		if !strings.Contains(out.String(), "level="+c.level) {
			t.Errorf("%s: logged %q, want level %s", c.name, out.String(), c.level)
		}
	}
}
