// Package accounts manages users: registration, login with argon2id
// passwords and lockout, access tokens and rotating refresh tokens, logout,
// profile, and suspension by an admin.
package accounts

import "time"

// Status is a user's lifecycle state.
type Status string

// User statuses (spec section 3).
const (
	StatusActive    Status = "active"
	StatusSuspended Status = "suspended"
)

// User is a customer account.
type User struct {
	ID          string    `json:"id"`
	Email       string    `json:"email"`
	DisplayName string    `json:"display_name"`
	Status      Status    `json:"status"`
	CreatedAt   time.Time `json:"created_at"`
}
