package apikeys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"hostgate/internal/apperr"
	"hostgate/internal/names"
	"hostgate/internal/periodic"
	"hostgate/internal/recent"
)

// MaxNameLen bounds a key's name.
const MaxNameLen = 64

// Service issues, lists, deletes and checks API keys.
type Service struct {
	store Store
	now   func() time.Time
	auth  *recent.Cache[authFact] // key id → owner and secret hash

	mu   sync.Mutex
	used map[string]time.Time // key id → last use not yet written
}

// NewService wires the API key service. Key checks are kept for a moment
// (package recent); bus carries their invalidation to other instances.
func NewService(st Store, bus *recent.Bus) *Service {
	return &Service{store: st, now: time.Now, used: map[string]time.Time{}, auth: recent.New[authFact]("apikeys", bus)}
}

// authFact is what a key check reads: the key is undeleted and its owner
// active.
type authFact struct {
	owner string
	hash  []byte
}

// Created is a new key with its secret, shown once.
type Created struct {
	Key
	Secret string `json:"secret" doc:"ak_<key_id>.<secret>; shown only in this response"`
}

// Create issues a key for owner.
func (s *Service) Create(ctx context.Context, owner, name string) (Created, error) {
	if p := names.Problem("name", name); p != "" {
		return Created{}, apperr.New("invalid_name", p)
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameLen {
		return Created{}, apperr.New("invalid_name", "name must be 1 to 64 characters")
	}
	idb := make([]byte, 8)
	rand.Read(idb)
	secb := make([]byte, 32)
	rand.Read(secb)
	id := hex.EncodeToString(idb)
	secret := base64.RawURLEncoding.EncodeToString(secb)
	k := Key{ID: id, UserID: owner, Name: name, Prefix: "ak_" + id, CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.store.CreateKey(ctx, k, hash(secret)); err != nil {
		return Created{}, err
	}
	return Created{Key: k, Secret: k.Prefix + "." + secret}, nil
}

// List returns the owner's keys, with last-use times not yet flushed.
func (s *Service) List(ctx context.Context, owner string) ([]Key, error) {
	keys, err := s.store.ListKeys(ctx, owner)
	if keys == nil {
		keys = []Key{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range keys {
		if t, ok := s.used[k.ID]; ok && (k.LastUsedAt == nil || t.After(*k.LastUsedAt)) {
			keys[i].LastUsedAt = &t
		}
		keys[i].Prefix = "ak_" + k.ID
	}
	return keys, err
}

// AdminList returns the owner's keys for the back office, revoked ones
// too, newest first, at most MaxAdminKeys, with last-use times not yet
// flushed.
func (s *Service) AdminList(ctx context.Context, owner string) ([]AdminKey, error) {
	keys, err := s.store.ListAllKeys(ctx, owner, MaxAdminKeys)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		keys = []AdminKey{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range keys {
		if t, ok := s.used[k.ID]; ok && (k.LastUsedAt == nil || t.After(*k.LastUsedAt)) {
			keys[i].LastUsedAt = &t
		}
		keys[i].Prefix = "ak_" + k.ID
	}
	return keys, nil
}

// Count counts the owner's keys (not deleted).
func (s *Service) Count(ctx context.Context, owner string) (int, error) {
	return s.store.CountKeys(ctx, owner)
}

// Delete removes the owner's key; it stops working on its next use on
// this instance, and on others once the forget reaches them (at most
// recent.TTL).
func (s *Service) Delete(ctx context.Context, owner, id string) error {
	err := s.store.DeleteKey(ctx, owner, id, s.now().UTC())
	if errors.Is(err, ErrNotFound) {
		return apperr.NotFound("api key")
	}
	if err == nil {
		s.auth.Forget(ctx, id)
	}
	return err
}

// ForgetUser drops the kept checks after userID's status changed (a
// suspended user's keys stop working). Suspensions are rare, so every
// kept check goes.
func (s *Service) ForgetUser(ctx context.Context, userID string) {
	s.auth.Forget(ctx, "")
}

// Principal is an authenticated client API request.
type Principal struct {
	UserID string
	KeyID  string
}

func invalidKey() error {
	return apperr.New(apperr.CodeInvalidToken, "API key is invalid or revoked")
}

// Authenticate checks "ak_<id>.<secret>". The key and its owner's status
// are read together and kept for at most recent.TTL; deleting the key or
// suspending its owner forgets them on every instance, so the change
// takes effect on the next call. The secret's hash is compared in
// constant time on every call. Malformed keys and wrong secrets answer
// alike.
func (s *Service) Authenticate(ctx context.Context, raw string) (Principal, error) {
	id, secret, ok := Parse(raw)
	if !ok {
		return Principal{}, invalidKey()
	}
	f, err := s.auth.Get(ctx, id, func(ctx context.Context) (authFact, error) {
		owner, want, err := s.store.KeyForAuth(ctx, id)
		return authFact{owner: owner, hash: want}, err
	})
	if errors.Is(err, ErrNotFound) {
		subtle.ConstantTimeCompare(hash(secret), absentHash) // same work as a wrong secret: one hash, one compare
		return Principal{}, invalidKey()
	}
	if err != nil {
		return Principal{}, err
	}
	if subtle.ConstantTimeCompare(hash(secret), f.hash) != 1 {
		return Principal{}, invalidKey()
	}
	s.mu.Lock()
	s.used[id] = s.now().UTC().Truncate(time.Microsecond)
	s.mu.Unlock()
	return Principal{UserID: f.owner, KeyID: id}, nil
}

// Parse splits a key into id and secret, checking its shape only.
func Parse(raw string) (id, secret string, ok bool) {
	if len(raw) > 128 {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(raw, "ak_")
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, ".")
	if !ok || len(id) != 16 || len(secret) != 43 {
		return "", "", false
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", "", false
	}
	return id, secret, true
}

// absentHash stands for the stored hash of a key that does not exist.
var absentHash = make([]byte, sha256.Size)

func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Flush writes batched last-use times.
func (s *Service) Flush(ctx context.Context) error {
	s.mu.Lock()
	batch := s.used
	s.used = map[string]time.Time{}
	s.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := s.store.TouchKeys(ctx, batch); err != nil {
		s.mu.Lock()
		for id, t := range batch {
			if cur, ok := s.used[id]; !ok || cur.Before(t) {
				s.used[id] = t
			}
		}
		s.mu.Unlock()
		return err
	}
	return nil
}

// Run flushes every interval until ctx ends, then once more.
func (s *Service) Run(ctx context.Context, interval time.Duration, onErr func(error)) {
	periodic.Run(ctx, interval, s.Flush, onErr)
}
