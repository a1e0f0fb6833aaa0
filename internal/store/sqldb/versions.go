package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/versions"
)

var _ versions.Store = (*DB)(nil)

const versionCols = "id, version, channel, exe_url, exe_sha256, exe_size_bytes, min_supported_protocol, changelog, released_at, yanked_at"

func scanVersion(r rowScanner) (versions.Version, error) {
	var v versions.Version
	err := r.Scan(&v.ID, &v.Version, &v.Channel, &v.ExeURL, &v.ExeSHA256, &v.ExeSizeBytes, &v.MinSupportedProtocol,
		&v.Changelog, timeDest{&v.ReleasedAt}, nullTimeDest{&v.YankedAt})
	return v, err
}

// PublishVersion implements versions.Store.
func (d *DB) PublishVersion(ctx context.Context, v versions.Version, rec audit.Entry) error {
	return d.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_versions (`+versionCols+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			v.ID, v.Version, v.Channel, v.ExeURL, v.ExeSHA256, v.ExeSizeBytes, v.MinSupportedProtocol, v.Changelog,
			d.timeArg(v.ReleasedAt), d.nullTimeArg(v.YankedAt))
		if d.dialect.IsUniqueViolation(err) {
			return versions.ErrExists
		}
		if err != nil {
			return d.errorf("publish version", err)
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(rec, v.ReleasedAt))
	})
}

// ListVersions implements versions.Store.
func (d *DB) ListVersions(ctx context.Context, f versions.Filter, p paging.Page) ([]versions.Version, int, error) {
	var w where
	if f.Channel != "" {
		w.add(`channel = $%d`, f.Channel)
	}
	if !f.IncludeYanked {
		w.addSQL(`yanked_at IS NULL`)
	}
	return listPage(ctx, d, "versions", versionCols, "gateway_versions", w, "released_at DESC, id DESC", p, scanVersion)
}

// GetVersion implements versions.Store.
func (d *DB) GetVersion(ctx context.Context, version string) (versions.Version, error) {
	v, err := scanVersion(d.read.QueryRowContext(ctx, `SELECT `+versionCols+` FROM gateway_versions WHERE version = $1`, version))
	if errors.Is(err, sql.ErrNoRows) {
		return versions.Version{}, versions.ErrNotFound
	}
	if err != nil {
		return versions.Version{}, d.errorf("get version", err)
	}
	return v, nil
}

// YankVersion implements versions.Store.
func (d *DB) YankVersion(ctx context.Context, version string, at time.Time, rec audit.Entry) (versions.Version, error) {
	var v versions.Version
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		v, err = scanVersion(tx.QueryRowContext(ctx, `UPDATE gateway_versions SET yanked_at = $1
			WHERE version = $2 AND yanked_at IS NULL RETURNING `+versionCols, d.timeArg(at), version))
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM gateway_versions WHERE version = $1`, version).Scan(&one)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				return versions.ErrNotFound
			case err != nil:
				return d.errorf("read version", err)
			}
			return versions.ErrYanked
		}
		if err != nil {
			return d.errorf("yank version", err)
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(rec, at))
	})
	return v, err
}
