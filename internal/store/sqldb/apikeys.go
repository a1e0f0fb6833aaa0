package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/apikeys"
)

// APIKeys is the client API keys' storage, on the shared core.
type APIKeys struct{ d *DB }

var _ apikeys.Store = APIKeys{}

// APIKeys returns the client API keys' storage.
func (d *DB) APIKeys() apikeys.Store { return APIKeys{d} }

// keyCols are the stored columns of apikeys.Key, in scanKey's order.
// Prefix is not stored: the service derives it from the id.
const keyCols = "id, user_id, name, last_used_at, created_at"

func scanKey(r rowScanner) (apikeys.Key, error) {
	var k apikeys.Key
	err := r.Scan(&k.ID, &k.UserID, &k.Name, nullTimeDest{&k.LastUsedAt}, timeDest{&k.CreatedAt})
	return k, err
}

// CreateKey stores k with the hash of its secret. LastUsedAt is stored
// as given (normally nil).
func (s APIKeys) CreateKey(ctx context.Context, k apikeys.Key, secretHash []byte) error {
	d := s.d
	_, err := d.write.ExecContext(ctx,
		`INSERT INTO api_keys (`+keyCols+`, secret_hash) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.UserID, k.Name, d.nullTimeArg(k.LastUsedAt), d.timeArg(k.CreatedAt), secretHash)
	if err != nil {
		return d.errorf("create api key", err)
	}
	return nil
}

// ListKeys returns the owner's undeleted keys, newest first.
func (s APIKeys) ListKeys(ctx context.Context, owner string) ([]apikeys.Key, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx,
		`SELECT `+keyCols+` FROM api_keys WHERE user_id = $1 AND deleted_at IS NULL
		 ORDER BY created_at DESC, id DESC`, owner)
	if err != nil {
		return nil, d.errorf("list api keys", err)
	}
	keys, err := collect(rows, scanKey)
	if err != nil {
		return nil, d.errorf("list api keys", err)
	}
	return keys, nil
}

// ListAllKeys implements apikeys.Store over api_keys_owner_all (0016).
func (s APIKeys) ListAllKeys(ctx context.Context, owner string, limit int) ([]apikeys.AdminKey, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx,
		`SELECT id, name, created_at, last_used_at, deleted_at FROM api_keys WHERE user_id = $1
		 ORDER BY created_at DESC, id DESC LIMIT $2`, owner, int64(max(limit, 1)))
	if err != nil {
		return nil, d.errorf("list api keys", err)
	}
	keys, err := collect(rows, func(r rowScanner) (apikeys.AdminKey, error) {
		var k apikeys.AdminKey
		return k, r.Scan(&k.ID, &k.Name, timeDest{&k.CreatedAt}, nullTimeDest{&k.LastUsedAt}, nullTimeDest{&k.RevokedAt})
	})
	if err != nil {
		return nil, d.errorf("list api keys", err)
	}
	return keys, nil
}

// CountKeys implements apikeys.Store over api_keys_owner_newest.
func (s APIKeys) CountKeys(ctx context.Context, owner string) (int, error) {
	d := s.d
	var n int
	err := d.read.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE user_id = $1 AND deleted_at IS NULL`, owner).Scan(&n)
	if err != nil {
		return 0, d.errorf("count api keys", err)
	}
	return n, nil
}

// DeleteKey soft-deletes the owner's undeleted key; ErrNotFound.
func (s APIKeys) DeleteKey(ctx context.Context, owner, id string, now time.Time) error {
	d := s.d
	res, err := d.write.ExecContext(ctx,
		`UPDATE api_keys SET deleted_at = $1 WHERE id = $2 AND user_id = $3 AND deleted_at IS NULL`,
		d.timeArg(now), id, owner)
	if err != nil {
		return d.errorf("delete api key", err)
	}
	return affected(res, apikeys.ErrNotFound)
}

const keyForAuth = `SELECT k.user_id, k.secret_hash FROM api_keys k JOIN users u ON u.id = k.user_id
	WHERE k.id = $1 AND k.deleted_at IS NULL AND u.status = $2`

// KeyForAuth returns the owner and secret hash of an undeleted key whose
// owner is active, read together in one statement; ErrNotFound otherwise.
func (s APIKeys) KeyForAuth(ctx context.Context, id string) (string, []byte, error) {
	d := s.d
	var userID string
	var hash []byte
	err := d.readRow(ctx, keyForAuth, id, string(accounts.StatusActive)).Scan(&userID, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, apikeys.ErrNotFound
	}
	if err != nil {
		return "", nil, d.errorf("read api key", err)
	}
	return userID, hash, nil
}

// TouchKeys moves last_used_at of the batch's undeleted keys up to their
// times, never back, in one transaction. Unknown and deleted keys are
// skipped. Keys are updated in id order, so that hub instances flushing
// overlapping batches lock rows in the same order and cannot deadlock.
func (s APIKeys) TouchKeys(ctx context.Context, used map[string]time.Time) error {
	d := s.d
	if len(used) == 0 {
		return nil
	}
	return d.withTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx,
			`UPDATE api_keys SET last_used_at = $1
			 WHERE id = $2 AND deleted_at IS NULL AND (last_used_at IS NULL OR last_used_at < $1)`)
		if err != nil {
			return d.errorf("touch api keys", err)
		}
		defer func() { _ = stmt.Close() }()
		for _, id := range slices.Sorted(maps.Keys(used)) {
			if _, err := stmt.ExecContext(ctx, d.timeArg(used[id]), id); err != nil {
				return d.errorf("touch api keys", err)
			}
		}
		return nil
	})
}
