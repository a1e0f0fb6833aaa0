package sqldb

import (
	"context"
	"database/sql"
	"time"

	"hostgate/internal/keyring"
)

var _ keyring.Store = (*DB)(nil)

// ServerKey returns the key stored under name, storing candidate first
// when there is none. Insert-if-absent then read, rather than read then
// insert, so that racing callers (other hub instances included) all read
// the one row the first insert stored.
func (d *DB) ServerKey(ctx context.Context, name string, candidate []byte) ([]byte, error) {
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
