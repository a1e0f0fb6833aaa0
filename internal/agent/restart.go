package agent

import (
	"fmt"
	"time"

	"hostgate/internal/agent/upgrade"
	"hostgate/internal/agentproto"
	"hostgate/internal/clip"
)

// RestartError is what Run returns when the agent stopped so that its
// executable starts again with the same arguments: an upgrade has put a
// new executable in place, or a rollback has put the previous one back.
// The program then restarts into Exe (cmd/hostgate-agent execs it on
// Unix); if it cannot, it calls Abandon.
type RestartError struct {
	Exe    string // the executable to start
	Reason string // e.g. "upgrade to 1.2.3"

	stateDir string // where the upgrade record is; "" when there is none
}

func (e *RestartError) Error() string {
	return fmt.Sprintf("agent: restart into %s (%s)", e.Exe, e.Reason)
}

// Abandon is called when restarting into Exe failed with cause. If the
// restart was the one that brings in a new executable (the upgrade record
// says restarting), it puts the previous executable back and records the
// upgrade as rolled back, so that the next start, by the supervisor, runs
// the old version and reports the rollback. Otherwise there is nothing to
// undo. It returns what went wrong doing so.
func (e *RestartError) Abandon(cause error) error {
	if e.stateDir == "" {
		return nil
	}
	rec, err := upgrade.LoadRecord(e.stateDir)
	if err != nil || rec == nil || rec.State != agentproto.UpgradeRestarting {
		return err
	}
	if err := upgrade.Restore(rec.Exe, rec.Backup); err != nil {
		return err
	}
	rec.State, rec.Time = agentproto.UpgradeRolledBack, time.Now().UTC()
	rec.Reason = clip.String(fmt.Sprintf("restarting into version %s failed: %v", rec.Version, cause), maxReason)
	return upgrade.SaveRecord(e.stateDir, *rec)
}
