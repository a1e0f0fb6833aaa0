package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"time"

	"hostgate/internal/apperr"
)

// Step-up: before a sensitive change (the billing mode) an admin enters
// the password again at POST /v1/admin/auth/step-up and gets a step-up
// token: 32 random bytes, valid StepUpTTL, single use, bound to that admin
// and session. The change's request carries it in the X-Step-Up-Token
// header; the hub keeps only a SHA-256 of the admin, the session and the
// token, in coordination, and takes it with an atomic get-and-delete, so
// a token works once on any instance. Because the admin and the session
// are part of the key, another admin (or another session of the same
// admin) presenting the token looks up a ticket that does not exist: the
// attempt is refused and the owner's ticket is left as it was.

// StepUpTTL is how long a step-up token stays valid.
const StepUpTTL = 5 * time.Minute

// CodeStepUpRequired is the 403 code of a sensitive change without a
// valid step-up token.
const CodeStepUpRequired = "step_up_required"

// stepUpKey is the coordination key of token issued to p: the hash of
// the admin id, the session id and the token, each length-prefixed so
// that no two different triples hash the same input.
func stepUpKey(p Principal, token string) string {
	h := sha256.New()
	for _, part := range []string{p.AdminID, p.SessionID, token} {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(part))))
		h.Write([]byte(part))
	}
	return "stepup:" + hex.EncodeToString(h.Sum(nil))
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
	if err := s.coord.PutTicket(ctx, stepUpKey(p, token), []byte(p.AdminID+" "+p.SessionID), StepUpTTL); err != nil {
		return "", err
	}
	return token, nil
}

// ConsumeStepUp takes a step-up token for p: it must have been issued to
// p's admin in p's session and not used before. A token of another admin
// or session is refused and stays usable by its owner: the lookup key
// holds p, so the attempt takes nothing of theirs.
func (s *Service) ConsumeStepUp(ctx context.Context, p Principal, token string) error {
	refused := apperr.New(CodeStepUpRequired, "this change needs a fresh step-up token (POST /v1/admin/auth/step-up) in X-Step-Up-Token")
	if token == "" || len(token) > 128 {
		return refused
	}
	v, ok, err := s.coord.TakeTicket(ctx, stepUpKey(p, token))
	if err != nil {
		return err
	}
	if !ok || subtle.ConstantTimeCompare(v, []byte(p.AdminID+" "+p.SessionID)) != 1 {
		return refused
	}
	return nil
}
