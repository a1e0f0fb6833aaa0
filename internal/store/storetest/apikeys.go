package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/apikeys"
	"hostgate/internal/audit"
	"hostgate/internal/store"
)

var apikeysTests = []test{
	{"CreateAndList", testKeysCreateAndList},
	{"DeleteKey", testDeleteKey},
	{"KeyForAuth", testKeyForAuth},
	{"KeyForAuthSuspendedOwner", testKeyForAuthSuspended},
	{"TouchKeys", testTouchKeys},
}

// newKey is a key of owner created at created; ids are 16 hex characters
// in the service, any text to the store.
func newKey(owner, name string, created time.Time) apikeys.Key {
	return apikeys.Key{ID: strings.ReplaceAll(newID(), "-", "")[:16], UserID: owner, Name: name, CreatedAt: created}
}

func createKey(t *testing.T, s store.Store, k apikeys.Key) apikeys.Key {
	t.Helper()
	must(t, "CreateKey", s.APIKeys.CreateKey(t.Context(), k, hashOf("secret "+k.ID)))
	return k
}

func checkKey(t *testing.T, what string, got, want apikeys.Key) {
	t.Helper()
	if got.ID != want.ID || got.UserID != want.UserID || got.Name != want.Name {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
	checkTime(t, what+" CreatedAt", got.CreatedAt, want.CreatedAt)
	checkNullTime(t, what+" LastUsedAt", got.LastUsedAt, want.LastUsedAt)
}

// listKeys lists the owner's keys, failing the test on error.
func listKeys(t *testing.T, s store.Store, owner string) []apikeys.Key {
	t.Helper()
	keys, err := s.APIKeys.ListKeys(t.Context(), owner)
	must(t, "ListKeys", err)
	return keys
}

func keyIDs(keys []apikeys.Key) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.ID)
	}
	return out
}

func testKeysCreateAndList(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	var seed []apikeys.Key
	for i, at := range []time.Time{t0, t0.Add(time.Hour), t0.Add(-time.Minute), t0} {
		seed = append(seed, createKey(t, s, newKey(ann, fmt.Sprint("key ", i), at)))
	}
	createKey(t, s, newKey(bob, "bob's", t0))
	want := slices.Clone(seed)
	slices.SortFunc(want, func(a, b apikeys.Key) int { // newest first, id breaking ties
		if c := stored(b.CreatedAt).Compare(stored(a.CreatedAt)); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	got := listKeys(t, s, ann)
	if g, w := keyIDs(got), keyIDs(want); !slices.Equal(g, w) {
		t.Fatalf("ListKeys: got %v, want %v", g, w)
	}
	for i := range got {
		checkKey(t, "listed key", got[i], want[i])
	}
	if got := listKeys(t, s, newID()); len(got) != 0 {
		t.Errorf("ListKeys of an unknown owner: got %v, want none", keyIDs(got))
	}
	if err := s.APIKeys.CreateKey(t.Context(), seed[0], hashOf("again")); err == nil {
		t.Error("CreateKey with a taken id: got nil error")
	}
}

func testDeleteKey(t *testing.T, s store.Store) {
	ann, bob := owner(t, s, "ann@example.com"), owner(t, s, "bob@example.com")
	k := createKey(t, s, newKey(ann, "doomed", t0))
	kept := createKey(t, s, newKey(ann, "kept", t0))

	checkErr(t, "DeleteKey of another owner's key", s.APIKeys.DeleteKey(t.Context(), bob, k.ID, t0), apikeys.ErrNotFound)
	checkErr(t, "DeleteKey of an unknown key", s.APIKeys.DeleteKey(t.Context(), ann, newID(), t0), apikeys.ErrNotFound)
	if _, _, err := s.APIKeys.KeyForAuth(t.Context(), k.ID); err != nil {
		t.Fatalf("KeyForAuth after refused deletions: %v", err)
	}

	must(t, "DeleteKey", s.APIKeys.DeleteKey(t.Context(), ann, k.ID, t0.Add(time.Minute)))
	checkErr(t, "DeleteKey again", s.APIKeys.DeleteKey(t.Context(), ann, k.ID, t0), apikeys.ErrNotFound)
	if got := keyIDs(listKeys(t, s, ann)); !slices.Equal(got, []string{kept.ID}) {
		t.Errorf("ListKeys after deletion: got %v, want only %s", got, kept.ID)
	}
	_, _, err := s.APIKeys.KeyForAuth(t.Context(), k.ID)
	checkErr(t, "KeyForAuth of a deleted key", err, apikeys.ErrNotFound)
	must(t, "TouchKeys of a deleted key", s.APIKeys.TouchKeys(t.Context(), map[string]time.Time{k.ID: t0}))
}

func testKeyForAuth(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	k := createKey(t, s, newKey(ann, "k", t0))
	createKey(t, s, newKey(ann, "other", t0))
	user, hash, err := s.APIKeys.KeyForAuth(t.Context(), k.ID)
	must(t, "KeyForAuth", err)
	if user != ann || !bytes.Equal(hash, hashOf("secret "+k.ID)) {
		t.Errorf("KeyForAuth: got %q %x, want %q %x", user, hash, ann, hashOf("secret "+k.ID))
	}
	_, _, err = s.APIKeys.KeyForAuth(t.Context(), newID())
	checkErr(t, "KeyForAuth of an unknown key", err, apikeys.ErrNotFound)
}

func testKeyForAuthSuspended(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	k := createKey(t, s, newKey(ann, "k", t0))
	_, err := accounts.SetUserStatus(t.Context(), s.Accounts, ann, accounts.StatusSuspended, t0, entry("a", audit.ActionUserSuspend, "user"))
	must(t, "suspend", err)
	_, _, err = s.APIKeys.KeyForAuth(t.Context(), k.ID)
	checkErr(t, "KeyForAuth of a suspended user's key", err, apikeys.ErrNotFound)
	if got := listKeys(t, s, ann); len(got) != 1 {
		t.Errorf("ListKeys of a suspended user: got %d keys, want 1 (suspension deletes nothing)", len(got))
	}

	_, err = accounts.SetUserStatus(t.Context(), s.Accounts, ann, accounts.StatusActive, t0, entry("a", audit.ActionUserResume, "user"))
	must(t, "resume", err)
	user, _, err := s.APIKeys.KeyForAuth(t.Context(), k.ID)
	must(t, "KeyForAuth after resuming", err)
	if user != ann {
		t.Errorf("KeyForAuth after resuming: got user %q, want %q", user, ann)
	}
}

func testTouchKeys(t *testing.T, s store.Store) {
	ann := owner(t, s, "ann@example.com")
	a := createKey(t, s, newKey(ann, "a", t0))
	b := createKey(t, s, newKey(ann, "b", t0.Add(-time.Second)))
	must(t, "TouchKeys of nothing", s.APIKeys.TouchKeys(t.Context(), nil))

	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	must(t, "TouchKeys", s.APIKeys.TouchKeys(t.Context(), map[string]time.Time{a.ID: t2, b.ID: t1, newID(): t1}))
	a.LastUsedAt, b.LastUsedAt = &t2, &t1
	checkKeys(t, s, ann, a, b)

	// Older uses never move last_used_at back; newer ones move it on.
	t3 := t2.Add(time.Microsecond)
	must(t, "TouchKeys", s.APIKeys.TouchKeys(t.Context(), map[string]time.Time{a.ID: t1, b.ID: t3}))
	b.LastUsedAt = &t3
	checkKeys(t, s, ann, a, b)
}

// checkKeys checks the owner's keys are want, in order.
func checkKeys(t *testing.T, s store.Store, owner string, want ...apikeys.Key) {
	t.Helper()
	got := listKeys(t, s, owner)
	if len(got) != len(want) {
		t.Fatalf("ListKeys: got %v, want %v", keyIDs(got), keyIDs(want))
	}
	for i := range got {
		checkKey(t, "key", got[i], want[i])
	}
}
