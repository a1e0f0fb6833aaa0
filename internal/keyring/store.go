package keyring

import "context"

// Store keeps the server's generated keys, so every hub instance on one
// database uses the same ones.
type Store interface {
	// ServerKey returns the key stored under name. When there is none it
	// stores candidate and returns it; when several callers race, all get the
	// first one stored.
	ServerKey(ctx context.Context, name string, candidate []byte) ([]byte, error)
}
