package winops

import (
	"testing"

	"hostgate/internal/agentproto"
)

// TestHandlersAreTheWindowsOnlyRows: this package carries out exactly the
// rows of agentproto.Controls that are Windows-only (elsewhere they answer
// unsupported_platform, TestUnsupportedPlatform).
func TestHandlersAreTheWindowsOnlyRows(t *testing.T) {
	hs := Handlers()
	n := 0
	for _, c := range agentproto.Controls {
		_, ours := hs[c.Op]
		if ours != (c.OS == agentproto.WindowsOnly) {
			t.Errorf("%s (%s): windows-only %v, carried out here %v", c.Name, c.Op, c.OS == agentproto.WindowsOnly, ours)
		}
		if ours {
			n++
		}
	}
	if n != len(hs) {
		t.Errorf("%d handlers, %d of them rows of the table", len(hs), n)
	}
}
