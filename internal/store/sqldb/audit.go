package sqldb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/audit"
	"hostgate/internal/paging"
)

// Audit is the audit log's storage, on the shared core.
type Audit struct{ d *DB }

var _ audit.Store = Audit{}

// Audit returns the audit log's storage.
func (d *DB) Audit() audit.Store { return Audit{d} }

const auditCols = "id, admin_id, admin_role, action, target_type, target_id, request_id, client_ip, detail, created_at"

// scanAudit scans auditCols.
func scanAudit(r rowScanner) (audit.Entry, error) {
	var e audit.Entry
	var detail []byte
	err := r.Scan(&e.ID, &e.AdminID, &e.AdminRole, &e.Action, &e.TargetType, &e.TargetID,
		&e.RequestID, &e.ClientIP, &detail, timeDest{&e.CreatedAt})
	if len(detail) > 0 {
		e.Detail = detail
	}
	return e, err
}

// withAuditDefaults fills what audit.Actor.Entry leaves to the store: a
// random ID and the creation time now.
func withAuditDefaults(e audit.Entry, now time.Time) audit.Entry {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now
	}
	return e
}

// AppendAudit writes e on its own, filling its ID and CreatedAt when zero.
func (s Audit) AppendAudit(ctx context.Context, e audit.Entry) error {
	d := s.d
	return d.insertAudit(ctx, d.write, withAuditDefaults(e, time.Now()))
}

// insertAudit writes e through q. It stays on the core: Audit and every
// unit of work (tx.AppendAudit) write through it.
func (d *DB) insertAudit(ctx context.Context, q queryer, e audit.Entry) error {
	var detail any // NULL when there is none
	if len(e.Detail) > 0 {
		detail = string(e.Detail) // text: jsonb parses it; SQLite keeps it as TEXT, not BLOB
	}
	_, err := q.ExecContext(ctx,
		`INSERT INTO audit_logs (`+auditCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		e.ID, e.AdminID, e.AdminRole, e.Action, e.TargetType, e.TargetID,
		e.RequestID, e.ClientIP, detail, d.timeArg(e.CreatedAt))
	if err != nil {
		return d.errorf("append audit", err)
	}
	return nil
}

// ListAudit returns matching entries, newest first, and the count of all
// matches, both from one snapshot.
func (s Audit) ListAudit(ctx context.Context, f audit.Filter, p paging.Page) ([]audit.Entry, int, error) {
	d := s.d
	return listPage(ctx, d, "audit", auditCols, "audit_logs", d.auditWhere(f), newestFirst, p, scanAudit)
}

func (d *DB) auditWhere(f audit.Filter) where {
	var w where
	for _, c := range []struct{ col, val string }{
		{"admin_id", f.AdminID}, {"action", f.Action}, {"target_type", f.TargetType},
	} {
		if c.val != "" {
			w.add(c.col+` = $%d`, c.val)
		}
	}
	if !f.Since.IsZero() {
		w.add(`created_at >= $%d`, d.timeArg(f.Since))
	}
	if !f.Until.IsZero() {
		w.add(`created_at < $%d`, d.timeArg(f.Until))
	}
	return w
}
