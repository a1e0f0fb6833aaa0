package sqldb

import (
	"testing"

	"hostgate/internal/hosts"
)

// TestOwnedOrder: the ORDER BY made from each row of hosts.SortOrders is the
// clause an index of migration 0013 (or hosts_owner_newest) serves on both
// engines; only the nullable column gets a NULLS clause, which PostgreSQL's
// hosts_owner_last_seen is built with. Every row has its clause here.
func TestOwnedOrder(t *testing.T) {
	want := map[hosts.Sort]string{
		hosts.SortName:         "name ASC, id ASC",
		hosts.SortNameDesc:     "name DESC, id DESC",
		hosts.SortCreated:      "created_at ASC, id ASC",
		hosts.SortNewest:       "created_at DESC, id DESC",
		hosts.SortLastSeen:     "last_seen_at ASC NULLS FIRST, id ASC",
		hosts.SortLastSeenDesc: "last_seen_at DESC NULLS LAST, id DESC",
	}
	for _, o := range hosts.SortOrders {
		w, ok := want[o.Sort]
		if !ok {
			t.Errorf("%q: a new order; add its index and its clause here", o.Sort)
			continue
		}
		if got := ownedOrder(o).sql(); got != w {
			t.Errorf("ownedOrder(%q) = %q, want %q", o.Sort, got, w)
		}
	}
}
