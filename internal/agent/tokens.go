package agent

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"hostgate/internal/agentproto"
)

// assumedLifetime is used when the hub sends no usable expiry.
const assumedLifetime = 15 * time.Minute

// minRenew keeps a token with a tiny or negative apparent lifetime from
// being renewed in a tight loop.
const minRenew = time.Second

// tokenSource hands out the agent token, obtaining it through the install
// token or the key refresh when there is none worth using, and persists it.
type tokenSource struct {
	s     *settings
	hub   *hubClient
	state stateStore
	log   *slog.Logger
	now   func() time.Time

	mu  sync.Mutex
	cur *savedToken
	// changed is signalled (without blocking) when cur is replaced.
	changed chan struct{}
}

func newTokenSource(s *settings, hub *hubClient, state stateStore, log *slog.Logger) *tokenSource {
	return &tokenSource{s: s, hub: hub, state: state, log: log, now: time.Now, changed: make(chan struct{}, 1)}
}

// load picks up a saved token; a corrupt or foreign one is ignored.
func (t *tokenSource) load() {
	tok, err := t.state.loadToken(t.s.hostID, t.s.pubB64)
	if err != nil {
		t.log.Warn("ignoring saved agent token", "err", err)
		return
	}
	if tok != nil {
		t.log.Info("loaded saved agent token", "expires_at", tok.ExpiresAt, "renew_at", tok.RenewAt)
	}
	t.mu.Lock()
	t.cur = tok
	t.mu.Unlock()
}

// Token returns a usable agent token. Past two thirds of its lifetime it
// renews the token first; if that fails while the old one has not expired,
// the old one is still returned.
func (t *tokenSource) Token(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if t.cur != nil && now.Before(t.cur.RenewAt) {
		return t.cur.Token, nil
	}
	err := t.obtain(ctx)
	if err == nil {
		return t.cur.Token, nil
	}
	if t.cur != nil && now.Before(t.cur.ValidTo) {
		t.log.Warn("agent token renewal failed; using the current token until it expires", "err", err)
		return t.cur.Token, nil
	}
	return "", err
}

// Invalidate forgets tok after the hub refused it (401), so the next Token
// call obtains a new one.
func (t *tokenSource) Invalidate(tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil || t.cur.Token != tok {
		return
	}
	t.cur = nil
	if err := t.state.dropToken(); err != nil {
		t.log.Warn("could not drop the refused agent token", "err", err)
	}
}

// peek returns the current token, without obtaining or renewing one, if
// it has not expired.
func (t *tokenSource) peek() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil || !t.now().Before(t.cur.ValidTo) {
		return "", false
	}
	return t.cur.Token, true
}

// renewAt reports when the current token should be renewed; ok is false
// when there is none.
func (t *tokenSource) renewAt() (at time.Time, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil {
		return time.Time{}, false
	}
	return t.cur.RenewAt, true
}

// obtain gets a new token: through the install token while it is unspent,
// otherwise (or when the hub calls it spent) through the key refresh.
// The caller holds t.mu.
func (t *tokenSource) obtain(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*t.s.HTTPTimeout)
	defer cancel()
	if t.installTokenUsable() {
		tr, r, err := t.hub.online(ctx, t.s.InstallToken)
		switch status := statusOf(err); {
		case err == nil:
			t.spendInstallToken()
			t.log.Info("enrolled with the install token")
			return t.keep(tr, r)
		case status == http.StatusUnauthorized:
			t.spendInstallToken()
			t.log.Warn("the hub refused the install token (already used or expired); using the key refresh", "err", err)
		default:
			return fmt.Errorf("enrol: %w", err)
		}
	}
	tr, r, err := t.hub.refresh(ctx)
	if err != nil {
		return fmt.Errorf("token refresh: %w", err)
	}
	t.log.Info("agent token renewed by key refresh")
	return t.keep(tr, r)
}

func (t *tokenSource) installTokenUsable() bool {
	if t.s.InstallToken == "" {
		return false
	}
	spent, err := t.state.consumed(t.s.hostID, t.s.InstallToken)
	if err != nil {
		t.log.Warn("cannot read the install token marker; assuming unspent", "err", err)
	}
	return !spent
}

// spendInstallToken records that the install token must not be sent again.
func (t *tokenSource) spendInstallToken() {
	if err := t.state.markConsumed(t.s.hostID, t.s.InstallToken, t.now()); err != nil {
		t.log.Error("could not record the spent install token", "err", err)
	}
}

// keep adopts tr. The lifetime is measured on the hub's clock (ExpiresAt
// against the answer's Date), so a skewed local clock does not matter.
func (t *tokenSource) keep(tr agentproto.TokenResponse, r reply) error {
	now := t.now()
	serverNow := r.serverNow
	if serverNow.IsZero() {
		serverNow = now
	}
	life := assumedLifetime
	if !tr.ExpiresAt.IsZero() {
		life = tr.ExpiresAt.Sub(serverNow)
	}
	st := &savedToken{
		HostID: t.s.hostID, Pubkey: t.s.pubB64, Token: tr.AgentToken, ExpiresAt: tr.ExpiresAt,
		RenewAt: now.Add(max(life*2/3, minRenew)), ValidTo: now.Add(life),
	}
	t.cur = st
	select {
	case t.changed <- struct{}{}:
	default:
	}
	if err := t.state.saveToken(st); err != nil {
		t.log.Warn("could not save the agent token", "err", err)
	}
	return nil
}

// renewIfDue renews the current token when it is past its renewal time.
func (t *tokenSource) renewIfDue(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil || t.now().Before(t.cur.RenewAt) {
		return nil
	}
	return t.obtain(ctx)
}

// renewLoop renews the token at two thirds of its lifetime, so the saved
// token stays fresh while the WebSocket (authenticated only at upgrade)
// lives on. Failures are retried with backoff.
func (t *tokenSource) renewLoop(ctx context.Context, b Backoff) {
	attempt := 0
	for ctx.Err() == nil {
		wait := time.Hour
		if at, ok := t.renewAt(); ok {
			wait = at.Sub(t.now())
		}
		if wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-t.changed:
				timer.Stop()
				continue
			case <-timer.C:
			}
		}
		err := t.renewIfDue(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			t.log.Warn("agent token renewal failed", "err", err)
			if !sleep(ctx, retryDelay(b, err, attempt)) {
				return
			}
			attempt++
			continue
		}
		attempt = 0
	}
}
