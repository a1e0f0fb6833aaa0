package inproc

import (
	"context"
	"time"
)

// SetPresence records hostID as held by instanceID for ttl, replacing any
// earlier holder.
func (c *Coord) SetPresence(_ context.Context, hostID, instanceID string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmtErr("set presence", errBadTTL)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.presence[hostID] = presence{instance: instanceID, expires: c.now().Add(ttl)}
	return nil
}

// RefreshPresence sets every host in hostIDs to instanceID for ttl, as
// SetPresence would, under one lock.
func (c *Coord) RefreshPresence(_ context.Context, instanceID string, hostIDs []string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmtErr("refresh presence", errBadTTL)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := presence{instance: instanceID, expires: c.now().Add(ttl)}
	for _, h := range hostIDs {
		c.presence[h] = p
	}
	return nil
}

// Presence returns hostID's holder; ok is false when absent or expired.
func (c *Coord) Presence(_ context.Context, hostID string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.presence[hostID]
	if !ok {
		return "", false, nil
	}
	if !c.now().Before(p.expires) {
		delete(c.presence, hostID)
		return "", false, nil
	}
	return p.instance, true, nil
}

// PresenceMany returns the live holders of hostIDs under one lock.
func (c *Coord) PresenceMany(_ context.Context, hostIDs []string) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	out := make(map[string]string, len(hostIDs))
	for _, h := range hostIDs {
		p, ok := c.presence[h]
		if ok && now.Before(p.expires) {
			out[h] = p.instance
		}
	}
	return out, nil
}

// ClearPresence deletes each host's presence that instanceID holds (or
// that has expired anyway), under one lock.
func (c *Coord) ClearPresence(_ context.Context, instanceID string, hostIDs []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for _, h := range hostIDs {
		p, ok := c.presence[h]
		if ok && (p.instance == instanceID || !now.Before(p.expires)) {
			delete(c.presence, h)
		}
	}
	return nil
}

// CountPresence counts live presences, dropping expired ones on the way.
// It walks the whole map, which is fine for the host counts one process
// holds.
func (c *Coord) CountPresence(context.Context) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var n int64
	for h, p := range c.presence {
		if now.Before(p.expires) {
			n++
		} else {
			delete(c.presence, h)
		}
	}
	return n, nil
}
