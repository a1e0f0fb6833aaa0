// Package audit records who changed what through the admin console. Every
// admin POST, PUT or DELETE that succeeds writes exactly one Entry, in the
// same store transaction as the change it records; a refused or failed write
// writes none. Entries are never updated or deleted.
package audit

import (
	"context"
	"encoding/json"
	"time"

	"hostgate/internal/paging"
)

// Action names, as in spec section 4.4.
const (
	ActionUserSuspend       = "user.suspend"
	ActionUserResume        = "user.resume"
	ActionUserBalanceAdjust = "user.balance.adjust"
	ActionPricingUpdate     = "pricing.update"
	ActionPricingCreate     = "pricing.create"
	ActionRechargeRefund    = "recharge.refund"
	ActionVersionPublish    = "gw_version.publish"
	ActionVersionYank       = "gw_version.yank"
	ActionHostPushUpgrade   = "host.push_upgrade"
	ActionHostDelete        = "host.delete"
	ActionHostBan           = "host.ban"
	ActionHostUnban         = "host.unban"
	ActionHostTerminalOpen  = "host.terminal_open"
	ActionBillingModeChange = "billing.mode_change"
	// Admin management: by an owner through the console, or by
	// `hostgate admin disable|enable|set-role`, whose actor is CLIActor.
	ActionAdminCreate     = "admin.create"
	ActionAdminRoleChange = "admin.role_change"
	ActionAdminDisable    = "admin.disable"
	ActionAdminEnable     = "admin.enable"
)

// Entry is one audit row.
type Entry struct {
	ID         string          `json:"id"`
	AdminID    string          `json:"admin_id"`
	AdminRole  string          `json:"admin_role"`
	Action     string          `json:"action"`
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	RequestID  string          `json:"request_id"`
	ClientIP   string          `json:"client_ip"`
	Detail     json.RawMessage `json:"detail,omitempty"`
	CreatedAt  time.Time       `json:"created_at"`
}

// Actor is the admin behind a request, with the request facts every entry carries.
type Actor struct {
	AdminID   string
	Role      string
	RequestID string
	ClientIP  string
}

// CLIActor is the actor of changes made with the hostgate command on the
// server rather than through the console: no admin, role "cli".
var CLIActor = Actor{AdminID: "cli", Role: "cli"}

// ConfigActor is the actor of changes the hub makes from its own
// configuration at start (HOSTGATE_BILLING_MODE on a new installation).
var ConfigActor = Actor{AdminID: "config", Role: "config"}

// Entry builds the entry for an action by this actor on a target. ID and
// CreatedAt are filled by the store (see At).
func (a Actor) Entry(action, targetType, targetID string) Entry {
	return Entry{
		AdminID: a.AdminID, AdminRole: a.Role, Action: action,
		TargetType: targetType, TargetID: targetID,
		RequestID: a.RequestID, ClientIP: a.ClientIP,
	}
}

// WithDetail returns e carrying v, encoded as JSON, as its detail.
func (e Entry) WithDetail(v any) Entry {
	b, err := json.Marshal(v)
	if err == nil {
		e.Detail = b
	}
	return e
}

// At returns e stamped at t, unless it carries a time already: the time of
// the change it records, rather than the moment the store writes it.
func (e Entry) At(t time.Time) Entry {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = t
	}
	return e
}

// Filter narrows a listing; empty fields match everything.
type Filter struct {
	AdminID    string
	Action     string
	TargetType string
	// Since and Until bound the entries' time: at or after Since, before
	// Until; the zero time leaves that end open.
	Since, Until time.Time
}

// Appender appends an entry. Every domain's unit of work (its store's
// Tx) is one, so a change and the entry that records it commit together;
// the store fills a zero ID and a zero CreatedAt (with now).
type Appender interface {
	AppendAudit(ctx context.Context, e Entry) error
}

// Store is what package audit needs from storage.
type Store interface {
	// AppendAudit writes e on its own, for admin writes that change nothing
	// else in the store (opening a terminal, for example).
	Appender
	// ListAudit returns matching entries, newest first, and the match count.
	ListAudit(ctx context.Context, f Filter, p paging.Page) ([]Entry, int, error)
}
