package hosts

import (
	"slices"
	"testing"

	"hostgate/internal/apperr"
)

// TestAdminQueryFilter: the admin list's liveness filter is a set of
// stored statuses, intersected with the status asked for; a query
// shorter than three characters matches by prefix; the OS family is
// lower case; unknown statuses and sorts are invalid_query.
func TestAdminQueryFilter(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name     string
		q        AdminQuery
		statuses []Status
		none     bool
	}{
		{"nothing", AdminQuery{}, nil, false},
		{"status", AdminQuery{Status: StatusBanned}, []Status{StatusBanned}, false},
		{"online", AdminQuery{Online: &yes}, []Status{StatusOnline}, false},
		{"not online", AdminQuery{Online: &no}, []Status{StatusPending, StatusStale, StatusOffline, StatusBanned}, false},
		{"online and status online", AdminQuery{Online: &yes, Status: StatusOnline}, []Status{StatusOnline}, false},
		{"online and another status", AdminQuery{Online: &yes, Status: StatusStale}, nil, true},
		{"not online and status online", AdminQuery{Online: &no, Status: StatusOnline}, nil, true},
		{"not online and status stale", AdminQuery{Online: &no, Status: StatusStale}, []Status{StatusStale}, false},
	} {
		f, none, err := c.q.filter()
		if err != nil || none != c.none || !slices.Equal(f.Statuses, c.statuses) {
			t.Errorf("%s: got statuses %v none %v err %v, want %v none %v", c.name, f.Statuses, none, err, c.statuses, c.none)
		}
	}
	for q, prefix := range map[string]bool{"": true, "a": true, "ab": true, "éé": true, "abc": false, "ééé": false} {
		if f, _, _ := (AdminQuery{Query: q}).filter(); f.QueryPrefix != prefix {
			t.Errorf("query %q: prefix %v, want %v", q, f.QueryPrefix, prefix)
		}
	}
	if f, _, _ := (AdminQuery{OS: "Linux"}).filter(); f.OS != "linux" {
		t.Errorf("OS family: got %q, want linux", f.OS)
	}
	for _, bad := range []AdminQuery{{Status: "gone"}, {Sort: "bid"}, {Sort: "-"}, {Sort: "--name"}} {
		if _, _, err := bad.filter(); !apperr.Is(err, apperr.CodeInvalidQuery) {
			t.Errorf("%+v: got %v, want invalid_query", bad, err)
		}
	}
	for _, s := range AdminSorts {
		if _, _, ok := AdminSort(s).Field(); !ok {
			t.Errorf("AdminSorts has %q, which Field refuses", s)
		}
	}
}
