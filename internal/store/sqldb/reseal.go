package sqldb

import (
	"context"
	"database/sql"
	"fmt"

	"hostgate/internal/keyring"
)

// Reseal is the storage of the sealed values, read and replaced when the
// server key is rotated, on the shared core.
type Reseal struct{ d *DB }

var _ keyring.ResealStore = Reseal{}

// Reseal returns the sealed values' storage for re-sealing.
func (d *DB) Reseal() keyring.ResealStore { return Reseal{d} }

// sealedColumns are, by kind, the table and column of each sealed value
// and the row's key column; the row's key is its aad.
var sealedColumns = map[string]struct{ table, column, key string }{
	keyring.SealedHostSecret:        {"hosts", "secret_sealed", "id"},
	keyring.SealedDeliverySecrets:   {"webhook_deliveries", "secrets_sealed", "id"},
	keyring.SealedUserWebhookSecret: {"user_webhook_secrets", "secret_sealed", "user_id"},
}

func sealedColumn(kind string) (table, column, key string, err error) {
	c, ok := sealedColumns[kind]
	if !ok {
		return "", "", "", fmt.Errorf("store: unknown sealed kind %q", kind)
	}
	return c.table, c.column, c.key, nil
}

// SealedValues implements keyring.ResealStore: every row, deleted hosts
// and finished deliveries included.
func (s Reseal) SealedValues(ctx context.Context, kind, after string, limit int) ([]keyring.Sealed, error) {
	d := s.d
	table, column, key, err := sealedColumn(kind)
	if err != nil {
		return nil, err
	}
	rows, err := d.read.QueryContext(ctx,
		`SELECT `+key+`, `+column+` FROM `+table+` WHERE `+key+` > $1 ORDER BY `+key+` LIMIT $2`, after, limit)
	if err != nil {
		return nil, d.errorf("sealed values", err)
	}
	vals, err := collect(rows, func(r rowScanner) (keyring.Sealed, error) {
		var s keyring.Sealed
		err := r.Scan(&s.ID, &s.Value)
		return s, err
	})
	if err != nil {
		return nil, d.errorf("sealed values", err)
	}
	return vals, nil
}

// ReplaceSealed implements keyring.ResealStore. Each update is
// conditional on the value read, so a row a serving hub rewrote meanwhile
// keeps the hub's value.
func (s Reseal) ReplaceSealed(ctx context.Context, kind string, rs []keyring.Replacement) (int, error) {
	d := s.d
	table, column, key, err := sealedColumn(kind)
	if err != nil {
		return 0, err
	}
	n := 0
	err = d.withTx(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, r := range rs {
			res, err := tx.ExecContext(ctx,
				`UPDATE `+table+` SET `+column+` = $1 WHERE `+key+` = $2 AND `+column+` = $3`, r.New, r.ID, r.Old)
			if err != nil {
				return d.errorf("replace sealed value", err)
			}
			k, err := res.RowsAffected()
			if err != nil {
				return d.errorf("replace sealed value", err)
			}
			n += int(k)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
