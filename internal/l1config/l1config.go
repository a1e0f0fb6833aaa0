// Package l1config carries out L1 configuration writes (bid, secret_key,
// report URL and webhook format of a host) from the three entries of spec
// 6.1: it validates the change, stores it together with its webhook
// delivery in one transaction (the delivery signed with the secret the
// change replaces), wakes the delivery worker and tells an online agent.
// docs/webhooks.md describes what the receiver gets.
package l1config

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/webhooks"
)

// Error codes owned by this package (spec section 7).
const (
	CodeInvalidBID       = "invalid_bid"
	CodeInvalidSecretKey = "invalid_secret_key"
	CodeInvalidURL       = "invalid_url"
	CodeURLNotAllowed    = "url_not_allowed"
	CodeInvalidFormat    = "invalid_webhook_format"
)

// Limits of an L1 configuration.
const (
	MaxBID    = 1<<53 - 1 // JavaScript clients read bids exactly
	MaxURLLen = 2048
)

// Request is an L1 configuration write. WebhookFormat "" keeps the host's
// format.
type Request struct {
	BID           int64
	SecretKey     string
	URL           string
	WebhookFormat string
}

// Change is what a write stores on the host row.
type Change struct {
	BID           int64
	ReportURL     string
	SecretSealed  []byte
	WebhookFormat string
}

// BuildFunc makes the change and its delivery from the host row as locked
// inside the write's transaction (with its current sealed secret).
type BuildFunc func(h hosts.Host, sec hosts.Secrets) (Change, deliveries.Delivery, error)

// Store is what package l1config needs from storage.
type Store interface {
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error
	// HostByID returns any undeleted host with its secrets; hosts.ErrNotFound.
	HostByID(ctx context.Context, id string) (hosts.Host, hosts.Secrets, error)
}

// Tx is the plain storage operations of an L1 configuration change,
// inside one unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// LockHost reads the undeleted host id (the owner's; any owner's for
	// owner "") with its secrets and locks it until the unit of work
	// ends; hosts.ErrNotFound.
	LockHost(ctx context.Context, owner, id string) (hosts.Host, hosts.Secrets, error)
	// BIDTaken reports whether the user has a host other than exceptID,
	// deleted ones included, with bid.
	BIDTaken(ctx context.Context, userID string, bid int64, exceptID string) (bool, error)
	// SetL1 writes ch to the host and returns it; hosts.ErrBIDTaken when
	// the schema refuses the bid (a clash BIDTaken could not see yet).
	SetL1(ctx context.Context, id string, ch Change) (hosts.Host, error)
	// Issue applies an issuance to the owner's host as hosts.Store.Issue
	// does.
	Issue(ctx context.Context, owner, id string, iss hosts.Issuance) (hosts.Host, hosts.Secrets, error)
	// QueueDelivery queues a webhook delivery.
	QueueDelivery(ctx context.Context, d deliveries.Delivery) error
}

// UpdateL1 locks the undeleted host id (the owner's; any owner's for
// owner ""), calls build with it, so the delivery is signed with the
// secret the change replaces even when two writes to one host race,
// writes the change and queues the delivery, all in one unit of work of
// st, and returns the updated host. hosts.ErrNotFound; hosts.ErrBIDTaken
// when the owner has another host (deleted ones included) with the new
// bid; build's error as is.
func UpdateL1(ctx context.Context, st Store, owner, id string, build BuildFunc) (hosts.Host, error) {
	var out hosts.Host
	err := st.Tx(ctx, func(tx Tx) error {
		h, sec, err := tx.LockHost(ctx, owner, id)
		if err != nil {
			return err
		}
		ch, del, err := build(h, sec)
		if err != nil {
			return err
		}
		switch taken, err := tx.BIDTaken(ctx, h.UserID, ch.BID, h.ID); {
		case err != nil:
			return err
		case taken:
			return hosts.ErrBIDTaken
		}
		if out, err = tx.SetL1(ctx, h.ID, ch); err != nil {
			return err
		}
		return tx.QueueDelivery(ctx, del)
	})
	if err != nil {
		return hosts.Host{}, err
	}
	return out, nil
}

// RotateSecret applies the rotate-secret issuance iss to the owner's
// undeleted host as hosts.Store.Issue does, and queues the delivery
// queue makes from the host row as locked before the change, in one unit
// of work of st. hosts.ErrNotFound; queue's error as is.
func RotateSecret(ctx context.Context, st Store, owner, id string, iss hosts.Issuance,
	queue func(h hosts.Host, sec hosts.Secrets) (deliveries.Delivery, error)) (hosts.Host, hosts.Secrets, error) {
	var (
		out    hosts.Host
		outSec hosts.Secrets
	)
	err := st.Tx(ctx, func(tx Tx) error {
		h, sec, err := tx.LockHost(ctx, owner, id)
		if err != nil {
			return err
		}
		del, err := queue(h, sec)
		if err != nil {
			return err
		}
		if out, outSec, err = tx.Issue(ctx, owner, id, iss); err != nil {
			return err
		}
		return tx.QueueDelivery(ctx, del)
	})
	if err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	return out, outSec, nil
}

// Validate checks a request without touching anything. allowPrivate lets
// the URL name a loopback, private or link-local address literally (or
// localhost), for development and tests.
func Validate(r Request, allowPrivate bool) error {
	if r.BID <= 0 || r.BID > MaxBID {
		return apperr.New(CodeInvalidBID, fmt.Sprintf("bid must be a positive integer at most %d", int64(MaxBID)))
	}
	if len(r.SecretKey) != 32 || !isHex(r.SecretKey) {
		return apperr.New(CodeInvalidSecretKey, "secret_key must be exactly 32 hexadecimal characters")
	}
	if err := checkURL(r.URL, allowPrivate); err != nil {
		return err
	}
	if r.WebhookFormat != "" {
		if _, err := webhooks.ParseFormat(r.WebhookFormat); err != nil {
			return apperr.New(CodeInvalidFormat, `webhook_format must be "A" or "B"`)
		}
	}
	return nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// checkURL accepts "" (no report URL) or an absolute http(s) URL. The
// literal-address check here is a courtesy at write time; the delivery
// client checks every resolved address again when it connects.
func checkURL(raw string, allowPrivate bool) error {
	if raw == "" {
		return nil
	}
	bad := apperr.New(CodeInvalidURL, fmt.Sprintf("url must be empty or an absolute http(s) URL of at most %d characters", MaxURLLen))
	if len(raw) > MaxURLLen || strings.ContainsAny(raw, " \t\r\n") {
		return bad
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return bad
	}
	if allowPrivate {
		return nil
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return apperr.New(CodeURLNotAllowed, "url must not point at localhost")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		// The dialer's own judge, so that an address refused at connect
		// time (an IPv6 address embedding a private IPv4 one included) is
		// refused here too.
		if refused, ok := errors.AsType[*deliveries.RefusedError](deliveries.CheckAddr(a)); ok {
			return apperr.New(CodeURLNotAllowed, "url must not point at a loopback, private, link-local or otherwise non-public address: "+
				strings.TrimPrefix(refused.Error(), "target refused: "))
		}
	}
	return nil
}

// mapStoreError turns the store's errors into the caller's.
func mapStoreError(err error) error {
	switch {
	case errors.Is(err, hosts.ErrNotFound):
		return apperr.NotFound("host")
	case errors.Is(err, hosts.ErrBIDTaken):
		return apperr.New(hosts.CodeBIDCollision, "another of your hosts already has this bid; choose another")
	}
	return err
}
