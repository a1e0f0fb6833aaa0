package admin

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/keyring"
	"hostgate/internal/lockout"
	"hostgate/internal/paging"
	"hostgate/internal/passwords"
)

const testPassword = "correct horse battery"

type testEnv struct {
	s     *Service
	store *fakeStore
	now   time.Time
}

// newTestEnv is a service over a fake store, with its own clock.
func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	keys, err := keyring.New(bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32))
	if err != nil {
		t.Fatal(err)
	}
	st := newFakeStore()
	e := &testEnv{store: st, now: time.Now()}
	e.s = NewService(st, &fakeTickets{m: map[string][]byte{}}, nil, keys,
		passwords.NewHasher(passwords.Params{Memory: 64, Time: 1, Threads: 1}), lockout.New(fakeLockout{}, lockout.Default, "admin"))
	e.s.now = func() time.Time { return e.now }
	return e
}

func (e *testEnv) create(t *testing.T, name string, role Role) Admin {
	t.Helper()
	a, err := e.s.Create(t.Context(), name, testPassword, role)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (e *testEnv) login(t *testing.T, name string) (Auth, Principal) {
	t.Helper()
	a, err := e.s.Login(t.Context(), name, testPassword)
	if err != nil {
		t.Fatalf("login %s: %v", name, err)
	}
	p, err := e.s.Authenticate(t.Context(), a.AccessToken)
	if err != nil {
		t.Fatalf("authenticate %s: %v", name, err)
	}
	return a, p
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if !apperr.Is(err, code) {
		t.Fatalf("%s: got %v, want %s", what, err, code)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

var owner = audit.Actor{AdminID: "test-owner", Role: "owner"}

func TestLoginOpensASession(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "root", Owner)
	a, p := e.login(t, "root")
	if a.RefreshToken == "" || a.AccessTTL != time.Hour || a.RefreshTTL != 30*24*time.Hour || a.Admin.LastLoginAt == nil {
		t.Errorf("login = %+v", a)
	}
	if p.Role != Owner || p.SessionID == "" || p.AdminID != a.Admin.ID {
		t.Errorf("principal = %+v", p)
	}
	if ended, err := e.s.SessionEnded(t.Context(), p.AdminID, p.SessionID); err != nil || ended {
		t.Errorf("SessionEnded of a live session = %v, %v", ended, err)
	}
	got, err := e.s.Get(t.Context(), a.Admin.ID)
	must(t, "Get", err)
	if got.LastLoginAt == nil || !got.LastLoginAt.Equal(*a.Admin.LastLoginAt) {
		t.Errorf("stored last_login_at = %v, want %v", got.LastLoginAt, a.Admin.LastLoginAt)
	}
	_, err = e.s.Login(t.Context(), "root", "wrong password")
	wantCode(t, "wrong password", err, apperr.CodeInvalidCreds)
	// A step-up checks the password without opening a session.
	before := len(e.store.sessions)
	_, err = e.s.StepUp(t.Context(), p, testPassword)
	must(t, "StepUp", err)
	if len(e.store.sessions) != before {
		t.Error("a step-up opened a session")
	}
}

func TestRefreshRotatesAndReuseEndsTheSession(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "root", Owner)
	first, _ := e.login(t, "root")
	next, err := e.s.Refresh(t.Context(), first.RefreshToken)
	must(t, "Refresh", err)
	if next.RefreshToken == first.RefreshToken {
		t.Error("refresh did not rotate the token")
	}
	_, err = e.s.Authenticate(t.Context(), next.AccessToken)
	must(t, "Authenticate the new token", err)
	_, err = e.s.Refresh(t.Context(), first.RefreshToken)
	wantCode(t, "reused refresh token", err, apperr.CodeInvalidToken)
	// The session ended: its access tokens, old and new, at once.
	for _, tok := range []string{first.AccessToken, next.AccessToken} {
		_, err = e.s.Authenticate(t.Context(), tok)
		wantCode(t, "token of a session ended by reuse", err, apperr.CodeInvalidToken)
	}
	_, err = e.s.Refresh(t.Context(), next.RefreshToken)
	wantCode(t, "current token of an ended session", err, apperr.CodeInvalidToken)
	for _, bad := range []string{"", "never issued", string(bytes.Repeat([]byte("x"), 200))} {
		_, err = e.s.Refresh(t.Context(), bad)
		wantCode(t, "refresh "+bad, err, apperr.CodeInvalidToken)
	}
}

func TestSessionExpires(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "root", Owner)
	a, _ := e.login(t, "root")
	e.now = e.now.Add(30*24*time.Hour + time.Second)
	_, err := e.s.Authenticate(t.Context(), a.AccessToken)
	wantCode(t, "token of an expired session", err, apperr.CodeInvalidToken)
	_, err = e.s.Refresh(t.Context(), a.RefreshToken)
	wantCode(t, "refresh of an expired session", err, apperr.CodeInvalidToken)
}

func TestLogout(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "root", Owner)
	a, _ := e.login(t, "root")
	b, pb := e.login(t, "root")
	must(t, "Logout", e.s.Logout(t.Context(), a.RefreshToken))
	_, err := e.s.Authenticate(t.Context(), a.AccessToken)
	wantCode(t, "token after logout", err, apperr.CodeInvalidToken)
	_, err = e.s.Refresh(t.Context(), a.RefreshToken)
	wantCode(t, "refresh after logout", err, apperr.CodeInvalidToken)
	// The other session lives until it ends by its access token.
	_, err = e.s.Authenticate(t.Context(), b.AccessToken)
	must(t, "the other session", err)
	must(t, "EndSession", e.s.EndSession(t.Context(), pb))
	_, err = e.s.Authenticate(t.Context(), b.AccessToken)
	wantCode(t, "token after EndSession", err, apperr.CodeInvalidToken)
	wantCode(t, "logout of nothing", e.s.Logout(t.Context(), "nope"), apperr.CodeInvalidToken)
}

func TestLastOwnerRule(t *testing.T) {
	e := newTestEnv(t)
	root := e.create(t, "root", Owner)
	ops := e.create(t, "ops", Operator)
	_, err := e.s.SetStatusByID(t.Context(), owner, root.ID, StatusDisabled)
	wantCode(t, "disable the last owner", err, CodeLastOwner)
	for _, r := range []Role{Operator, Finance, Viewer} {
		_, err = e.s.SetRole(t.Context(), Principal{}, owner, "", root.ID, r)
		wantCode(t, "demote the last owner to "+string(r), err, CodeLastOwner)
	}
	_, err = e.s.SetStatus(t.Context(), audit.CLIActor, "ROOT", StatusDisabled)
	wantCode(t, "the CLI disabling the last owner", err, CodeLastOwner)
	_, err = e.s.SetRoleByName(t.Context(), audit.CLIActor, "root", Viewer)
	wantCode(t, "the CLI demoting the last owner", err, CodeLastOwner)
	if got := e.store.auditActions(); len(got) != 0 {
		t.Errorf("refused changes wrote audit rows %v", got)
	}
	// The CLI needs no step-up to make an owner; then the first may go.
	_, err = e.s.SetRoleByName(t.Context(), audit.CLIActor, "ops", Owner)
	must(t, "CLI set-role owner", err)
	_, err = e.s.SetStatusByID(t.Context(), owner, root.ID, StatusDisabled)
	must(t, "disable one of two owners", err)
	_, err = e.s.SetStatusByID(t.Context(), owner, ops.ID, StatusDisabled)
	wantCode(t, "disable the owner left", err, CodeLastOwner)
	// A disabled owner does not count, and enabling one is always allowed.
	_, err = e.s.SetStatusByID(t.Context(), owner, root.ID, StatusActive)
	must(t, "enable", err)
	want := []string{audit.ActionAdminRoleChange, audit.ActionAdminDisable, audit.ActionAdminEnable}
	if got := e.store.auditActions(); !slices.Equal(got, want) {
		t.Errorf("audit actions = %v, want %v", got, want)
	}
	_, err = e.s.SetStatusByID(t.Context(), owner, "missing", StatusDisabled)
	wantCode(t, "unknown admin", err, apperr.CodeNotFound)
}

func TestChangesEndSessions(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "root", Owner)
	e.create(t, "ops", Operator)
	a, pa := e.login(t, "ops")
	b, _ := e.login(t, "ops")
	// The same role again ends nothing.
	_, err := e.s.SetRole(t.Context(), Principal{}, owner, "", pa.AdminID, Operator)
	must(t, "same role", err)
	_, err = e.s.Authenticate(t.Context(), a.AccessToken)
	must(t, "token after a same-role change", err)
	changed, err := e.s.SetRole(t.Context(), Principal{}, owner, "", pa.AdminID, Finance)
	must(t, "role change", err)
	if changed.Role != Finance {
		t.Errorf("changed = %+v", changed)
	}
	for _, tok := range []string{a.AccessToken, b.AccessToken} {
		_, err = e.s.Authenticate(t.Context(), tok)
		wantCode(t, "token after a role change", err, apperr.CodeInvalidToken)
	}
	_, err = e.s.Refresh(t.Context(), a.RefreshToken)
	wantCode(t, "refresh after a role change", err, apperr.CodeInvalidToken)
	c, pc := e.login(t, "ops")
	if pc.Role != Finance {
		t.Errorf("signed in again as %s, want finance", pc.Role)
	}
	_, err = e.s.SetStatusByID(t.Context(), owner, pc.AdminID, StatusDisabled)
	must(t, "disable", err)
	_, err = e.s.Authenticate(t.Context(), c.AccessToken)
	wantCode(t, "token of a disabled admin", err, apperr.CodeInvalidToken)
	if ended, err := e.s.SessionEnded(t.Context(), pc.AdminID, pc.SessionID); err != nil || !ended {
		t.Errorf("SessionEnded of a disabled admin's session = %v, %v", ended, err)
	}
	_, err = e.s.Login(t.Context(), "ops", testPassword)
	wantCode(t, "login of a disabled admin", err, apperr.CodeInvalidCreds)
	_, err = e.s.SetStatusByID(t.Context(), owner, pc.AdminID, StatusActive)
	must(t, "enable", err)
	_, err = e.s.Authenticate(t.Context(), c.AccessToken)
	wantCode(t, "a session ended by disabling, after enabling", err, apperr.CodeInvalidToken)
}

func TestGrantingOwnerNeedsAStepUp(t *testing.T) {
	e := newTestEnv(t)
	e.create(t, "root", Owner)
	_, p := e.login(t, "root")
	ctx := t.Context()
	n := NewAdmin{Username: "boss", Password: testPassword, Role: Owner}
	_, err := e.s.Add(ctx, p, owner, "", n)
	wantCode(t, "owner without a step-up", err, CodeStepUpRequired)
	tok, err := e.s.StepUp(ctx, p, testPassword)
	must(t, "StepUp", err)
	boss, err := e.s.Add(ctx, p, owner, tok, n)
	must(t, "owner with a step-up", err)
	_, err = e.s.Add(ctx, p, owner, tok, NewAdmin{Username: "boss2", Password: testPassword, Role: Owner})
	wantCode(t, "a step-up token used twice", err, CodeStepUpRequired)
	// Other roles need none; a bad request spends no token.
	fin, err := e.s.Add(ctx, p, owner, "", NewAdmin{Username: "fin", Password: testPassword, Role: Finance})
	must(t, "finance without a step-up", err)
	_, err = e.s.Add(ctx, p, owner, "", NewAdmin{Username: "fin", Password: testPassword, Role: Viewer})
	wantCode(t, "taken username", err, CodeUsernameTaken)
	_, err = e.s.Add(ctx, p, owner, "", NewAdmin{Username: "x", Password: testPassword, Role: Viewer})
	wantCode(t, "bad username", err, CodeInvalidUsername)
	_, err = e.s.Add(ctx, p, owner, "", NewAdmin{Username: "xyz", Password: "short", Role: Viewer})
	wantCode(t, "weak password", err, passwords.CodeWeakPassword)
	_, err = e.s.Add(ctx, p, owner, "", NewAdmin{Username: "xyz", Password: testPassword, Role: "god"})
	wantCode(t, "bad role", err, CodeInvalidRole)

	_, err = e.s.SetRole(ctx, p, owner, "", fin.ID, Owner)
	wantCode(t, "to owner without a step-up", err, CodeStepUpRequired)
	_, err = e.s.SetRole(ctx, p, owner, "", "missing", Owner)
	wantCode(t, "to owner, unknown admin", err, apperr.CodeNotFound)
	tok, err = e.s.StepUp(ctx, p, testPassword)
	must(t, "StepUp", err)
	_, err = e.s.SetRole(ctx, p, owner, tok, fin.ID, Owner)
	must(t, "to owner with a step-up", err)
	// Another admin's session cannot use this admin's token.
	tok, err = e.s.StepUp(ctx, p, testPassword)
	must(t, "StepUp", err)
	_, pb := e.login(t, "boss")
	_, err = e.s.SetRole(ctx, pb, owner, tok, boss.ID, Owner)
	wantCode(t, "someone else's step-up token", err, CodeStepUpRequired)

	want := []string{audit.ActionAdminCreate, audit.ActionAdminCreate, audit.ActionAdminRoleChange}
	if got := e.store.auditActions(); !slices.Equal(got, want) {
		t.Errorf("audit actions = %v, want %v", got, want)
	}
}

func TestList(t *testing.T) {
	e := newTestEnv(t)
	for _, n := range []string{"carol", "alice", "bob"} {
		e.create(t, n, Viewer)
	}
	ctx := context.Background()
	res, err := e.s.List(ctx, Filter{Query: " A "}, pageOf(1, 0))
	must(t, "List", err)
	if res.Total != 2 || len(res.Items) != 1 || res.Items[0].Username != "alice" {
		t.Errorf("List q=a limit 1 = %+v", res)
	}
	_, err = e.s.List(ctx, Filter{Role: "god"}, pageOf(10, 0))
	wantCode(t, "bad role", err, apperr.CodeInvalidQuery)
	_, err = e.s.List(ctx, Filter{Status: "gone"}, pageOf(10, 0))
	wantCode(t, "bad status", err, apperr.CodeInvalidQuery)
}

func pageOf(limit, offset int) paging.Page { return paging.Page{Limit: limit, Offset: offset} }
