package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"time"

	"hostgate/internal/apperr"
)

// Step-up: before a sensitive change (the billing mode) an admin enters
// the password again at POST /v1/admin/auth/step-up and gets a step-up
// token: 32 random bytes, valid StepUpTTL, single use, bound to that admin
// and session. The change's request carries it in the X-Step-Up-Token
// header; the hub keeps only its SHA-256, in coordination, and takes it
// with an atomic get-and-delete, so a token works once on any instance.

// StepUpTTL is how long a step-up token stays valid.
const StepUpTTL = 5 * time.Minute

// CodeStepUpRequired is the 403 code of a sensitive change without a
// valid step-up token.
const CodeStepUpRequired = "step_up_required"

func stepUpKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "stepup:" + hex.EncodeToString(sum[:])
}

// StepUp checks p's password again and issues a step-up token. Failures
// count towards the admin's login lockout.
func (s *Service) StepUp(ctx context.Context, p Principal, password string) (string, error) {
	a, err := s.store.AdminByID(ctx, p.AdminID)
	if err != nil {
		return "", apperr.New(apperr.CodeInvalidToken, "admin not found")
	}
	if _, err := s.checkPassword(ctx, a.Username, password); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	if err := s.coord.PutTicket(ctx, stepUpKey(token), []byte(p.AdminID+" "+p.SessionID), StepUpTTL); err != nil {
		return "", err
	}
	return token, nil
}

// ConsumeStepUp takes a step-up token for p: it must have been issued to
// p's admin in p's session and not used before.
func (s *Service) ConsumeStepUp(ctx context.Context, p Principal, token string) error {
	refused := apperr.New(CodeStepUpRequired, "this change needs a fresh step-up token (POST /v1/admin/auth/step-up) in X-Step-Up-Token")
	if token == "" || len(token) > 128 {
		return refused
	}
	v, ok, err := s.coord.TakeTicket(ctx, stepUpKey(token))
	if err != nil {
		return err
	}
	if !ok || subtle.ConstantTimeCompare(v, []byte(p.AdminID+" "+p.SessionID)) != 1 {
		return refused
	}
	return nil
}
