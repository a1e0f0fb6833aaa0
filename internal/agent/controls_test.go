package agent

import (
	"testing"

	"hostgate/internal/agentproto"
)

// TestEveryRowCarriedByValueHasAHandler: this build carries out every row
// of agentproto.Controls the hub sends by its op (its own
// CHANGE_WATCH_DIR, the rest from DefaultRegistry), so a row added to the
// table without its handler fails here.
func TestEveryRowCarriedByValueHasAHandler(t *testing.T) {
	a := &Agent{reg: DefaultRegistry("test")}
	for _, c := range agentproto.Controls {
		if _, ok := a.lookup(c.Op); (c.Carry == agentproto.ByValue) && !ok {
			t.Errorf("%s (%d): no handler for op %s", c.Name, c.Value, c.Op)
		}
	}
}
