// Package apikeys issues and checks the client API's keys. A key reads
// ak_<key_id>.<secret>; only the SHA-256 of the secret is stored, looked up
// by id and compared in constant time. Last-used times are batched.
package apikeys

import (
	"context"
	"errors"
	"time"
)

// Key is an API key as its owner sees it (never with the secret).
type Key struct {
	ID         string     `json:"id"`
	UserID     string     `json:"-"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
}

// AdminKey is a key as the back office sees it: revoked (deleted) keys
// too, never the secret or its hash.
type AdminKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at" doc:"null: never used"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty" doc:"When the owner deleted the key"`
}

// MaxAdminKeys bounds an admin's list of one user's keys (newest first).
const MaxAdminKeys = 500

// ErrNotFound: no such key, deleted, or another user's.
var ErrNotFound = errors.New("apikeys: key not found")

// Store is what package apikeys needs from storage.
type Store interface {
	// CreateKey stores k with the SHA-256 of its secret.
	CreateKey(ctx context.Context, k Key, secretHash []byte) error
	// ListKeys returns the owner's undeleted keys, newest first.
	ListKeys(ctx context.Context, owner string) ([]Key, error)
	// ListAllKeys returns up to limit of the owner's keys, deleted ones
	// too, newest first.
	ListAllKeys(ctx context.Context, owner string, limit int) ([]AdminKey, error)
	// CountKeys counts the owner's undeleted keys.
	CountKeys(ctx context.Context, owner string) (int, error)
	// DeleteKey soft-deletes the owner's key; ErrNotFound.
	DeleteKey(ctx context.Context, owner, id string, now time.Time) error
	// KeyForAuth returns the key's owner and secret hash, only when the key
	// is not deleted and its owner is active; ErrNotFound otherwise.
	KeyForAuth(ctx context.Context, id string) (userID string, secretHash []byte, err error)
	// TouchKeys sets last_used_at for a batch of keys (never moved back).
	TouchKeys(ctx context.Context, used map[string]time.Time) error
}
