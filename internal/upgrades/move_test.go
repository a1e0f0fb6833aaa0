package upgrades_test

import (
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/upgrades"
)

func TestMayMove(t *testing.T) {
	const (
		req, dl, ver, rs   = agentproto.UpgradeRequested, agentproto.UpgradeDownloading, agentproto.UpgradeVerifying, agentproto.UpgradeRestarting
		done, fail, rolled = agentproto.UpgradeDone, agentproto.UpgradeFailed, agentproto.UpgradeRolledBack
	)
	for _, tt := range []struct {
		from, to agentproto.UpgradeState
		want     bool
	}{
		{req, dl, true}, {req, done, true}, {dl, ver, true}, {ver, rs, true}, {rs, done, true}, {rs, fail, true},
		{dl, rolled, true},
		{dl, dl, false}, {ver, dl, false}, {rs, req, false}, // never backwards, nor a repeat
		{done, fail, false}, {fail, done, false}, {rolled, done, false}, // an ended upgrade stays
		{"bogus", done, false}, {req, "bogus", false},
	} {
		if got := upgrades.MayMove(tt.from, tt.to); got != tt.want {
			t.Errorf("MayMove(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}
