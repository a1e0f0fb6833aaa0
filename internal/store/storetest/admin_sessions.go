package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"hostgate/internal/admin"
	"hostgate/internal/store"
)

func createAdmin(t *testing.T, s store.Store, username string, role admin.Role) admin.Admin {
	t.Helper()
	a := newAdmin(username, role)
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), a, "h"))
	return a
}

// openAdminSession opens a session of adminID at created, lasting a day,
// and returns it with its first refresh-token hash.
func openAdminSession(t *testing.T, s store.Store, adminID string, created time.Time) (admin.Session, []byte) {
	t.Helper()
	sess := admin.Session{ID: newID(), AdminID: adminID, CreatedAt: created, ExpiresAt: created.Add(24 * time.Hour)}
	h := hashOf("admin session " + sess.ID)
	must(t, "OpenSession", s.Admins.OpenSession(t.Context(), sess, h))
	return sess, h
}

func adminState(t *testing.T, s store.Store, id string) admin.SessionState {
	t.Helper()
	st, err := s.Admins.SessionState(t.Context(), id)
	must(t, "SessionState", err)
	return st
}

func testListAdmins(t *testing.T, s store.Store) {
	createAdmin(t, s, "carol", admin.Owner)
	createAdmin(t, s, "alice", admin.Viewer)
	b := createAdmin(t, s, "bob_ops", admin.Operator)
	_, err := admin.SetAdminStatus(t.Context(), s.Admins, b.ID, admin.StatusDisabled, t0, entry("cli", "admin.disable", "admin"))
	must(t, "disable bob", err)
	for _, c := range []struct {
		f     admin.Filter
		limit int
		want  []string
		total int
	}{
		{admin.Filter{}, 50, []string{"alice", "bob_ops", "carol"}, 3},
		{admin.Filter{}, 1, []string{"alice"}, 3},
		{admin.Filter{Query: "o"}, 50, []string{"bob_ops", "carol"}, 2},
		{admin.Filter{Query: "_"}, 50, []string{"bob_ops"}, 1}, // LIKE's wildcard matches itself only
		{admin.Filter{Role: admin.Owner}, 50, []string{"carol"}, 1},
		{admin.Filter{Status: admin.StatusDisabled}, 50, []string{"bob_ops"}, 1},
	} {
		items, total, err := s.Admins.ListAdmins(t.Context(), c.f, page(c.limit, 0))
		must(t, "ListAdmins", err)
		var got []string
		for _, a := range items {
			got = append(got, a.Username)
		}
		if !slices.Equal(got, c.want) || total != c.total {
			t.Errorf("ListAdmins(%+v, limit %d): got %v (total %d), want %v (total %d)", c.f, c.limit, got, total, c.want, c.total)
		}
	}
}

func testInsertAdminAudited(t *testing.T, s store.Store) {
	a := newAdmin("new-admin", admin.Finance)
	rec := entry("owner-1", "admin.create", "admin")
	must(t, "InsertAdmin", admin.InsertAdmin(t.Context(), s.Admins, a, "h", t0, rec))
	got, err := s.Admins.AdminByID(t.Context(), a.ID)
	must(t, "AdminByID", err)
	checkAdmin(t, "inserted admin", got, a)
	checkOneAudit(t, s, rec, t0)
	// A taken username changes nothing and writes no audit row.
	checkErr(t, "InsertAdmin taken", admin.InsertAdmin(t.Context(), s.Admins, newAdmin("new-admin", admin.Viewer), "h", t0, entry("owner-1", "admin.create", "admin")), admin.ErrUsernameTaken)
	checkOneAudit(t, s, rec, t0)
}

// testLastOwnerKept: the last enabled owner can be neither disabled nor
// demoted; with a second one it can, and a refused change writes nothing.
func testLastOwnerKept(t *testing.T, s store.Store) {
	ctx := t.Context()
	root := createAdmin(t, s, "root", admin.Owner)
	// A disabled owner does not count.
	off := createAdmin(t, s, "off", admin.Owner)
	_, _, err := admin.ChangeAdmin(ctx, s.Admins, off.ID, admin.Change{Status: admin.StatusDisabled}, t0, entry("cli", "admin.disable", "admin"))
	must(t, "disable the second owner", err)
	before := auditCount(t, s)
	for _, c := range []admin.Change{{Status: admin.StatusDisabled}, {Role: admin.Viewer}, {Role: admin.Finance, Status: admin.StatusDisabled}} {
		_, _, err := admin.ChangeAdmin(ctx, s.Admins, root.ID, c, t0, entry("cli", "x", "admin"))
		checkErr(t, fmt.Sprintf("ChangeAdmin %+v of the last owner", c), err, admin.ErrLastOwner)
	}
	got, err := s.Admins.AdminByID(ctx, root.ID)
	must(t, "AdminByID", err)
	if !got.EnabledOwner() {
		t.Errorf("the last owner after refused changes: %+v", got)
	}
	if n := auditCount(t, s); n != before {
		t.Errorf("refused changes wrote audit rows: %d, want %d", n, before)
	}
	// An owner may keep its role (a no-op change), and may go once another
	// owner is enabled.
	_, _, err = admin.ChangeAdmin(ctx, s.Admins, root.ID, admin.Change{Role: admin.Owner}, t0, entry("cli", "admin.role_change", "admin"))
	must(t, "owner to owner", err)
	_, _, err = admin.ChangeAdmin(ctx, s.Admins, off.ID, admin.Change{Status: admin.StatusActive}, t0, entry("cli", "admin.enable", "admin"))
	must(t, "enable the second owner", err)
	next, _, err := admin.ChangeAdmin(ctx, s.Admins, root.ID, admin.Change{Role: admin.Viewer}, t0, entry("cli", "admin.role_change", "admin"))
	must(t, "demote root", err)
	if next.Role != admin.Viewer {
		t.Errorf("demoted admin: got role %q, want viewer", next.Role)
	}
	_, _, err = admin.ChangeAdmin(ctx, s.Admins, off.ID, admin.Change{Status: admin.StatusDisabled}, t0, entry("cli", "admin.disable", "admin"))
	checkErr(t, "disable the owner left", err, admin.ErrLastOwner)
}

func auditCount(t *testing.T, s store.Store) int {
	t.Helper()
	_, total, err := s.Audit.ListAudit(t.Context(), auditFilter("", "", ""), page(1, 0))
	must(t, "ListAudit", err)
	return total
}

// enabledOwners counts the enabled owners.
func enabledOwners(t *testing.T, s store.Store) int {
	t.Helper()
	_, total, err := s.Admins.ListAdmins(t.Context(), admin.Filter{Role: admin.Owner, Status: admin.StatusActive}, page(1, 0))
	must(t, "ListAdmins", err)
	return total
}

// testLastOwnerRace: owners that disable each other at once never leave
// zero enabled owners: exactly one of each pair wins.
func testLastOwnerRace(t *testing.T, s store.Store) {
	for round := range 10 {
		a := createAdmin(t, s, fmt.Sprintf("a-%d", round), admin.Owner)
		b := createAdmin(t, s, fmt.Sprintf("b-%d", round), admin.Owner)
		disableOthers(t, s, a.ID, b.ID) // the survivor of the last round

		ids := []string{a.ID, b.ID}
		errs := race(2, func(i int) error {
			_, _, err := admin.ChangeAdmin(t.Context(), s.Admins, ids[1-i], admin.Change{Status: admin.StatusDisabled}, time.Now(), entry(ids[i], "admin.disable", "admin"))
			return err
		})
		if ok := countRace(t, errs, admin.ErrLastOwner); ok != 1 {
			t.Fatalf("round %d: %d of 2 mutual disables succeeded, want 1 (%v)", round, ok, errs)
		}
		if n := enabledOwners(t, s); n != 1 {
			t.Fatalf("round %d: %d enabled owners, want 1", round, n)
		}
	}
}

// testLastOwnerRaceDemote: one owner demoting the other while that one
// disables the first: one wins.
func testLastOwnerRaceDemote(t *testing.T, s store.Store) {
	a := createAdmin(t, s, "a-owner", admin.Owner)
	b := createAdmin(t, s, "b-owner", admin.Owner)
	errs := race(2, func(i int) error {
		if i == 0 {
			_, _, err := admin.ChangeAdmin(t.Context(), s.Admins, b.ID, admin.Change{Role: admin.Viewer}, time.Now(), entry(a.ID, "admin.role_change", "admin"))
			return err
		}
		_, _, err := admin.ChangeAdmin(t.Context(), s.Admins, a.ID, admin.Change{Status: admin.StatusDisabled}, time.Now(), entry(b.ID, "admin.disable", "admin"))
		return err
	})
	if ok := countRace(t, errs, admin.ErrLastOwner); ok != 1 {
		t.Fatalf("%d of 2 changes succeeded, want 1 (%v)", ok, errs)
	}
	if n := enabledOwners(t, s); n != 1 {
		t.Fatalf("%d enabled owners, want 1", n)
	}
}

// disableOthers disables every enabled owner but keep.
func disableOthers(t *testing.T, s store.Store, keep ...string) {
	t.Helper()
	items, _, err := s.Admins.ListAdmins(t.Context(), admin.Filter{Role: admin.Owner, Status: admin.StatusActive}, page(200, 0))
	must(t, "ListAdmins", err)
	for _, a := range items {
		if !slices.Contains(keep, a.ID) {
			_, _, err := admin.ChangeAdmin(t.Context(), s.Admins, a.ID, admin.Change{Status: admin.StatusDisabled}, t0, entry("cli", "admin.disable", "admin"))
			must(t, "disable "+a.Username, err)
		}
	}
}

// testChangeEndsSessions: disabling or a role change ends every open
// session of the admin and returns their ids; enabling, a same-role
// change and other admins' sessions are left alone.
func testChangeEndsSessions(t *testing.T, s store.Store) {
	ctx := t.Context()
	createAdmin(t, s, "root", admin.Owner)
	ops := createAdmin(t, s, "ops", admin.Operator)
	other := createAdmin(t, s, "other", admin.Viewer)
	otherSess, _ := openAdminSession(t, s, other.ID, t0)

	s1, _ := openAdminSession(t, s, ops.ID, t0)
	s2, _ := openAdminSession(t, s, ops.ID, t0)
	_, ended, err := admin.ChangeAdmin(ctx, s.Admins, ops.ID, admin.Change{Role: admin.Operator}, t0, entry("cli", "admin.role_change", "admin"))
	must(t, "same role", err)
	if len(ended) != 0 {
		t.Errorf("same-role change ended %v", ended)
	}
	_, ended, err = admin.ChangeAdmin(ctx, s.Admins, ops.ID, admin.Change{Role: admin.Finance}, t0, entry("cli", "admin.role_change", "admin"))
	must(t, "role change", err)
	slices.Sort(ended)
	want := []string{s1.ID, s2.ID}
	slices.Sort(want)
	if !slices.Equal(ended, want) {
		t.Errorf("role change ended %v, want %v", ended, want)
	}
	st := adminState(t, s, s1.ID)
	if st.RevokedAt == nil || st.Role != admin.Finance {
		t.Errorf("session state after the role change: %+v", st)
	}
	s3, _ := openAdminSession(t, s, ops.ID, t0)
	_, ended, err = admin.ChangeAdmin(ctx, s.Admins, ops.ID, admin.Change{Status: admin.StatusDisabled}, t0, entry("cli", "admin.disable", "admin"))
	must(t, "disable", err)
	if !slices.Equal(ended, []string{s3.ID}) {
		t.Errorf("disable ended %v, want [%s]", ended, s3.ID)
	}
	_, ended, err = admin.ChangeAdmin(ctx, s.Admins, ops.ID, admin.Change{Status: admin.StatusActive}, t0, entry("cli", "admin.enable", "admin"))
	must(t, "enable", err)
	if len(ended) != 0 {
		t.Errorf("enable ended %v", ended)
	}
	if st := adminState(t, s, s3.ID); st.RevokedAt == nil {
		t.Error("enabling reopened an ended session")
	}
	if st := adminState(t, s, otherSess.ID); !st.Live(t0) {
		t.Errorf("another admin's session: %+v, want live", st)
	}
}

func testOpenSessionRecordsLogin(t *testing.T, s store.Store) {
	a := createAdmin(t, s, "root", admin.Owner)
	got, err := s.Admins.AdminByID(t.Context(), a.ID)
	must(t, "AdminByID", err)
	if got.LastLoginAt != nil {
		t.Errorf("LastLoginAt before any sign-in: %v", got.LastLoginAt)
	}
	at := t0.Add(time.Hour)
	sess, _ := openAdminSession(t, s, a.ID, at)
	got, err = s.Admins.AdminByID(t.Context(), a.ID)
	must(t, "AdminByID", err)
	if got.LastLoginAt == nil {
		t.Fatal("LastLoginAt not recorded")
	}
	checkTime(t, "LastLoginAt", *got.LastLoginAt, at)
	st := adminState(t, s, sess.ID)
	if st.AdminID != a.ID || st.Role != admin.Owner || st.AdminStatus != admin.StatusActive || st.RevokedAt != nil {
		t.Errorf("SessionState: %+v", st)
	}
	checkTime(t, "ExpiresAt", st.ExpiresAt, sess.ExpiresAt)
	_, err = s.Admins.SessionState(t.Context(), newID())
	checkErr(t, "SessionState of no session", err, admin.ErrSessionEnded)
	checkErr(t, "OpenSession of no admin", s.Admins.OpenSession(t.Context(),
		admin.Session{ID: newID(), AdminID: newID(), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, hashOf("x")), admin.ErrAdminNotFound)
}

func testAdminRotateRefresh(t *testing.T, s store.Store) {
	a := createAdmin(t, s, "root", admin.Owner)
	sess, h1 := openAdminSession(t, s, a.ID, t0)
	h2 := hashOf("second")
	got, err := s.Admins.RotateRefresh(t.Context(), h1, h2, t0.Add(time.Minute))
	must(t, "RotateRefresh", err)
	if got.ID != sess.ID || got.AdminID != a.ID {
		t.Errorf("RotateRefresh session: %+v", got)
	}
	_, err = s.Admins.RotateRefresh(t.Context(), h2, hashOf("third"), t0.Add(2*time.Minute))
	must(t, "RotateRefresh the new token", err)
	_, err = s.Admins.RotateRefresh(t.Context(), hashOf("never issued"), hashOf("x"), t0)
	checkErr(t, "RotateRefresh unknown", err, admin.ErrRefreshUnknown)
	// Past its end the session refuses its current token.
	_, err = s.Admins.RotateRefresh(t.Context(), hashOf("third"), hashOf("fourth"), t0.Add(25*time.Hour))
	checkErr(t, "RotateRefresh after expiry", err, admin.ErrSessionEnded)
}

func testAdminRotateRefreshReuse(t *testing.T, s store.Store) {
	a := createAdmin(t, s, "root", admin.Owner)
	sess, h1 := openAdminSession(t, s, a.ID, t0)
	h2 := hashOf("second")
	_, err := s.Admins.RotateRefresh(t.Context(), h1, h2, t0)
	must(t, "RotateRefresh", err)
	got, err := s.Admins.RotateRefresh(t.Context(), h1, hashOf("stolen"), t0)
	checkErr(t, "RotateRefresh reused", err, admin.ErrRefreshReused)
	if got.ID != sess.ID {
		t.Errorf("reuse returned session %q, want %q", got.ID, sess.ID)
	}
	if st := adminState(t, s, sess.ID); st.RevokedAt == nil {
		t.Error("reuse left the session open")
	}
	_, err = s.Admins.RotateRefresh(t.Context(), h2, hashOf("next"), t0)
	checkErr(t, "RotateRefresh the current token of a revoked session", err, admin.ErrSessionEnded)
}

func testAdminRotateRefreshRace(t *testing.T, s store.Store) {
	a := createAdmin(t, s, "root", admin.Owner)
	_, h1 := openAdminSession(t, s, a.ID, t0)
	errs := race(8, func(i int) error {
		_, err := s.Admins.RotateRefresh(t.Context(), h1, hashOf(fmt.Sprint("next ", i)), t0)
		return err
	})
	if ok := countRace(t, errs, admin.ErrRefreshReused); ok > 1 {
		t.Errorf("%d concurrent rotations of one token succeeded, want at most 1", ok)
	}
}

func testAdminRotateRefreshDisabled(t *testing.T, s store.Store) {
	createAdmin(t, s, "root", admin.Owner)
	a := createAdmin(t, s, "ops", admin.Operator)
	sess, h1 := openAdminSession(t, s, a.ID, t0)
	// Disabled by a write that does not go through ChangeAdmin's revocation
	// (as if the session were opened after it): the status alone refuses.
	must(t, "disable", s.Admins.Tx(t.Context(), func(tx admin.Tx) error {
		return tx.SetAdminStatus(t.Context(), a.ID, admin.StatusDisabled)
	}))
	got, err := s.Admins.RotateRefresh(t.Context(), h1, hashOf("next"), t0)
	checkErr(t, "RotateRefresh of a disabled admin", err, admin.ErrSessionEnded)
	if got.ID != sess.ID {
		t.Errorf("RotateRefresh returned %q, want %q", got.ID, sess.ID)
	}
	if adminState(t, s, sess.ID).Live(t0) {
		t.Error("a disabled admin's session state is live")
	}
}

func testAdminRevokeAndEndSession(t *testing.T, s store.Store) {
	a := createAdmin(t, s, "root", admin.Owner)
	s1, h1 := openAdminSession(t, s, a.ID, t0)
	got, err := s.Admins.RevokeSession(t.Context(), h1, t0.Add(time.Minute))
	must(t, "RevokeSession", err)
	if got.ID != s1.ID || got.RevokedAt == nil {
		t.Errorf("RevokeSession: %+v", got)
	}
	// A second revocation keeps the first time.
	got, err = s.Admins.RevokeSession(t.Context(), h1, t0.Add(time.Hour))
	must(t, "RevokeSession again", err)
	checkTime(t, "RevokedAt", *got.RevokedAt, t0.Add(time.Minute))
	_, err = s.Admins.RevokeSession(t.Context(), hashOf("nope"), t0)
	checkErr(t, "RevokeSession unknown", err, admin.ErrRefreshUnknown)

	s2, _ := openAdminSession(t, s, a.ID, t0)
	must(t, "EndSession", s.Admins.EndSession(t.Context(), s2.ID, t0))
	if adminState(t, s, s2.ID).Live(t0) {
		t.Error("EndSession left the session live")
	}
	checkErr(t, "EndSession unknown", s.Admins.EndSession(t.Context(), newID(), t0), admin.ErrSessionEnded)
	if err := s.Admins.EndSession(t.Context(), s2.ID, t0); err != nil && !errors.Is(err, admin.ErrSessionEnded) {
		t.Errorf("EndSession twice: %v", err)
	}
}
