package storetest

import (
	"testing"

	"hostgate/internal/admin"
	"hostgate/internal/store"
)

var adminTests = []test{
	{"RoundTrip", testAdminRoundTrip},
	{"UsernameTaken", testAdminUsernameTaken},
	{"NotFound", testAdminNotFound},
	{"SetPasswordHash", testAdminSetPasswordHash},
	{"Roles", testAdminRoles},
	{"SetAdminStatus", testAdminSetStatus},
	{"AnyAdmin", testAnyAdmin},
	{"ListAdmins", testListAdmins},
	{"InsertAdminAudited", testInsertAdminAudited},
	{"LastOwnerKept", testLastOwnerKept},
	{"LastOwnerRace", testLastOwnerRace},
	{"LastOwnerRaceDemote", testLastOwnerRaceDemote},
	{"ChangeEndsSessions", testChangeEndsSessions},
	{"OpenSessionRecordsLogin", testOpenSessionRecordsLogin},
	{"AdminRotateRefresh", testAdminRotateRefresh},
	{"AdminRotateRefreshReuse", testAdminRotateRefreshReuse},
	{"AdminRotateRefreshRace", testAdminRotateRefreshRace},
	{"AdminRotateRefreshDisabled", testAdminRotateRefreshDisabled},
	{"AdminRevokeAndEndSession", testAdminRevokeAndEndSession},
}

func newAdmin(username string, role admin.Role) admin.Admin {
	return admin.Admin{ID: newID(), Username: username, Role: role, Status: "active", CreatedAt: t0}
}

func checkAdmin(t *testing.T, what string, got, want admin.Admin) {
	t.Helper()
	if got.ID != want.ID || got.Username != want.Username || got.Role != want.Role || got.Status != want.Status {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
	checkTime(t, what+" CreatedAt", got.CreatedAt, want.CreatedAt)
}

func testAdminRoundTrip(t *testing.T, s store.Store) {
	a := newAdmin("root", admin.Owner)
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), a, "admin-hash"))
	got, err := s.Admins.AdminByID(t.Context(), a.ID)
	must(t, "AdminByID", err)
	checkAdmin(t, "AdminByID", got, a)
	got, hash, err := s.Admins.AdminCredentials(t.Context(), "root")
	must(t, "AdminCredentials", err)
	checkAdmin(t, "AdminCredentials", got, a)
	if hash != "admin-hash" {
		t.Errorf("hash: got %q, want %q", hash, "admin-hash")
	}
}

func testAdminUsernameTaken(t *testing.T, s store.Store) {
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), newAdmin("root", admin.Owner), "h"))
	err := s.Admins.CreateAdmin(t.Context(), newAdmin("root", admin.Viewer), "h")
	checkErr(t, "CreateAdmin duplicate", err, admin.ErrUsernameTaken)
}

func testAdminNotFound(t *testing.T, s store.Store) {
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), newAdmin("root", admin.Owner), "h"))
	ctx := t.Context()
	for _, c := range []struct {
		op  string
		err error
	}{
		{"AdminByID", second(s.Admins.AdminByID(ctx, newID()))},
		{"AdminCredentials", third(s.Admins.AdminCredentials(ctx, "nobody"))},
		{"SetAdminPasswordHash", s.Admins.SetAdminPasswordHash(ctx, newID(), "h")},
		{"SetAdminStatus", second(admin.SetAdminStatus(ctx, s.Admins, newID(), admin.StatusDisabled, t0, entry("cli", "admin.disable", "admin")))},
		{"ChangeAdmin role", third(admin.ChangeAdmin(ctx, s.Admins, newID(), admin.Change{Role: admin.Viewer}, t0, entry("cli", "admin.role_change", "admin")))},
	} {
		checkErr(t, c.op, c.err, admin.ErrAdminNotFound)
	}
}

func testAdminSetPasswordHash(t *testing.T, s store.Store) {
	a := newAdmin("root", admin.Owner)
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), a, "old"))
	must(t, "SetAdminPasswordHash", s.Admins.SetAdminPasswordHash(t.Context(), a.ID, "new"))
	_, hash, err := s.Admins.AdminCredentials(t.Context(), "root")
	must(t, "AdminCredentials", err)
	if hash != "new" {
		t.Errorf("hash: got %q, want %q", hash, "new")
	}
}

func testAdminRoles(t *testing.T, s store.Store) {
	for _, role := range admin.Roles {
		a := newAdmin("admin-"+string(role), role)
		must(t, "CreateAdmin "+string(role), s.Admins.CreateAdmin(t.Context(), a, "h"))
		got, err := s.Admins.AdminByID(t.Context(), a.ID)
		must(t, "AdminByID", err)
		checkAdmin(t, "admin with role "+string(role), got, a)
	}
	if err := s.Admins.CreateAdmin(t.Context(), newAdmin("boss", "superuser"), "h"); err == nil {
		t.Error("CreateAdmin with an unknown role: got nil error, want the schema to refuse it")
	}
}

func testAdminSetStatus(t *testing.T, s store.Store) {
	a := newAdmin("root", admin.Operator)
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), a, "h"))
	rec := entry("cli", "admin.disable", "admin")
	must(t, "SetAdminStatus disabled", second(admin.SetAdminStatus(t.Context(), s.Admins, a.ID, admin.StatusDisabled, t0, rec)))
	got, err := s.Admins.AdminByID(t.Context(), a.ID)
	must(t, "AdminByID", err)
	if got.Status != admin.StatusDisabled {
		t.Errorf("status: got %q, want %q", got.Status, admin.StatusDisabled)
	}
	checkOneAudit(t, s, rec, t0)
	must(t, "SetAdminStatus active", second(admin.SetAdminStatus(t.Context(), s.Admins, a.ID, admin.StatusActive, t0, entry("cli", "admin.enable", "admin"))))
	got, _, err = s.Admins.AdminCredentials(t.Context(), "root")
	must(t, "AdminCredentials", err)
	if got.Status != admin.StatusActive {
		t.Errorf("status after enabling: got %q, want %q", got.Status, admin.StatusActive)
	}
}

func testAnyAdmin(t *testing.T, s store.Store) {
	found, err := s.Admins.AnyAdmin(t.Context())
	must(t, "AnyAdmin of an empty store", err)
	if found {
		t.Error("AnyAdmin of an empty store = true")
	}
	a := newAdmin("root", admin.Viewer)
	a.Status = admin.StatusDisabled
	must(t, "CreateAdmin", s.Admins.CreateAdmin(t.Context(), a, "h"))
	found, err = s.Admins.AnyAdmin(t.Context())
	must(t, "AnyAdmin", err)
	if !found {
		t.Error("AnyAdmin with a (disabled) admin = false")
	}
}
