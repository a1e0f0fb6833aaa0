package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/operations"
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

// TestStatusTable checks the built error-code table: the codes of the
// operations the agent tried and could not carry out are 422, alongside
// the codes written out in the table.
func TestStatusTable(t *testing.T) {
	want := map[string]int{
		apperr.CodeInvalidBody:          400,
		apperr.CodeInvalidToken:         401,
		"insufficient_balance":          402,
		"host_banned":                   403,
		operations.CodeGameDirNotFound:  404,
		"version_exists":                409,
		apperr.CodeRateLimited:          429,
		"unsupported_control":           501,
		"agent_timeout":                 504,
		operations.CodeAgentTooOld:      422,
		operations.CodeOperationFailed:  422,
		operations.CodeTargetNotFound:   422,
		"permission_denied":             422,
		"already_running":               422,
		"no_code_the_hub_ever_gives_xx": 500,
	}
	for _, c := range operations.FailureCodes {
		want[c] = 422
	}
	for code, status := range want {
		if got := statusOf(code); got != status {
			t.Errorf("statusOf(%q) = %d, want %d", code, got, status)
		}
	}
}

// TestHumaErrorsUseTheEnvelope: errors huma raises itself, before any
// handler runs, answer with our {error, message} and codes on a Server
// that New built.
func TestHumaErrorsUseTheEnvelope(t *testing.T) {
	s := New(Config{Log: slog.New(slog.DiscardHandler)})
	for _, c := range []struct{ name, body, code string }{
		{"malformed json", `{"email":`, apperr.CodeInvalidBody},
		{"missing field", `{"email":"a@example.com"}`, apperr.CodeInvalidBody},
	} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/v1/public/auth/login", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(rec, r)
		var p Problem
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != 400 || p.Code != c.code || p.Message == "" {
			t.Errorf("%s: got %d %s (%v), want 400 with error %q and a message", c.name, rec.Code, rec.Body, err, c.code)
		}
	}
	if p, ok := huma.NewError(400, "bad").(*Problem); !ok || p.Code != apperr.CodeInvalidBody {
		t.Errorf("huma.NewError after New: got %#v, want our *Problem", p)
	}
}
