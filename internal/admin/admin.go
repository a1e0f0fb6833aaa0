// Package admin manages console administrators: accounts, login, roles, and
// the policy that says which roles may call which admin route.
package admin

import "time"

// Admin statuses. A disabled admin can neither sign in nor use a token
// issued before (`hostgate admin disable`).
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
)

// Admin is a console administrator.
type Admin struct {
	ID        string    `json:"id"`
	Username  string    `json:"username"`
	Role      Role      `json:"role"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	// LastLoginAt is when the admin last signed in; nil before the first
	// time.
	LastLoginAt *time.Time `json:"last_login_at,omitempty"`
}

// EnabledOwner reports whether a is an owner that may act: the kind of
// admin an installation must always keep one of (CodeLastOwner).
func (a Admin) EnabledOwner() bool { return a.Role == Owner && a.Status == StatusActive }
