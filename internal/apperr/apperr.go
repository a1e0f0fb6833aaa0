// Package apperr defines the errors a client may see: a code from the
// interface spec (section 7) and a message that is safe to display.
//
// Domain packages return *Error for every failure a caller can act on; any
// other error is an internal failure whose text never leaves the server.
package apperr

import "errors"

// Error is a client-visible failure.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New returns an error with a spec code and a display message.
func New(code, msg string) *Error { return &Error{Code: code, Message: msg} }

// Code reports err's spec code; anything that is not an *Error is "internal".
func Code(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return "internal"
}

// Is reports whether err carries the given code.
func Is(err error, code string) bool { return Code(err) == code }

// Codes used across packages. Codes used by one domain only live there.
const (
	CodeInvalidBody   = "invalid_body"
	CodeInvalidID     = "invalid_id"
	CodeInvalidQuery  = "invalid_query"
	CodeUnauthorized  = "unauthorized"
	CodeInvalidToken  = "invalid_token"
	CodeForbidden     = "forbidden"
	CodeNotFound      = "not_found"
	CodeConflict      = "conflict"
	CodeRateLimited   = "rate_limited"
	CodeInternal      = "internal"
	CodeUnavailable   = "unavailable"
	CodeInvalidCreds  = "invalid_credentials"
	CodeAccountLocked = "account_locked"
)

// NotFound is the one answer for a missing object and for an object that
// belongs to someone else, so the two cannot be told apart.
func NotFound(what string) *Error { return New(CodeNotFound, what+" not found") }
