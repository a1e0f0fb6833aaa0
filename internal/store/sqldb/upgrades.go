package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/hosts"
	"hostgate/internal/upgrades"
)

// Upgrades is the hosts' upgrades' storage, on the shared core.
type Upgrades struct{ d *DB }

var (
	_ upgrades.Store = Upgrades{}
	_ upgrades.Tx    = upgradesTx{}
)

// Upgrades returns the upgrades' storage.
func (d *DB) Upgrades() upgrades.Store { return Upgrades{d} }

// Tx implements upgrades.Store.
func (s Upgrades) Tx(ctx context.Context, fn func(upgrades.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(upgradesTx{t}) })
}

// upgradesTx is the upgrades' unit of work.
type upgradesTx struct{ *tx }

const upgradeCols = "host_id, version, from_version, state, reason, requested_by, requested_at, updated_at"

// finishedStates is the SQL list of the states that end an upgrade.
const finishedStates = "('done', 'failed', 'rolled_back')"

func scanUpgrade(r rowScanner) (upgrades.Upgrade, error) {
	var u upgrades.Upgrade
	err := r.Scan(&u.HostID, &u.Version, &u.FromVersion, &u.State, &u.Reason, &u.RequestedBy,
		timeDest{&u.RequestedAt}, timeDest{&u.UpdatedAt})
	return u, err
}

const (
	lockHost          = `SELECT 1 FROM hosts WHERE id = $1 AND deleted_at IS NULL`
	lockHostForUpdate = lockHost + ` FOR NO KEY UPDATE`
)

// LockHostUpgrade implements upgrades.Tx.
func (t upgradesTx) LockHostUpgrade(ctx context.Context, hostID string) (upgrades.Upgrade, bool, error) {
	found, err := t.exists(ctx, "read host", t.lock(lockHost, lockHostForUpdate), hostID)
	switch {
	case err != nil:
		return upgrades.Upgrade{}, false, err
	case !found:
		return upgrades.Upgrade{}, false, hosts.ErrNotFound
	}
	u, err := scanUpgrade(t.tx.tx.QueryRowContext(ctx, `SELECT `+upgradeCols+` FROM host_upgrades WHERE host_id = $1`, hostID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return upgrades.Upgrade{}, false, nil
	case err != nil:
		return upgrades.Upgrade{}, false, t.d.errorf("read upgrade", err)
	}
	return u, true, nil
}

// SaveUpgrade implements upgrades.Tx.
func (t upgradesTx) SaveUpgrade(ctx context.Context, u upgrades.Upgrade) error {
	d := t.d
	_, err := t.tx.tx.ExecContext(ctx, `INSERT INTO host_upgrades (`+upgradeCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (host_id) DO UPDATE SET version = excluded.version, from_version = excluded.from_version,
			state = excluded.state, reason = excluded.reason, requested_by = excluded.requested_by,
			requested_at = excluded.requested_at, updated_at = excluded.updated_at`,
		u.HostID, u.Version, u.FromVersion, string(u.State), u.Reason, u.RequestedBy,
		d.timeArg(u.RequestedAt), d.timeArg(u.UpdatedAt))
	if err != nil {
		return d.errorf("start upgrade", err)
	}
	return nil
}

// AppendHostEvent implements upgrades.Tx.
func (t upgradesTx) AppendHostEvent(ctx context.Context, hostID string, e hosts.Event) error {
	return t.d.insertHostEvent(ctx, t.tx.tx, hostID, e, hosts.KeepEvents)
}

const (
	selectUpgrade          = `SELECT ` + upgradeCols + ` FROM host_upgrades WHERE host_id = $1 AND version = $2`
	selectUpgradeForUpdate = selectUpgrade + ` FOR UPDATE`
)

// LockUpgrade implements upgrades.Tx.
func (t upgradesTx) LockUpgrade(ctx context.Context, hostID, version string) (upgrades.Upgrade, error) {
	u, err := scanUpgrade(t.tx.tx.QueryRowContext(ctx, t.lock(selectUpgrade, selectUpgradeForUpdate), hostID, version))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return upgrades.Upgrade{}, upgrades.ErrNotFound
	case err != nil:
		return upgrades.Upgrade{}, t.d.errorf("read upgrade", err)
	}
	return u, nil
}

// SetUpgradeState implements upgrades.Tx.
func (t upgradesTx) SetUpgradeState(ctx context.Context, hostID string, to agentproto.UpgradeState, reason string,
	at time.Time) (upgrades.Upgrade, error) {
	u, err := scanUpgrade(t.tx.tx.QueryRowContext(ctx, `UPDATE host_upgrades SET state = $1, reason = $2, updated_at = $3
		WHERE host_id = $4 RETURNING `+upgradeCols, string(to), reason, t.d.timeArg(at), hostID))
	if err != nil {
		return upgrades.Upgrade{}, t.d.errorf("advance upgrade", err)
	}
	return u, nil
}

// GetUpgrade implements upgrades.Store.
func (s Upgrades) GetUpgrade(ctx context.Context, hostID string) (upgrades.Upgrade, error) {
	d := s.d
	u, err := scanUpgrade(d.read.QueryRowContext(ctx, `SELECT `+upgradeCols+` FROM host_upgrades WHERE host_id = $1`, hostID))
	if errors.Is(err, sql.ErrNoRows) {
		return upgrades.Upgrade{}, upgrades.ErrNotFound
	}
	if err != nil {
		return upgrades.Upgrade{}, d.errorf("get upgrade", err)
	}
	return u, nil
}

// StaleUpgrades implements upgrades.Store.
func (s Upgrades) StaleUpgrades(ctx context.Context, before time.Time, limit int) ([]upgrades.Upgrade, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx, `SELECT `+upgradeCols+` FROM host_upgrades
		WHERE state NOT IN `+finishedStates+` AND updated_at < $1 ORDER BY updated_at LIMIT $2`,
		d.timeArg(before), int64(limit))
	if err != nil {
		return nil, d.errorf("stale upgrades", err)
	}
	return collect(rows, scanUpgrade)
}
