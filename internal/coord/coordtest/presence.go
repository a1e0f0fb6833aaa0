package coordtest

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"hostgate/internal/coord"
)

// Presence subtests that check CountPresence rely on open returning a fresh
// Coord: the count is cluster-wide, so it cannot be scoped by key names.

func testPresenceSetGet(t *testing.T, c coord.Coord) {
	ctx, h := t.Context(), key(t, "host")
	wantPresence(t, c, h, "", false)
	must(t, c.SetPresence(ctx, h, "inst-a", long))
	wantPresence(t, c, h, "inst-a", true)
	wantPresence(t, c, key(t, "other"), "", false)
	// A reconnect to another instance takes over.
	must(t, c.SetPresence(ctx, h, "inst-b", long))
	wantPresence(t, c, h, "inst-b", true)
	wantPresenceCount(t, c, 1)
}

func testPresenceExpires(t *testing.T, c coord.Coord) {
	h := key(t, "host")
	must(t, c.SetPresence(t.Context(), h, "inst-a", short))
	eventually(t, "presence to expire", func() bool {
		_, ok := presence(t, c, h)
		return !ok
	})
	wantPresenceCount(t, c, 0)
}

// testPresenceRefreshBatch refreshes a batch the size of a busy instance's
// share of agents: some hosts were set with a short TTL (refresh must
// extend them), one was held by another instance (refresh takes it).
func testPresenceRefreshBatch(t *testing.T, c coord.Coord) {
	const n = 5000
	ctx := t.Context()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = key(t, "host"+strconv.Itoa(i))
	}
	for _, h := range ids[:10] {
		must(t, c.SetPresence(ctx, h, "inst-a", short))
	}
	must(t, c.SetPresence(ctx, ids[n-1], "inst-b", long))
	must(t, c.RefreshPresence(ctx, "inst-a", ids, long))
	time.Sleep(3 * short)
	wantPresenceCount(t, c, n)
	for _, h := range ids {
		wantPresence(t, c, h, "inst-a", true)
	}
	// An empty batch is a no-op, not an error.
	must(t, c.RefreshPresence(ctx, "inst-a", nil, long))
	wantPresenceCount(t, c, n)
}

// testPresenceClearBatch clears a batch the size of an instance's share of
// agents lost at once (a network cut), spanning several round trips: the
// hosts another instance took over and one never set stay as they are.
func testPresenceClearBatch(t *testing.T, c coord.Coord) {
	const n = 2500
	ctx := t.Context()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = key(t, "host"+strconv.Itoa(i))
	}
	must(t, c.RefreshPresence(ctx, "inst-a", ids, long))
	taken := []string{ids[0], ids[1200], ids[n-1]}
	for _, h := range taken {
		must(t, c.SetPresence(ctx, h, "inst-b", long))
	}
	must(t, c.ClearPresence(ctx, "inst-a", append(ids, key(t, "never set"))))
	wantPresenceCount(t, c, int64(len(taken)))
	for i, h := range ids {
		if slices.Contains(taken, h) {
			wantPresence(t, c, h, "inst-b", true)
		} else if i%97 == 0 {
			wantPresence(t, c, h, "", false)
		}
	}
	// An empty batch is a no-op, not an error.
	must(t, c.ClearPresence(ctx, "inst-a", nil))
}

func testPresenceClear(t *testing.T, c coord.Coord) {
	ctx, h := t.Context(), key(t, "host")
	must(t, c.SetPresence(ctx, h, "inst-a", long))
	must(t, c.SetPresence(ctx, h, "inst-b", long))
	// inst-a's late disconnect must not erase inst-b's connection.
	must(t, c.ClearPresence(ctx, "inst-a", []string{h}))
	wantPresence(t, c, h, "inst-b", true)
	wantPresenceCount(t, c, 1)
	must(t, c.ClearPresence(ctx, "inst-b", []string{h}))
	wantPresence(t, c, h, "", false)
	wantPresenceCount(t, c, 0)
	if err := c.ClearPresence(ctx, "inst-a", []string{key(t, "missing")}); err != nil {
		t.Fatalf("ClearPresence(missing): got %v, want nil", err)
	}
	// Cleared means gone: setting again starts afresh.
	must(t, c.SetPresence(ctx, h, "inst-a", long))
	wantPresence(t, c, h, "inst-a", true)
	wantPresenceCount(t, c, 1)
}

// testPresenceCountExpiry checks that the count drops with expiry alone,
// nobody clearing, and agrees with Presence.
func testPresenceCountExpiry(t *testing.T, c coord.Coord) {
	ctx := t.Context()
	live := []string{key(t, "live1"), key(t, "live2")}
	gone := []string{key(t, "gone1"), key(t, "gone2"), key(t, "gone3")}
	must(t, c.RefreshPresence(ctx, "inst-a", live, long))
	must(t, c.RefreshPresence(ctx, "inst-b", gone[:2], short))
	must(t, c.SetPresence(ctx, gone[2], "inst-b", short))
	eventually(t, "count to drop to the live hosts", func() bool { return presenceCount(t, c) == 2 })
	for _, h := range gone {
		wantPresence(t, c, h, "", false)
	}
	for _, h := range live {
		wantPresence(t, c, h, "inst-a", true)
	}
	// Expired hosts that come back count again.
	must(t, c.SetPresence(ctx, gone[0], "inst-b", long))
	wantPresenceCount(t, c, 3)
}

func testPresenceBadTTL(t *testing.T, c coord.Coord) {
	ctx, h := t.Context(), key(t, "host")
	for _, ttl := range []time.Duration{0, -time.Second} {
		if err := c.SetPresence(ctx, h, "inst-a", ttl); err == nil {
			t.Errorf("SetPresence(ttl=%v): got nil error, want one", ttl)
		}
		if err := c.RefreshPresence(ctx, "inst-a", []string{h}, ttl); err == nil {
			t.Errorf("RefreshPresence(ttl=%v): got nil error, want one", ttl)
		}
	}
	wantPresence(t, c, h, "", false)
	wantPresenceCount(t, c, 0)
}

func presence(t *testing.T, c coord.Coord, h string) (string, bool) {
	t.Helper()
	inst, ok, err := c.Presence(t.Context(), h)
	if err != nil {
		t.Fatalf("Presence(%q): got error %v, want nil", h, err)
	}
	return inst, ok
}

func wantPresence(t *testing.T, c coord.Coord, h, want string, wantOK bool) {
	t.Helper()
	if got, ok := presence(t, c, h); got != want || ok != wantOK {
		t.Fatalf("Presence(%q): got %q ok=%v, want %q ok=%v", h, got, ok, want, wantOK)
	}
}

func presenceCount(t *testing.T, c coord.Coord) int64 {
	t.Helper()
	n, err := c.CountPresence(t.Context())
	if err != nil {
		t.Fatalf("CountPresence: got error %v, want nil", err)
	}
	return n
}

func wantPresenceCount(t *testing.T, c coord.Coord, want int64) {
	t.Helper()
	if got := presenceCount(t, c); got != want {
		t.Fatalf("CountPresence: got %d, want %d", got, want)
	}
}

func presenceMany(t *testing.T, c coord.Coord, ids []string) map[string]string {
	t.Helper()
	got, err := c.PresenceMany(t.Context(), ids)
	if err != nil {
		t.Fatalf("PresenceMany(%d hosts): got error %v, want nil", len(ids), err)
	}
	if got == nil {
		t.Fatalf("PresenceMany(%d hosts): got a nil map, want an empty one", len(ids))
	}
	return got
}

func testPresenceManyEmpty(t *testing.T, c coord.Coord) {
	must(t, c.SetPresence(t.Context(), key(t, "host"), "inst-a", long))
	for _, ids := range [][]string{nil, {}} {
		if got := presenceMany(t, c, ids); len(got) != 0 {
			t.Fatalf("PresenceMany(%v): got %v, want empty", ids, got)
		}
	}
}

// testPresenceManyMissing mixes live, never-set, expired and cleared hosts,
// and a host asked for twice.
func testPresenceManyMissing(t *testing.T, c coord.Coord) {
	ctx := t.Context()
	live, gone, cleared, never := key(t, "live"), key(t, "gone"), key(t, "cleared"), key(t, "never")
	must(t, c.SetPresence(ctx, live, "inst-a", long))
	must(t, c.SetPresence(ctx, gone, "inst-b", short))
	must(t, c.SetPresence(ctx, cleared, "inst-b", long))
	must(t, c.ClearPresence(ctx, "inst-b", []string{cleared}))
	eventually(t, "the short presence to expire", func() bool {
		_, ok := presence(t, c, gone)
		return !ok
	})
	got := presenceMany(t, c, []string{never, live, gone, cleared, live})
	want := map[string]string{live: "inst-a"}
	if len(got) != len(want) || got[live] != "inst-a" {
		t.Fatalf("PresenceMany: got %v, want %v", got, want)
	}
}

// testPresenceManyBatch reads more hosts than one chunk of a batched
// implementation, across two instances, and agrees with Presence.
func testPresenceManyBatch(t *testing.T, c coord.Coord) {
	ctx := t.Context()
	const n = 2500
	ids := make([]string, n)
	for i := range ids {
		ids[i] = key(t, "host-"+strconv.Itoa(i))
	}
	must(t, c.RefreshPresence(ctx, "inst-a", ids[:n/2], long))
	must(t, c.RefreshPresence(ctx, "inst-b", ids[n/2:n-100], long))
	got := presenceMany(t, c, ids)
	if len(got) != n-100 {
		t.Fatalf("PresenceMany(%d hosts): got %d present, want %d", n, len(got), n-100)
	}
	for i, h := range ids {
		want := map[bool]string{true: "inst-a", false: "inst-b"}[i < n/2]
		if i >= n-100 {
			want = ""
		}
		if got[h] != want {
			t.Fatalf("PresenceMany[%d]: got %q, want %q", i, got[h], want)
		}
	}
	wantPresence(t, c, ids[0], "inst-a", true)
}
