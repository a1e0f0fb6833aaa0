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
}
