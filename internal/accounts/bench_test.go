package accounts_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/hubtest"
	"hostgate/internal/keyring"
)

// BenchmarkAuthenticate measures the user-token check every /v1/user call
// makes, on a real hub of each mode: "warm" checks one token again and
// again; "miss" checks a token of a session not checked before, so every
// call reads the session's state.
func BenchmarkAuthenticate(b *testing.B) {
	for _, mode := range hubtest.Modes {
		b.Run(string(mode), func(b *testing.B) {
			h := hubtest.Start(b, mode)
			a := h.Register(b)
			b.Run("warm", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := h.Accounts.Authenticate(b.Context(), a.AccessToken); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("miss", func(b *testing.B) {
				toks := sessionTokens(b, h, a.User.ID, b.N)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if _, err := h.Accounts.Authenticate(b.Context(), toks[i]); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// sessionTokens opens n sessions of userID straight in the store and
// returns an access token of each.
func sessionTokens(b *testing.B, h *hubtest.Hub, userID string, n int) []string {
	b.Helper()
	keys, err := keyring.Load(b.Context(), h.Store().Keys, "", "")
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	toks := make([]string, n)
	for i := range toks {
		s := accounts.Session{ID: uuid.NewString(), UserID: userID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		refresh := sha256.Sum256([]byte(s.ID))
		if err := h.Store().Accounts.CreateSession(b.Context(), s, refresh[:]); err != nil {
			b.Fatal(err)
		}
		c := keyring.Claims{Kind: keyring.KindUser, Subject: userID, SessionID: s.ID}
		if toks[i], _, err = keys.SignToken(c, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	return toks
}
