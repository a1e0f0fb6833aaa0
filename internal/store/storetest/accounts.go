package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
)

var accountsTests = []test{
	{"CreateUserRoundTrip", testCreateUserRoundTrip},
	{"CreateUserEmailTaken", testCreateUserEmailTaken},
	{"CreateUserIsAtomic", testCreateUserAtomic},
	{"CreateUserRace", testCreateUserRace},
	{"UserNotFound", testUserNotFound},
	{"UpdateDisplayName", testUpdateDisplayName},
	{"SetPasswordHash", testSetPasswordHash},
	{"ListUsers", testListUsers},
	{"ListUsersTimeOrder", testListUsersTimeOrder},
	{"SuspendRevokesSessions", testSuspend},
	{"ResumeKeepsRevocations", testResume},
	{"SetUserStatusNotFoundWritesNoAudit", testSetUserStatusNotFound},
	{"CreateSession", testCreateSession},
	{"RotateRefresh", testRotateRefresh},
	{"RotateRefreshReuseRevokes", testRotateRefreshReuse},
	{"RotateRefreshUnknown", testRotateRefreshUnknown},
	{"RotateRefreshExpiry", testRotateRefreshExpiry},
	{"RotateRefreshRevoked", testRotateRefreshRevoked},
	{"RotateRefreshRace", testRotateRefreshRace},
	{"RotateRefreshSuspendedUser", testRotateRefreshSuspended},
	{"RevokeSession", testRevokeSession},
	{"SessionTimesRoundTrip", testSessionTimes},
	{"SessionState", testSessionState},
	{"ChangePasswordEndsSessions", testChangePassword},
}

// fixture is a created user with its first session and refresh token.
type fixture struct {
	user    accounts.User
	session accounts.Session
	refresh []byte
}

// newUser is an active user created at created.
func newUser(email, name string, created time.Time) accounts.User {
	return accounts.User{ID: newID(), Email: email, DisplayName: name, Status: accounts.StatusActive, CreatedAt: created}
}

// newSession is a session of userID opened at created, lasting a day.
func newSession(userID string, created time.Time) accounts.Session {
	return accounts.Session{ID: newID(), UserID: userID, CreatedAt: created, ExpiresAt: created.Add(24 * time.Hour)}
}

// createUser stores u with a first session opened when u was created.
func createUser(t *testing.T, s store.Store, u accounts.User) fixture {
	t.Helper()
	f := fixture{user: u, session: newSession(u.ID, u.CreatedAt), refresh: hashOf("first " + u.ID)}
	must(t, "CreateUser", s.Accounts.CreateUser(t.Context(), u, "hash-"+u.ID, f.session, f.refresh))
	return f
}

// addSession opens another session of userID and returns its token hash.
func addSession(t *testing.T, s store.Store, userID string, created time.Time) (accounts.Session, []byte) {
	t.Helper()
	sess := newSession(userID, created)
	refresh := hashOf("session " + sess.ID)
	must(t, "CreateSession", s.Accounts.CreateSession(t.Context(), sess, refresh))
	return sess, refresh
}

func checkUser(t *testing.T, what string, got, want accounts.User) {
	t.Helper()
	if got.ID != want.ID || got.Email != want.Email || got.DisplayName != want.DisplayName || got.Status != want.Status {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
	checkTime(t, what+" CreatedAt", got.CreatedAt, want.CreatedAt)
}

func checkSession(t *testing.T, what string, got, want accounts.Session) {
	t.Helper()
	if got.ID != want.ID || got.UserID != want.UserID {
		t.Errorf("%s: got session %s of user %s, want %s of %s", what, got.ID, got.UserID, want.ID, want.UserID)
	}
	checkTime(t, what+" CreatedAt", got.CreatedAt, want.CreatedAt)
	checkTime(t, what+" ExpiresAt", got.ExpiresAt, want.ExpiresAt)
	switch {
	case (got.RevokedAt == nil) != (want.RevokedAt == nil):
		t.Errorf("%s RevokedAt: got %v, want %v", what, got.RevokedAt, want.RevokedAt)
	case got.RevokedAt != nil:
		checkTime(t, what+" RevokedAt", *got.RevokedAt, *want.RevokedAt)
	}
}

func testCreateUserRoundTrip(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	got, err := s.Accounts.UserByID(t.Context(), f.user.ID)
	must(t, "UserByID", err)
	checkUser(t, "UserByID", got, f.user)

	got, hash, err := s.Accounts.UserCredentials(t.Context(), "ann@example.com")
	must(t, "UserCredentials", err)
	checkUser(t, "UserCredentials", got, f.user)
	if want := "hash-" + f.user.ID; hash != want {
		t.Errorf("UserCredentials hash: got %q, want %q", hash, want)
	}
	// The first session and its token were stored with the user.
	sess, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, hashOf("next"), t0.Add(time.Minute))
	must(t, "RotateRefresh first token", err)
	checkSession(t, "first session", sess, f.session)
}

func testCreateUserEmailTaken(t *testing.T, s store.Store) {
	createUser(t, s, newUser("ann@example.com", "Ann", t0))
	dup := newUser("ann@example.com", "Other Ann", t0)
	sess := newSession(dup.ID, t0)
	err := s.Accounts.CreateUser(t.Context(), dup, "h", sess, hashOf("dup"))
	checkErr(t, "CreateUser duplicate", err, accounts.ErrEmailTaken)

	// Nothing of the failed registration was kept.
	_, err = s.Accounts.UserByID(t.Context(), dup.ID)
	checkErr(t, "UserByID of refused user", err, accounts.ErrUserNotFound)
	_, err = s.Accounts.RevokeSession(t.Context(), hashOf("dup"), t0)
	checkErr(t, "RevokeSession of refused user's token", err, accounts.ErrRefreshUnknown)
}

// testCreateUserAtomic makes the last insert of a registration fail (its
// refresh-token hash is taken) and checks that the user was not kept.
func testCreateUserAtomic(t *testing.T, s store.Store) {
	first := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	u := newUser("bob@example.com", "Bob", t0)
	if err := s.Accounts.CreateUser(t.Context(), u, "h", newSession(u.ID, t0), first.refresh); err == nil {
		t.Fatal("CreateUser reusing a refresh-token hash: got nil error")
	}
	_, err := s.Accounts.UserByID(t.Context(), u.ID)
	checkErr(t, "UserByID after a failed registration", err, accounts.ErrUserNotFound)
	createUser(t, s, u) // the email is still free
}

func testCreateUserRace(t *testing.T, s store.Store) {
	const n = 20
	errs := race(n, func(i int) error {
		u := newUser("race@example.com", fmt.Sprint("racer ", i), t0)
		return s.Accounts.CreateUser(t.Context(), u, "h", newSession(u.ID, t0), hashOf(fmt.Sprint("race ", i)))
	})
	if ok := countRace(t, errs, accounts.ErrEmailTaken); ok != 1 {
		t.Errorf("%d racing CreateUser with one email: got %d successes, want 1", n, ok)
	}
	_, total, err := s.Accounts.ListUsers(t.Context(), accounts.UserFilter{}, page(50, 0))
	must(t, "ListUsers", err)
	if total != 1 {
		t.Errorf("users after race: got %d, want 1", total)
	}
}

func testUserNotFound(t *testing.T, s store.Store) {
	createUser(t, s, newUser("ann@example.com", "Ann", t0)) // not empty: a lookup must not find the wrong row
	missing := newID()
	ctx := t.Context()
	for _, c := range []struct {
		op  string
		err error
	}{
		{"UserByID", second(s.Accounts.UserByID(ctx, missing))},
		{"UserCredentials", third(s.Accounts.UserCredentials(ctx, "nobody@example.com"))},
		{"UpdateDisplayName", second(s.Accounts.UpdateDisplayName(ctx, missing, "x"))},
		{"SetPasswordHash", s.Accounts.SetPasswordHash(ctx, missing, "x")},
		{"SetUserStatus", second(accounts.SetUserStatus(ctx, s.Accounts, missing, accounts.StatusSuspended, t0, entry("a", "user.suspend", "user")))},
		{"ChangePassword", second(s.Accounts.ChangePassword(ctx, missing, "x", t0, newSession(missing, t0), hashOf("x")))},
	} {
		checkErr(t, c.op, c.err, accounts.ErrUserNotFound)
	}
}

// second and third pick the error out of a call's results.
func second[A any](_ A, err error) error        { return err }
func third[A, B any](_ A, _ B, err error) error { return err }

func testUpdateDisplayName(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	got, err := s.Accounts.UpdateDisplayName(t.Context(), f.user.ID, "Ann B.")
	must(t, "UpdateDisplayName", err)
	want := f.user
	want.DisplayName = "Ann B."
	checkUser(t, "UpdateDisplayName result", got, want)
	got, err = s.Accounts.UserByID(t.Context(), f.user.ID)
	must(t, "UserByID", err)
	checkUser(t, "UserByID after rename", got, want)
}

func testSetPasswordHash(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	must(t, "SetPasswordHash", s.Accounts.SetPasswordHash(t.Context(), f.user.ID, "rehashed"))
	_, hash, err := s.Accounts.UserCredentials(t.Context(), "ann@example.com")
	must(t, "UserCredentials", err)
	if hash != "rehashed" {
		t.Errorf("hash after SetPasswordHash: got %q, want %q", hash, "rehashed")
	}
}

func testListUsers(t *testing.T, s store.Store) {
	seed := []accounts.User{
		newUser("alice@example.com", "Alice Smith", t0.Add(1*time.Minute)),
		newUser("bob@example.com", "Bob 100% Real", t0.Add(2*time.Minute)),
		newUser("carol@example.org", "Carol_Jones", t0.Add(3*time.Minute)),
		newUser("dave@example.com", "DAVE", t0.Add(4*time.Minute)),
		newUser("erin@example.net", "Erin", t0.Add(4*time.Minute)), // same time as dave: id breaks the tie
		newUser("frank@example.com", "Frank!", t0.Add(5*time.Minute)),
	}
	seed[2].Status, seed[3].Status = accounts.StatusSuspended, accounts.StatusSuspended
	for _, u := range seed {
		createUser(t, s, u)
	}
	newest := newestFirst(seed)
	emails := func(us []accounts.User, keep ...string) []string { return pick(us, keep) }
	for _, c := range []struct {
		name   string
		filter accounts.UserFilter
		page   [2]int
		want   []string // emails, in order
		total  int
	}{
		{"all", accounts.UserFilter{}, [2]int{50, 0}, emails(newest), 6},
		{"email case-insensitive", query("EXAMPLE.COM"), [2]int{50, 0},
			emails(newest, "frank@example.com", "dave@example.com", "bob@example.com", "alice@example.com"), 4},
		{"display name case-insensitive", query("smith"), [2]int{50, 0}, []string{"alice@example.com"}, 1},
		{"part of the email", query("ve@exa"), [2]int{50, 0}, []string{"dave@example.com"}, 1},
		{"percent is literal", query("00% "), [2]int{50, 0}, []string{"bob@example.com"}, 1},
		{"percent is no wildcard", query("b%l"), [2]int{50, 0}, nil, 0},
		{"underscore is literal", query("l_j"), [2]int{50, 0}, []string{"carol@example.org"}, 1},
		{"underscore is no wildcard", query("a_i"), [2]int{50, 0}, nil, 0},
		{"escape character is literal", query("nk!"), [2]int{50, 0}, []string{"frank@example.com"}, 1},
		{"short query: start of the email", query("ER"), [2]int{50, 0}, []string{"erin@example.net"}, 1},
		{"short query: start of the display name", query("b"), [2]int{50, 0}, []string{"bob@example.com"}, 1},
		{"short query: not a part", query("li"), [2]int{50, 0}, nil, 0},
		{"short query: literal", query("%"), [2]int{50, 0}, nil, 0},
		{"sort email", accounts.UserFilter{Sort: "email"}, [2]int{50, 0},
			[]string{"alice@example.com", "bob@example.com", "carol@example.org", "dave@example.com", "erin@example.net", "frank@example.com"}, 6},
		{"sort -display_name", accounts.UserFilter{Sort: "-display_name"}, [2]int{50, 0},
			[]string{"frank@example.com", "erin@example.net", "dave@example.com", "carol@example.org", "bob@example.com", "alice@example.com"}, 6},
		{"sort created_at", accounts.UserFilter{Sort: "created_at"}, [2]int{50, 0}, reversed(emails(newest)), 6},
		{"sorted page of a query", accounts.UserFilter{Query: "example.com", Sort: "email"}, [2]int{2, 1},
			[]string{"bob@example.com", "dave@example.com"}, 4},
		{"status", accounts.UserFilter{Status: accounts.StatusSuspended}, [2]int{50, 0},
			emails(newest, "carol@example.org", "dave@example.com"), 2},
		{"status and query", accounts.UserFilter{Query: "example.com", Status: accounts.StatusActive}, [2]int{50, 0},
			[]string{"frank@example.com", "bob@example.com", "alice@example.com"}, 3},
		{"page", accounts.UserFilter{}, [2]int{2, 1}, emails(newest)[1:3], 6},
		{"page past the end", accounts.UserFilter{}, [2]int{2, 6}, nil, 6},
		{"no match", query("zed"), [2]int{50, 0}, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, total, err := s.Accounts.ListUsers(t.Context(), c.filter, page(c.page[0], c.page[1]))
			must(t, "ListUsers", err)
			if g := emails(got); !slices.Equal(g, c.want) {
				t.Errorf("users: got %v, want %v", g, c.want)
			}
			if total != c.total {
				t.Errorf("total: got %d, want %d", total, c.total)
			}
		})
	}
	all, _, err := s.Accounts.ListUsers(t.Context(), accounts.UserFilter{}, page(50, 0))
	must(t, "ListUsers", err)
	for i := range all {
		checkUser(t, "listed user", all[i], newest[i])
	}
}

// testListUsersTimeOrder checks that times order correctly in SQL, down
// to the microsecond and across years.
func testListUsersTimeOrder(t *testing.T, s store.Store) {
	whole := t0.Truncate(time.Second)
	times := []time.Time{
		t0, t0.Add(time.Microsecond), t0.Add(-time.Microsecond), t0.Add(time.Hour),
		// Fractions of one second whose shortest spellings differ in length.
		whole, whole.Add(100 * time.Millisecond), whole.Add(120 * time.Millisecond), whole.Add(time.Microsecond),
		time.Date(1999, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	var seed []accounts.User
	for i, at := range times {
		u := newUser(fmt.Sprintf("u%d@example.com", i), "U", at)
		createUser(t, s, u)
		seed = append(seed, u)
	}
	got, _, err := s.Accounts.ListUsers(t.Context(), accounts.UserFilter{}, page(50, 0))
	must(t, "ListUsers", err)
	if g, w := pick(got, nil), pick(newestFirst(seed), nil); !slices.Equal(g, w) {
		t.Errorf("order: got %v, want %v", g, w)
	}
}

func query(q string) accounts.UserFilter {
	return accounts.UserFilter{Query: q, QueryPrefix: paging.PrefixOnly(q)}
}

// reversed is a reversed copy of s.
func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// newestFirst sorts users as listings must: created_at, then id, descending.
func newestFirst(us []accounts.User) []accounts.User {
	out := slices.Clone(us)
	slices.SortFunc(out, func(a, b accounts.User) int {
		if c := stored(b.CreatedAt).Compare(stored(a.CreatedAt)); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out
}

// pick lists the emails of us, keeping only those in keep unless it is nil.
func pick(us []accounts.User, keep []string) []string {
	var out []string
	for _, u := range us {
		if keep == nil || slices.Contains(keep, u.Email) {
			out = append(out, u.Email)
		}
	}
	return out
}

// suspendFixture is a user with open sessions and one revoked earlier,
// and another user's open session. tokens and ids are keyed by state:
// "open1", "open2", "revokedEarlier", and "bystander".
type suspendFixture struct {
	user         accounts.User
	tokens       map[string][]byte
	ids          map[string]string
	earlier, now time.Time
}

func newSuspendFixture(t *testing.T, s store.Store) suspendFixture {
	t.Helper()
	f := suspendFixture{
		tokens: map[string][]byte{}, ids: map[string]string{},
		earlier: t0.Add(30 * time.Minute), now: t0.Add(2 * time.Hour),
	}
	first := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	f.user = first.user
	f.tokens["open1"], f.ids["open1"] = first.refresh, first.session.ID
	for _, state := range []string{"open2", "revokedEarlier"} {
		sess, refresh := addSession(t, s, f.user.ID, t0)
		f.tokens[state], f.ids[state] = refresh, sess.ID
	}
	revoke(t, s, f.tokens["revokedEarlier"], f.earlier)
	bystander := createUser(t, s, newUser("bob@example.com", "Bob", t0))
	f.tokens["bystander"], f.ids["bystander"] = bystander.refresh, bystander.session.ID
	return f
}

func revoke(t *testing.T, s store.Store, refresh []byte, at time.Time) {
	t.Helper()
	_, err := s.Accounts.RevokeSession(t.Context(), refresh, at)
	must(t, "RevokeSession", err)
}

func testSuspend(t *testing.T, s store.Store) {
	f := newSuspendFixture(t, s)
	rec := entry("admin-1", "user.suspend", "user")
	rec.TargetID = f.user.ID
	ids, err := accounts.SetUserStatus(t.Context(), s.Accounts, f.user.ID, accounts.StatusSuspended, f.now, rec)
	must(t, "SetUserStatus", err)
	checkIDs(t, "revoked session ids", ids, []string{f.ids["open1"], f.ids["open2"]})

	u, err := s.Accounts.UserByID(t.Context(), f.user.ID)
	must(t, "UserByID", err)
	if u.Status != accounts.StatusSuspended {
		t.Errorf("status: got %q, want %q", u.Status, accounts.StatusSuspended)
	}
	checkRevokedAt(t, s, "open session", f.tokens["open1"], f.now)
	checkRevokedAt(t, s, "open session", f.tokens["open2"], f.now)
	checkRevokedAt(t, s, "session revoked earlier", f.tokens["revokedEarlier"], f.earlier)
	_, err = s.Accounts.RotateRefresh(t.Context(), f.tokens["bystander"], hashOf("bystander next"), f.now)
	must(t, "another user's session stays open", err)
	checkOneAudit(t, s, rec, f.now)

	// A retry revokes nothing more, and keeps the revocation times.
	ids, err = accounts.SetUserStatus(t.Context(), s.Accounts, f.user.ID, accounts.StatusSuspended, f.now.Add(time.Minute), rec)
	must(t, "SetUserStatus retry", err)
	checkIDs(t, "revoked session ids on retry", ids, nil)
	checkRevokedAt(t, s, "open session after a retry", f.tokens["open1"], f.now)
}

func testResume(t *testing.T, s store.Store) {
	f := newSuspendFixture(t, s)
	_, err := accounts.SetUserStatus(t.Context(), s.Accounts, f.user.ID, accounts.StatusSuspended, f.now, entry("a", "user.suspend", "user"))
	must(t, "suspend", err)
	later := f.now.Add(time.Hour)
	rec := entry("admin-2", "user.resume", "user")
	ids, err := accounts.SetUserStatus(t.Context(), s.Accounts, f.user.ID, accounts.StatusActive, later, rec)
	must(t, "resume", err)
	checkIDs(t, "session ids revoked by resuming", ids, nil)
	u, err := s.Accounts.UserByID(t.Context(), f.user.ID)
	must(t, "UserByID", err)
	if u.Status != accounts.StatusActive {
		t.Errorf("status: got %q, want %q", u.Status, accounts.StatusActive)
	}
	checkRevokedAt(t, s, "session revoked by the suspension", f.tokens["open1"], f.now)
	entries, total, err := s.Audit.ListAudit(t.Context(), auditFilter("", "user.resume", ""), page(50, 0))
	must(t, "ListAudit", err)
	if total != 1 || len(entries) != 1 {
		t.Fatalf("resume audit rows: got %d, want 1", total)
	}
}

func testSetUserStatusNotFound(t *testing.T, s store.Store) {
	_, err := accounts.SetUserStatus(t.Context(), s.Accounts, newID(), accounts.StatusSuspended, t0, entry("a", "user.suspend", "user"))
	checkErr(t, "SetUserStatus", err, accounts.ErrUserNotFound)
	_, total, err := s.Audit.ListAudit(t.Context(), auditFilter("", "", ""), page(50, 0))
	must(t, "ListAudit", err)
	if total != 0 {
		t.Errorf("audit rows after a refused change: got %d, want 0", total)
	}
}

func checkIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// checkRevokedAt checks when the session of refresh was revoked, through
// RevokeSession, which keeps an earlier revocation time.
func checkRevokedAt(t *testing.T, s store.Store, what string, refresh []byte, want time.Time) {
	t.Helper()
	sess, err := s.Accounts.RevokeSession(t.Context(), refresh, want.Add(time.Hour))
	must(t, "RevokeSession", err)
	if sess.RevokedAt == nil {
		t.Fatalf("%s: not revoked, want revoked at %v", what, want)
	}
	checkTime(t, what+" RevokedAt", *sess.RevokedAt, want)
}

func testCreateSession(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	sess, refresh := addSession(t, s, f.user.ID, t0.Add(time.Minute))
	got, err := s.Accounts.RotateRefresh(t.Context(), refresh, hashOf("next"), t0.Add(2*time.Minute))
	must(t, "RotateRefresh", err)
	checkSession(t, "new session", got, sess)
}

func testRotateRefresh(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	token := f.refresh
	for i := range 3 {
		next := hashOf(fmt.Sprint("rotation ", i))
		got, err := s.Accounts.RotateRefresh(t.Context(), token, next, t0.Add(time.Duration(i+1)*time.Minute))
		must(t, fmt.Sprint("rotation ", i), err)
		checkSession(t, "rotated session", got, f.session)
		token = next
	}
}

func testRotateRefreshReuse(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	next := hashOf("next")
	_, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, next, t0.Add(time.Minute))
	must(t, "RotateRefresh", err)
	reuseAt := t0.Add(2 * time.Minute)
	got, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, hashOf("thief"), reuseAt)
	checkErr(t, "RotateRefresh with a used token", err, accounts.ErrRefreshReused)
	want := f.session
	want.RevokedAt = &reuseAt
	checkSession(t, "session returned with ErrRefreshReused", got, want)

	// The reuse revoked the session, and that was committed: the newest
	// token no longer works either.
	_, err = s.Accounts.RotateRefresh(t.Context(), next, hashOf("after"), t0.Add(3*time.Minute))
	checkErr(t, "RotateRefresh after reuse", err, accounts.ErrSessionEnded)
	checkRevokedAt(t, s, "reused session", next, reuseAt)
	_, err = s.Accounts.RevokeSession(t.Context(), hashOf("thief"), t0)
	checkErr(t, "the reuser's token", err, accounts.ErrRefreshUnknown)
}

func testRotateRefreshUnknown(t *testing.T, s store.Store) {
	createUser(t, s, newUser("ann@example.com", "Ann", t0))
	_, err := s.Accounts.RotateRefresh(t.Context(), hashOf("never issued"), hashOf("next"), t0)
	checkErr(t, "RotateRefresh", err, accounts.ErrRefreshUnknown)
}

func testRotateRefreshExpiry(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	expiry := f.session.ExpiresAt
	next := hashOf("next")
	_, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, next, expiry.Add(-time.Microsecond))
	must(t, "RotateRefresh a microsecond before expiry", err)
	_, err = s.Accounts.RotateRefresh(t.Context(), next, hashOf("late"), expiry)
	checkErr(t, "RotateRefresh at expiry", err, accounts.ErrSessionEnded)
}

func testRotateRefreshRevoked(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	revoke(t, s, f.refresh, t0.Add(time.Minute))
	_, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, hashOf("next"), t0.Add(2*time.Minute))
	checkErr(t, "RotateRefresh of revoked session", err, accounts.ErrSessionEnded)
}

// testRotateRefreshSuspended: the current token of a suspended user's
// session, revoked by the suspension or opened after it, ends with
// ErrSessionEnded and the session (so the caller can say why), and is not
// consumed: presented again it is not a reuse.
func testRotateRefreshSuspended(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	_, err := accounts.SetUserStatus(t.Context(), s.Accounts, f.user.ID, accounts.StatusSuspended, t0.Add(time.Minute), entry("a", "user.suspend", "user"))
	must(t, "suspend", err)
	late, lateRefresh := addSession(t, s, f.user.ID, t0.Add(2*time.Minute))
	for _, c := range []struct {
		name    string
		session accounts.Session
		token   []byte
	}{{"revoked by the suspension", f.session, f.refresh}, {"opened after it", late, lateRefresh}} {
		for i := range 2 {
			got, err := s.Accounts.RotateRefresh(t.Context(), c.token, hashOf(fmt.Sprint(c.name, i)), t0.Add(3*time.Minute))
			checkErr(t, "RotateRefresh, session "+c.name, err, accounts.ErrSessionEnded)
			if got.ID != c.session.ID || got.UserID != f.user.ID {
				t.Errorf("RotateRefresh, session %s: got session %q of user %q, want %q of %q",
					c.name, got.ID, got.UserID, c.session.ID, f.user.ID)
			}
		}
	}
}

func testRotateRefreshRace(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	const n = 20
	errs := race(n, func(i int) error {
		got, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, hashOf(fmt.Sprint("next ", i)), t0.Add(time.Minute))
		if got.ID != f.session.ID {
			return fmt.Errorf("got session %q with error %w, want %q", got.ID, err, f.session.ID)
		}
		return err
	})
	// The first to consume the token wins; every later one is a reuse.
	if ok := countRace(t, errs, accounts.ErrRefreshReused); ok != 1 {
		t.Errorf("%d racing RotateRefresh with one token: got %d successes, want 1", n, ok)
	}
	sess, err := s.Accounts.RevokeSession(t.Context(), f.refresh, t0.Add(time.Hour))
	must(t, "RevokeSession", err)
	if sess.RevokedAt == nil || !sess.RevokedAt.Equal(stored(t0.Add(time.Minute))) {
		t.Errorf("session after reuse: got RevokedAt %v, want %v", sess.RevokedAt, stored(t0.Add(time.Minute)))
	}
}

func testRevokeSession(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	next := hashOf("next")
	_, err := s.Accounts.RotateRefresh(t.Context(), f.refresh, next, t0.Add(time.Minute))
	must(t, "RotateRefresh", err)

	at := t0.Add(2 * time.Minute)
	got, err := s.Accounts.RevokeSession(t.Context(), next, at)
	must(t, "RevokeSession by current token", err)
	want := f.session
	want.RevokedAt = &at
	checkSession(t, "revoked session", got, want)

	got, err = s.Accounts.RevokeSession(t.Context(), f.refresh, t0.Add(time.Hour))
	must(t, "RevokeSession again, by a rotated token", err)
	checkSession(t, "revoked again: first time kept", got, want)

	_, err = s.Accounts.RevokeSession(t.Context(), hashOf("never issued"), at)
	checkErr(t, "RevokeSession unknown", err, accounts.ErrRefreshUnknown)
}

func testSessionTimes(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	created := time.Date(2031, 7, 9, 23, 59, 59, 999999999, time.FixedZone("UTC-7", -7*3600))
	sess := accounts.Session{ID: newID(), UserID: f.user.ID, CreatedAt: created, ExpiresAt: created.Add(90 * 24 * time.Hour)}
	must(t, "CreateSession", s.Accounts.CreateSession(t.Context(), sess, hashOf("times")))
	revoked := created.Add(time.Nanosecond * 1500)
	got, err := s.Accounts.RevokeSession(t.Context(), hashOf("times"), revoked)
	must(t, "RevokeSession", err)
	want := sess
	want.RevokedAt = &revoked
	checkSession(t, "session times", got, want)
}

// checkState fails unless SessionState of id reports want.
func checkState(t *testing.T, s store.Store, what, id string, want accounts.SessionState) {
	t.Helper()
	got, err := s.Accounts.SessionState(t.Context(), id)
	must(t, what+": SessionState", err)
	if got.UserID != want.UserID || got.UserStatus != want.UserStatus {
		t.Errorf("%s: got user %s %s, want %s %s", what, got.UserID, got.UserStatus, want.UserID, want.UserStatus)
	}
	checkTime(t, what+" ExpiresAt", got.ExpiresAt, want.ExpiresAt)
	switch {
	case (got.RevokedAt == nil) != (want.RevokedAt == nil):
		t.Errorf("%s RevokedAt: got %v, want %v", what, got.RevokedAt, want.RevokedAt)
	case got.RevokedAt != nil:
		checkTime(t, what+" RevokedAt", *got.RevokedAt, *want.RevokedAt)
	}
}

func testSessionState(t *testing.T, s store.Store) {
	f := createUser(t, s, newUser("ann@example.com", "Ann", t0))
	want := accounts.SessionState{UserID: f.user.ID, ExpiresAt: f.session.ExpiresAt, UserStatus: accounts.StatusActive}
	checkState(t, s, "open session", f.session.ID, want)
	if !want.Live(t0.Add(time.Minute)) || want.Live(f.session.ExpiresAt) {
		t.Errorf("Live: want true before expiry and false at it")
	}

	at := t0.Add(time.Minute)
	revoke(t, s, f.refresh, at)
	want.RevokedAt = &at
	checkState(t, s, "revoked session", f.session.ID, want)

	other, _ := addSession(t, s, f.user.ID, t0)
	_, err := accounts.SetUserStatus(t.Context(), s.Accounts, f.user.ID, accounts.StatusSuspended, t0.Add(time.Hour), entry("a", "user.suspend", "user"))
	must(t, "suspend", err)
	suspendedAt := t0.Add(time.Hour)
	checkState(t, s, "session of a suspended user", other.ID,
		accounts.SessionState{UserID: f.user.ID, ExpiresAt: other.ExpiresAt, RevokedAt: &suspendedAt, UserStatus: accounts.StatusSuspended})

	_, err = s.Accounts.SessionState(t.Context(), newID())
	checkErr(t, "SessionState of an unknown session", err, accounts.ErrSessionEnded)
}

func testChangePassword(t *testing.T, s store.Store) {
	f := newSuspendFixture(t, s)
	next := newSession(f.user.ID, f.now)
	ids, err := s.Accounts.ChangePassword(t.Context(), f.user.ID, "new-hash", f.now, next, hashOf("after change"))
	must(t, "ChangePassword", err)
	checkIDs(t, "revoked session ids", ids, []string{f.ids["open1"], f.ids["open2"]})
	checkRevokedAt(t, s, "open session", f.tokens["open1"], f.now)
	checkRevokedAt(t, s, "session revoked earlier", f.tokens["revokedEarlier"], f.earlier)
	_, hash, err := s.Accounts.UserCredentials(t.Context(), f.user.Email)
	must(t, "UserCredentials", err)
	if hash != "new-hash" {
		t.Errorf("password hash: got %q, want %q", hash, "new-hash")
	}
	checkState(t, s, "the new session", next.ID,
		accounts.SessionState{UserID: f.user.ID, ExpiresAt: next.ExpiresAt, UserStatus: accounts.StatusActive})
	_, err = s.Accounts.RotateRefresh(t.Context(), hashOf("after change"), hashOf("rotated"), f.now.Add(time.Minute))
	must(t, "the new session's refresh token", err)
	_, err = s.Accounts.RotateRefresh(t.Context(), f.tokens["bystander"], hashOf("bystander next"), f.now)
	must(t, "another user's session stays open", err)
}
