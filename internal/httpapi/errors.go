package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/dispatch"
	"hostgate/internal/hosts"
	"hostgate/internal/installer"
	"hostgate/internal/jobs"
	"hostgate/internal/l1config"
	"hostgate/internal/operations"
	"hostgate/internal/paging"
	"hostgate/internal/passwords"
	"hostgate/internal/terminals"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

// statusByCode is the only place an error code becomes an HTTP status,
// keyed by the constants of the domains that own the codes; the string
// literals left are the transport's own codes and the payment provider's.
// A code missing here is a bug: it answers 500 and a test lists them all.
var statusByCode = withOperationFailures(map[string]int{
	apperr.CodeInvalidBody:        400,
	apperr.CodeInvalidID:          400,
	apperr.CodeInvalidQuery:       400,
	paging.CodeInvalidCursor:      400,
	hosts.CodeInvalidName:         400,
	hosts.CodeNameTooLong:         400,
	hosts.CodeInvalidPort:         400,
	accounts.CodeInvalidEmail:     400,
	admin.CodeInvalidUsername:     400,
	admin.CodeInvalidRole:         400,
	passwords.CodeWeakPassword:    400,
	versions.CodeVersionRequired:  400,
	versions.CodeInvalidVersion:   400,
	l1config.CodeInvalidBID:       400,
	l1config.CodeInvalidSecretKey: 400,
	l1config.CodeInvalidURL:       400,
	l1config.CodeURLNotAllowed:    400,
	l1config.CodeInvalidFormat:    400,
	jobs.CodeEmptyTarget:          400,
	jobs.CodeWebhookSecretMissing: 400,

	apperr.CodeUnauthorized:     401,
	apperr.CodeInvalidToken:     401,
	terminals.CodeInvalidTicket: 401,
	apperr.CodeInvalidCreds:     401,
	"missing_agent_token":       401,

	billing.CodeInsufficientBalance: 402,

	apperr.CodeForbidden:          403,
	hosts.CodeHostBanned:          403,
	admin.CodeStepUpRequired:      403,
	accounts.CodeAccountSuspended: 403,

	apperr.CodeNotFound:            404,
	versions.CodeVersionNotFound:   404,
	operations.CodeGameDirNotFound: 404,

	"method_not_allowed": 405,

	apperr.CodeConflict:                409,
	accounts.CodeEmailTaken:            409,
	admin.CodeUsernameTaken:            409,
	admin.CodeLastOwner:                409,
	dispatch.CodeHostOffline:           409,
	versions.CodeVersionYanked:         409,
	versions.CodeVersionExists:         409,
	hosts.CodeBIDCollision:             409,
	hosts.CodeNameTaken:                409,
	hosts.CodeLimitReached:             409,
	upgrades.CodeInProgress:            409,
	jobs.CodeJobFinished:               409,
	upgrades.CodeUnsupported:           409,
	deliveries.CodeDeliveryNotDead:     409,
	terminals.CodeAgentUpgradeRequired: 409,

	terminals.CodeTerminalEnded: 410,

	"precondition_failed": 412,

	"body_too_large":         413,
	"body_timeout":           408,
	"unsupported_media_type": 415,

	"range_not_satisfiable": 416,

	apperr.CodeAccountLocked: 423,
	apperr.CodeRateLimited:   429,

	apperr.CodeInternal:               500,
	agentproto.CodeNotImplemented:     501,
	agentproto.CodeUnsupportedControl: 501,
	operations.CodeAgentError:         502,
	apperr.CodeUnavailable:            503,
	apperr.CodeStorageFull:            507,
	terminals.CodeTerminalBusy:        503,
	installer.CodeExeUnavailable:      503,
	installer.CodeExeNotConfigured:    503,
	"payment_not_configured":          503,
	"invalid_signature":               400,
	"payment_not_successful":          400,
	"amount_mismatch":                 400,
	"order_not_found":                 404,
	"order_not_payable":               409,
	billing.CodeNotRefundable:         409,
	billing.CodeRefundExceedsBalance:  409,
	billing.CodeIdempotencyKeyReused:  409,
	dispatch.CodeAgentTimeout:         504,
	dispatch.CodeAgentDisconnected:    502,
})

// withOperationFailures adds to statuses the codes package operations
// passes through for operations the agent tried and could not carry out
// (422), and returns it.
func withOperationFailures(statuses map[string]int) map[string]int {
	for _, c := range operations.FailureCodes {
		statuses[c] = http.StatusUnprocessableEntity
	}
	statuses[operations.CodeAgentTooOld] = http.StatusUnprocessableEntity
	return statuses
}

// statusOf returns the HTTP status for a code.
func statusOf(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Problem is the body of every non-2xx answer: {error, message}.
type Problem struct {
	Status  int    `json:"-"`
	Code    string `json:"error" doc:"Machine-readable error code (spec section 7)" example:"not_found"`
	Message string `json:"message" doc:"Human-readable explanation, safe to display"`
}

func (p *Problem) Error() string  { return p.Code + ": " + p.Message }
func (p *Problem) GetStatus() int { return p.Status }

// problemFor turns an application error into its answer. Anything that is
// not an *apperr.Error is logged once here and shown only as "internal".
func problemFor(log *slog.Logger, r *http.Request, err error) *Problem {
	if p, ok := errors.AsType[*Problem](err); ok {
		return p
	}
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		return &Problem{Status: statusOf(e.Code), Code: e.Code, Message: e.Message}
	}
	if apperr.StorageFull(err) {
		log.ErrorContext(r.Context(), "storage full: a write was refused", "request_id", requestID(r.Context()), "err", err)
		return &Problem{Status: http.StatusInsufficientStorage, Code: apperr.CodeStorageFull,
			Message: "the hub's storage is full: nothing was saved; retry once space is freed"}
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The caller went away mid-request: nobody reads this answer and
		// the hub did nothing wrong, so it is no error in the log (a storm
		// of enrolling agents giving up had filled it with them).
		log.InfoContext(r.Context(), "request abandoned by its caller", "request_id", requestID(r.Context()), "err", err)
	} else {
		log.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()), "err", err)
	}
	return &Problem{Status: 500, Code: apperr.CodeInternal, Message: "internal error; quote the request id " + requestID(r.Context())}
}

// writeProblem writes p as JSON.
func writeProblem(w http.ResponseWriter, p *Problem) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// humaError replaces huma's own error constructor, so errors huma raises
// itself (validation, body size, content type) use our envelope and codes.
func humaError(status int, msg string, errs ...error) huma.StatusError {
	var details []string
	code := ""
	for _, e := range errs {
		if e == nil {
			continue
		}
		details = append(details, e.Error())
		if d, ok := e.(*huma.ErrorDetail); ok && code == "" {
			code = codeForLocation(d.Location)
		}
	}
	if len(details) > 0 {
		msg = strings.TrimSuffix(msg, ".") + ": " + strings.Join(details, "; ")
	}
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		if code == "" {
			code = apperr.CodeInvalidBody
		}
		status = http.StatusBadRequest
	case http.StatusRequestEntityTooLarge:
		code = "body_too_large"
	case http.StatusRequestTimeout:
		code = "body_timeout" // bodydeadline.go
	case http.StatusUnsupportedMediaType:
		code = "unsupported_media_type"
	case http.StatusNotFound:
		code = apperr.CodeNotFound
	case http.StatusUnauthorized:
		code = apperr.CodeUnauthorized
	case http.StatusForbidden:
		code = apperr.CodeForbidden
	default:
		if status >= 500 {
			return &Problem{Status: 500, Code: apperr.CodeInternal, Message: "internal error"}
		}
		code = fmt.Sprintf("http_%d", status)
	}
	return &Problem{Status: status, Code: code, Message: msg}
}

// codeForLocation names the bad part of a request: "path.id" is a bad id,
// "query.x" a bad query parameter, anything else the body.
func codeForLocation(loc string) string {
	switch {
	case strings.HasPrefix(loc, "path."):
		return apperr.CodeInvalidID
	case loc == "query.cursor":
		return paging.CodeInvalidCursor
	case strings.HasPrefix(loc, "query."):
		return apperr.CodeInvalidQuery
	}
	return apperr.CodeInvalidBody
}

// useOurErrors makes huma build the errors it raises itself (validation,
// body size, content type) with humaError. huma.NewError is process-wide:
// New calls this before registering any route, since huma derives each
// operation's error schema from it; once is enough, as every Server wants
// the same.
var useOurErrors = sync.OnceFunc(func() { huma.NewError = humaError })
