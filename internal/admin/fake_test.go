package admin

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/lockout"
	"hostgate/internal/paging"
)

// fakeStore is Store in memory. One mutex serialises everything, so a
// unit of work excludes every other write, as on SQLite; Tx works on
// copies and keeps them only when fn succeeds.
type fakeStore struct {
	mu       sync.Mutex
	admins   map[string]Admin
	hashes   map[string]string
	sessions map[string]Session
	refresh  map[string]fakeRefresh // by string(hash)
	audit    []audit.Entry
}

type fakeRefresh struct {
	session string
	used    bool
}

func newFakeStore() *fakeStore {
	return &fakeStore{admins: map[string]Admin{}, hashes: map[string]string{}, sessions: map[string]Session{}, refresh: map[string]fakeRefresh{}}
}

func (f *fakeStore) CreateAdmin(_ context.Context, a Admin, hash string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.insert(a, hash)
}

func (f *fakeStore) insert(a Admin, hash string) error {
	for _, x := range f.admins {
		if x.Username == a.Username {
			return ErrUsernameTaken
		}
	}
	f.admins[a.ID], f.hashes[a.ID] = a, hash
	return nil
}

func (f *fakeStore) AdminCredentials(_ context.Context, username string) (Admin, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.admins {
		if a.Username == username {
			return a, f.hashes[a.ID], nil
		}
	}
	return Admin{}, "", ErrAdminNotFound
}

func (f *fakeStore) AdminByID(_ context.Context, id string) (Admin, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.admins[id]
	if !ok {
		return Admin{}, ErrAdminNotFound
	}
	return a, nil
}

func (f *fakeStore) ListAdmins(_ context.Context, fl Filter, p paging.Page) ([]Admin, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Admin
	for _, a := range f.admins {
		if strings.Contains(a.Username, fl.Query) && (fl.Role == "" || a.Role == fl.Role) && (fl.Status == "" || a.Status == fl.Status) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b Admin) int { return strings.Compare(a.Username, b.Username) })
	total := len(out)
	out = out[min(p.Offset, total):min(p.Offset+p.Limit, total)]
	return out, total, nil
}

func (f *fakeStore) SetAdminPasswordHash(_ context.Context, id, hash string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hashes[id] = hash
	return nil
}

func (f *fakeStore) AnyAdmin(context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.admins) > 0, nil
}

func (f *fakeStore) Tx(_ context.Context, fn func(Tx) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	admins, hashes, sessions, n := maps.Clone(f.admins), maps.Clone(f.hashes), maps.Clone(f.sessions), len(f.audit)
	if err := fn(fakeTx{f}); err != nil {
		f.admins, f.hashes, f.sessions, f.audit = admins, hashes, sessions, f.audit[:n]
		return err
	}
	return nil
}

func (f *fakeStore) OpenSession(_ context.Context, s Session, h []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.admins[s.AdminID]
	if !ok {
		return ErrAdminNotFound
	}
	at := s.CreatedAt
	a.LastLoginAt = &at
	f.admins[a.ID] = a
	f.sessions[s.ID] = s
	f.refresh[string(h)] = fakeRefresh{session: s.ID}
	return nil
}

func (f *fakeStore) RotateRefresh(_ context.Context, oldHash, newHash []byte, now time.Time) (Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.refresh[string(oldHash)]
	if !ok {
		return Session{}, ErrRefreshUnknown
	}
	s := f.sessions[r.session]
	if r.used {
		if s.RevokedAt == nil {
			s.RevokedAt = &now
			f.sessions[s.ID] = s
		}
		return s, ErrRefreshReused
	}
	if s.RevokedAt != nil || !s.ExpiresAt.After(now) || f.admins[s.AdminID].Status != StatusActive {
		return s, ErrSessionEnded
	}
	f.refresh[string(oldHash)] = fakeRefresh{session: s.ID, used: true}
	f.refresh[string(newHash)] = fakeRefresh{session: s.ID}
	return s, nil
}

func (f *fakeStore) SessionState(_ context.Context, id string) (SessionState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[id]
	if !ok {
		return SessionState{}, ErrSessionEnded
	}
	a := f.admins[s.AdminID]
	return SessionState{AdminID: a.ID, Role: a.Role, AdminStatus: a.Status, ExpiresAt: s.ExpiresAt, RevokedAt: s.RevokedAt}, nil
}

func (f *fakeStore) RevokeSession(_ context.Context, h []byte, now time.Time) (Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.refresh[string(h)]
	if !ok {
		return Session{}, ErrRefreshUnknown
	}
	return f.end(r.session, now), nil
}

func (f *fakeStore) EndSession(_ context.Context, id string, now time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.sessions[id]; !ok {
		return ErrSessionEnded
	}
	f.end(id, now)
	return nil
}

func (f *fakeStore) end(id string, now time.Time) Session {
	s := f.sessions[id]
	if s.RevokedAt == nil {
		s.RevokedAt = &now
		f.sessions[id] = s
	}
	return s
}

// auditActions lists the actions written, in order.
func (f *fakeStore) auditActions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.audit {
		out = append(out, e.Action)
	}
	return out
}

// fakeTx is fakeStore's unit of work; the store's mutex is held.
type fakeTx struct{ f *fakeStore }

func (t fakeTx) AppendAudit(_ context.Context, e audit.Entry) error {
	t.f.audit = append(t.f.audit, e)
	return nil
}

func (t fakeTx) InsertAdmin(_ context.Context, a Admin, hash string) error {
	return t.f.insert(a, hash)
}

func (t fakeTx) LockOwners(context.Context) ([]string, error) {
	var ids []string
	for _, a := range t.f.admins {
		if a.EnabledOwner() {
			ids = append(ids, a.ID)
		}
	}
	return ids, nil
}

func (t fakeTx) LockAdmin(_ context.Context, id string) (Admin, error) {
	a, ok := t.f.admins[id]
	if !ok {
		return Admin{}, ErrAdminNotFound
	}
	return a, nil
}

func (t fakeTx) SetAdminStatus(_ context.Context, id, status string) error {
	a, ok := t.f.admins[id]
	if !ok {
		return ErrAdminNotFound
	}
	a.Status = status
	t.f.admins[id] = a
	return nil
}

func (t fakeTx) SetAdminRole(_ context.Context, id string, role Role) error {
	a, ok := t.f.admins[id]
	if !ok {
		return ErrAdminNotFound
	}
	a.Role = role
	t.f.admins[id] = a
	return nil
}

func (t fakeTx) RevokeAdminSessions(_ context.Context, adminID string, now time.Time) ([]string, error) {
	var ids []string
	for id, s := range t.f.sessions {
		if s.AdminID == adminID && s.RevokedAt == nil {
			t.f.end(id, now)
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// fakeTickets is Tickets in memory.
type fakeTickets struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *fakeTickets) PutTicket(_ context.Context, key string, v []byte, _ time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = bytes.Clone(v)
	return nil
}

func (c *fakeTickets) TakeTicket(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	delete(c.m, key)
	return v, ok, nil
}

// fakeLockout never locks.
type fakeLockout struct{}

func (fakeLockout) LoginLockedUntil(context.Context, string, string) (time.Time, error) {
	return time.Time{}, nil
}
func (fakeLockout) RecordLoginFailure(context.Context, string, string, time.Time, lockout.Policy) error {
	return nil
}
func (fakeLockout) ClearLoginFailures(context.Context, string, string, time.Time) error { return nil }
func (fakeLockout) PruneLoginLockouts(context.Context, string, time.Time, time.Time) error {
	return nil
}
