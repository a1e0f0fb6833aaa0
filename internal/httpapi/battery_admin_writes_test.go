package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"hostgate/internal/battery"
	"hostgate/internal/hubtest"
)

// adjustKeyed sends an admin balance adjustment with an Idempotency-Key
// ("" for none).
func adjustKeyed(t *testing.T, h *hubtest.Hub, admin, userID, key string, tokens float64, reason string) *hubtest.Response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"tokens": tokens, "reason": reason})
	req, err := http.NewRequest("POST", h.URL+"/v1/admin/users/"+userID+"/balance/adjust", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+admin)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return h.Client(t).Send(req)
}

// TestBatteryAdjustIdempotencyKey (T24): ten concurrent adjustments with
// one Idempotency-Key and one body make one change and ten identical
// answers; the key with another body, or from another admin on another
// user, is refused or separate as docs/billing.md says; without a key
// every call is a change of its own.
func TestBatteryAdjustIdempotencyKey(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		other := h.Register(t)
		fin, _ := h.Admin(t, "finance")
		fin2, _ := h.Admin(t, "finance")
		db := rawDB(t, h)

		const n = 10
		answers := make([]*hubtest.Response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { answers[i] = adjustKeyed(t, h, fin, u.User.ID, "topup-42", 12.5, "goodwill") })
		}
		wg.Wait()
		for i, a := range answers {
			if a.Status != 200 || !bytes.Equal(a.Body, answers[0].Body) {
				t.Fatalf("answer %d: %d %s, want 200 %s", i, a.Status, a.Body, answers[0].Body)
			}
		}
		got := ledgerOfUser(t, db, u.User.ID)
		adjusts := queryInt(t, db, "SELECT COUNT(*) FROM billing_events WHERE kind = 'adjust' AND user_id = '"+u.User.ID+"'")
		audits := queryInt(t, db, "SELECT COUNT(*) FROM audit_logs WHERE action = 'user.balance.adjust' AND target_id = '"+u.User.ID+"'")
		if got.Balance != 12_500 || adjusts != 1 || audits != 1 {
			t.Fatalf("after %d keyed repeats: balance %d units, %d adjust events, %d audit rows; want 12500, 1, 1", n, got.Balance, adjusts, audits)
		}
		// Later, the same again: the same answer, though the balance moved.
		adjustKeyed(t, h, fin, u.User.ID, "", 1, "other").Want(t, 200, "")
		if late := adjustKeyed(t, h, fin, u.User.ID, "topup-42", 12.5, "goodwill").Want(t, 200, ""); !bytes.Equal(late.Body, answers[0].Body) {
			t.Fatalf("a later repeat answered %s, want %s", late.Body, answers[0].Body)
		}

		// The key with another body: refused, nothing changes.
		before := ledgerOfUser(t, db, u.User.ID)
		reused := []*hubtest.Response{
			adjustKeyed(t, h, fin, u.User.ID, "topup-42", 13, "goodwill"),
			adjustKeyed(t, h, fin, u.User.ID, "topup-42", 12.5, "another reason"),
			adjustKeyed(t, h, fin, other.User.ID, "topup-42", 12.5, "goodwill"),
		}
		for _, r := range reused {
			r.Want(t, 409, "idempotency_key_reused")
		}
		if after := ledgerOfUser(t, db, u.User.ID); after != before || ledgerOfUser(t, db, other.User.ID).Balance != 0 {
			t.Fatalf("a reused key changed a balance: %+v → %+v", before, after)
		}
		// Another admin's key of the same text is theirs.
		adjustKeyed(t, h, fin2, other.User.ID, "topup-42", 12.5, "goodwill").Want(t, 200, "")
		// Bad keys: 400, nothing changes.
		adjustKeyed(t, h, fin, u.User.ID, "has space", 1, "x").Want(t, 400, "invalid_body")

		// No key: two calls, two changes.
		b0 := ledgerOfUser(t, db, u.User.ID).Balance
		adjustKeyed(t, h, fin, u.User.ID, "", 2, "same").Want(t, 200, "")
		adjustKeyed(t, h, fin, u.User.ID, "", 2, "same").Want(t, 200, "")
		b1 := ledgerOfUser(t, db, u.User.ID).Balance
		if b1-b0 != 4_000 {
			t.Fatalf("two unkeyed adjustments of 2 moved the balance by %d units, want 4000", b1-b0)
		}
		checkAllLedgers(t, db)
		battery.Report(t, "T24", "%d concurrent, same key and body → 1 change, 1 audit row, %d identical answers; same key, other body or user → 3 × 409 idempotency_key_reused, 0 change; no key twice → 2 changes (%s)", n, n, mode)
	})
}

// TestBatteryAuditFailureUndoesTheChange (T42, the crash between a change
// and its audit row): with the audit row's insert made to fail inside the
// database, an admin write answers 5xx and leaves no change; once the
// insert works again the same write lands with exactly one row. The
// change and its row are one transaction, so a process that dies between
// them leaves neither.
func TestBatteryAuditFailureUndoesTheChange(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		owner, _ := h.Admin(t, "owner")
		db := rawDB(t, h)
		breakAudit, fixAudit := []string{
			`CREATE TRIGGER battery_fail_audit BEFORE INSERT ON audit_logs BEGIN SELECT RAISE(ABORT, 'injected audit failure'); END`,
		}, []string{`DROP TRIGGER battery_fail_audit`}
		if mode == hubtest.Scaled {
			breakAudit = []string{
				`CREATE FUNCTION battery_fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected audit failure'; END $$`,
				`CREATE TRIGGER battery_fail_audit BEFORE INSERT ON audit_logs FOR EACH ROW EXECUTE FUNCTION battery_fail_audit()`,
			}
			fixAudit = []string{`DROP TRIGGER battery_fail_audit ON audit_logs`, `DROP FUNCTION battery_fail_audit()`}
		}
		exec := func(stmts []string) {
			for _, s := range stmts {
				if _, err := db.ExecContext(t.Context(), s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		}
		rows := func() int64 {
			return queryInt(t, db, "SELECT COUNT(*) FROM audit_logs WHERE target_id = '"+u.User.ID+"'")
		}
		status := func() string {
			var s string
			if err := db.QueryRowContext(t.Context(), "SELECT status FROM users WHERE id = '"+u.User.ID+"'").Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		c := h.Client(t).As(owner)
		exec(breakAudit)
		suspend := c.Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil)
		adj := adjustKeyed(t, h, owner, u.User.ID, "", 5, "audit fails")
		if suspend.Status < 500 || adj.Status < 500 {
			t.Fatalf("with the audit insert failing: suspend %d %s, adjust %d %s; want 5xx", suspend.Status, suspend.Body, adj.Status, adj.Body)
		}
		if st, bal, n := status(), ledgerOfUser(t, db, u.User.ID).Balance, rows(); st != "active" || bal != 0 || n != 0 {
			t.Fatalf("after the failed audit: status %s, balance %d, %d audit rows; want active, 0, 0", st, bal, n)
		}
		exec(fixAudit)
		c.Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")
		adjustKeyed(t, h, owner, u.User.ID, "", 5, "audit works").Want(t, 200, "")
		if st, bal, n := status(), ledgerOfUser(t, db, u.User.ID).Balance, rows(); st != "suspended" || bal != 5_000 || n != 2 {
			t.Fatalf("after the audit works again: status %s, balance %d, %d audit rows; want suspended, 5000, 2", st, bal, n)
		}
		battery.Report(t, "T42", "audit insert failing inside the database: suspend %d, adjust %d, 0 changes, 0 rows; working again: 2 writes, 2 rows (%s)", suspend.Status, adj.Status, mode)
	})
}
