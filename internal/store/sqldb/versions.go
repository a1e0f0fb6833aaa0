package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/paging"
	"hostgate/internal/versions"
)

// Versions is the versions' storage, on the shared core.
type Versions struct{ d *DB }

var (
	_ versions.Store = Versions{}
	_ versions.Tx    = versionsTx{}
)

// Versions returns the versions' storage.
func (d *DB) Versions() versions.Store { return Versions{d} }

// Tx implements versions.Store.
func (s Versions) Tx(ctx context.Context, fn func(versions.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(versionsTx{t}) })
}

// versionsTx is the versions' unit of work.
type versionsTx struct{ *tx }

const versionCols = "id, version, channel, exe_url, exe_sha256, exe_size_bytes, min_supported_protocol, changelog, released_at, yanked_at"

func scanVersion(r rowScanner) (versions.Version, error) {
	var v versions.Version
	err := r.Scan(&v.ID, &v.Version, &v.Channel, &v.ExeURL, &v.ExeSHA256, &v.ExeSizeBytes, &v.MinSupportedProtocol,
		&v.Changelog, timeDest{&v.ReleasedAt}, nullTimeDest{&v.YankedAt})
	return v, err
}

// InsertVersion implements versions.Tx.
func (t versionsTx) InsertVersion(ctx context.Context, v versions.Version) error {
	d := t.d
	_, err := t.tx.tx.ExecContext(ctx, `INSERT INTO gateway_versions (`+versionCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		v.ID, v.Version, v.Channel, v.ExeURL, v.ExeSHA256, v.ExeSizeBytes, v.MinSupportedProtocol, v.Changelog,
		d.timeArg(v.ReleasedAt), d.nullTimeArg(v.YankedAt))
	if d.dialect.IsUniqueViolation(err) {
		return versions.ErrExists
	}
	if err != nil {
		return d.errorf("publish version", err)
	}
	return nil
}

// ListVersions implements versions.Store.
func (s Versions) ListVersions(ctx context.Context, f versions.Filter, p paging.Page) ([]versions.Version, int, error) {
	d := s.d
	var w where
	if f.Channel != "" {
		w.add(`channel = $%d`, f.Channel)
	}
	if !f.IncludeYanked {
		w.addSQL(`yanked_at IS NULL`)
	}
	return listPage(ctx, d, "versions", versionCols, "gateway_versions", w, keyOrder{Col: "released_at", ColKind: kindTime, Tie: "id", Desc: true}, p, scanVersion)
}

// GetVersion implements versions.Store.
func (s Versions) GetVersion(ctx context.Context, version string) (versions.Version, error) {
	d := s.d
	v, err := scanVersion(d.read.QueryRowContext(ctx, `SELECT `+versionCols+` FROM gateway_versions WHERE version = $1`, version))
	if errors.Is(err, sql.ErrNoRows) {
		return versions.Version{}, versions.ErrNotFound
	}
	if err != nil {
		return versions.Version{}, d.errorf("get version", err)
	}
	return v, nil
}

const (
	selectVersion          = `SELECT ` + versionCols + ` FROM gateway_versions WHERE version = $1`
	selectVersionForUpdate = selectVersion + ` FOR UPDATE`
)

// LockVersion implements versions.Tx.
func (t versionsTx) LockVersion(ctx context.Context, version string) (versions.Version, error) {
	v, err := scanVersion(t.tx.tx.QueryRowContext(ctx, t.lock(selectVersion, selectVersionForUpdate), version))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return versions.Version{}, versions.ErrNotFound
	case err != nil:
		return versions.Version{}, t.d.errorf("read version", err)
	}
	return v, nil
}

// SetYankedAt implements versions.Tx.
func (t versionsTx) SetYankedAt(ctx context.Context, id string, at time.Time) (versions.Version, error) {
	v, err := scanVersion(t.tx.tx.QueryRowContext(ctx, `UPDATE gateway_versions SET yanked_at = $1 WHERE id = $2
		RETURNING `+versionCols, t.d.timeArg(at), id))
	if err != nil {
		return versions.Version{}, t.d.errorf("yank version", err)
	}
	return v, nil
}
