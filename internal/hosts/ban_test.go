package hosts

import "testing"

func TestBanStatus(t *testing.T) {
	for _, cur := range []Status{StatusPending, StatusOnline, StatusStale, StatusOffline, StatusBanned} {
		if got := BanStatus(cur, true); got != StatusBanned {
			t.Errorf("banning a host %s: %s, want banned", cur, got)
		}
		want := cur
		if cur == StatusBanned {
			want = StatusOffline
		}
		if got := BanStatus(cur, false); got != want {
			t.Errorf("unbanning a host %s: %s, want %s", cur, got, want)
		}
	}
}
