package pty

import (
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Manager defaults.
const (
	DefaultMaxSessions = 16
	DefaultIdleTimeout = 30 * time.Minute
)

// Errors of Manager.
var (
	// ErrTooManySessions: Open was called with MaxSessions sessions open.
	ErrTooManySessions = errors.New("pty: too many terminal sessions")
	// ErrManagerClosed: Open was called after CloseAll.
	ErrManagerClosed = errors.New("pty: terminal sessions are shut down")
)

// Config configures a Manager.
type Config struct {
	// MaxSessions caps the open sessions; zero means DefaultMaxSessions.
	MaxSessions int
	// IdleTimeout closes a session that had neither input (Write) nor
	// output (a Read that returned bytes) for this long; zero means
	// DefaultIdleTimeout, negative means never.
	IdleTimeout time.Duration
	// Start starts a terminal; nil means the package's Start. Tests and
	// the agent may wrap it.
	Start func(Options) (PTY, error)
}

// Manager holds the terminal sessions of one agent. Its methods are safe
// for concurrent use.
type Manager struct {
	cfg      Config
	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
	stop     chan struct{}
	swept    sync.WaitGroup
}

// NewManager returns a Manager. Its idle sweeper runs until CloseAll.
func NewManager(cfg Config) *Manager {
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Start == nil {
		cfg.Start = Start
	}
	m := &Manager{cfg: cfg, sessions: map[string]*Session{}, stop: make(chan struct{})}
	if cfg.IdleTimeout > 0 {
		m.swept.Add(1)
		go m.sweep()
	}
	return m
}

// Session is a PTY the Manager holds, with an id. Closing it (directly,
// through the Manager, by the idle timeout or by CloseAll) ends its
// processes and removes it from the Manager.
type Session struct {
	PTY
	id      string
	m       *Manager
	last    atomic.Int64 // unix nanoseconds of the last input or output
	closing sync.Once
	err     error
}

// ID is the session's id, unique within its Manager.
func (s *Session) ID() string { return s.id }

func (s *Session) touch() { s.last.Store(time.Now().UnixNano()) }

// Read reads output and counts it as activity.
func (s *Session) Read(b []byte) (int, error) {
	n, err := s.PTY.Read(b)
	if n > 0 {
		s.touch()
	}
	return n, err
}

// Write sends input and counts it as activity.
func (s *Session) Write(b []byte) (int, error) {
	s.touch()
	return s.PTY.Write(b)
}

// Close ends the session's processes and removes it from its Manager.
func (s *Session) Close() error {
	s.closing.Do(func() {
		s.m.mu.Lock()
		delete(s.m.sessions, s.id)
		s.m.mu.Unlock()
		s.err = s.PTY.Close()
	})
	return s.err
}

// Open starts a terminal session.
func (m *Manager) Open(opts Options) (*Session, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrManagerClosed
	}
	if len(m.sessions) >= m.cfg.MaxSessions {
		m.mu.Unlock()
		return nil, ErrTooManySessions
	}
	s := &Session{id: rand.Text(), m: m}
	m.sessions[s.id] = s // holds the place while the PTY starts
	m.mu.Unlock()

	p, err := m.cfg.Start(opts)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil || m.closed {
		delete(m.sessions, s.id)
		if err == nil {
			_ = p.Close()
			err = ErrManagerClosed
		}
		return nil, err
	}
	s.PTY = p
	s.touch()
	return s, nil
}

// Get returns the open session with the given id.
func (m *Manager) Get(id string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok && s.PTY != nil
}

// Len reports the number of open sessions.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// CloseAll closes every session, stops the idle sweeper and makes later
// Opens fail: the agent calls it when it stops.
func (m *Manager) CloseAll() {
	m.mu.Lock()
	if !m.closed {
		m.closed = true
		close(m.stop)
	}
	ss := m.openSessions()
	m.mu.Unlock()
	closeEach(ss)
	m.swept.Wait()
}

// openSessions returns the started sessions; m.mu is held.
func (m *Manager) openSessions() []*Session {
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		if s.PTY != nil {
			ss = append(ss, s)
		}
	}
	return ss
}

// closeEach closes sessions in parallel: each close waits for its
// processes to be reaped.
func closeEach(ss []*Session) {
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() { _ = s.Close() })
	}
	wg.Wait()
}

// sweep closes idle sessions until CloseAll. It looks a few times per
// timeout, so a session lives at most about 1.25 timeouts without
// activity.
func (m *Manager) sweep() {
	defer m.swept.Done()
	tick := time.NewTicker(min(m.cfg.IdleTimeout/4, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-tick.C:
			closeEach(m.idle(now))
		}
	}
}

// idle returns the sessions without activity for the idle timeout.
func (m *Manager) idle(now time.Time) []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Session
	for _, s := range m.openSessions() {
		if now.Sub(time.Unix(0, s.last.Load())) >= m.cfg.IdleTimeout {
			out = append(out, s)
		}
	}
	return out
}
