package sqldb

import (
	"context"
	"database/sql"
	"time"

	"hostgate/internal/keyring"
)

// Keys is the server keys' storage, on the shared core.
type Keys struct{ d *DB }

var _ keyring.Store = Keys{}

// Keys returns the server keys' storage.
func (d *DB) Keys() keyring.Store { return Keys{d} }

// ServerKey returns the key stored under name, storing candidate first
// when there is none. Insert-if-absent then read, rather than read then
// insert, so that racing callers (other hub instances included) all read
// the one row the first insert stored.
func (s Keys) ServerKey(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	d := s.d
	var key []byte
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO server_keys (name, key, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
			name, candidate, d.timeArg(time.Now()))
		if err != nil {
			return d.errorf("store server key", err)
		}
		if err := tx.QueryRowContext(ctx, `SELECT key FROM server_keys WHERE name = $1`, name).Scan(&key); err != nil {
			return d.errorf("read server key", err)
		}
		return nil
	})
	return key, err
}
