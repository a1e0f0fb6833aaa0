package upgrade

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"hostgate/internal/agentproto"
)

// RecordFile is the pending-upgrade record's name in the state directory.
const RecordFile = "upgrade.json"

// Record is how an upgrade stands, kept in the state directory from the
// moment the agent accepts it until its outcome has been reported to the
// hub. It is what lets the next process finish the job: the new version
// confirms itself or rolls back, the old one reports a rollback or a
// failure, and one started after a crash reports the interruption.
type Record struct {
	Version     string                  `json:"version"`      // the version upgraded to
	FromVersion string                  `json:"from_version"` // the version that accepted the upgrade
	Exe         string                  `json:"exe"`          // the executable replaced
	Backup      string                  `json:"backup"`       // where the replaced one is kept
	State       agentproto.UpgradeState `json:"state"`
	Reason      string                  `json:"reason,omitempty"` // why it failed or was rolled back
	Time        time.Time               `json:"time"`             // when State was set
	// StartedAt is when the new executable first started. Its time to be
	// accepted by the hub counts from there, so a new build that crashes
	// and is restarted by the supervisor does not start the clock again.
	StartedAt time.Time `json:"started_at,omitzero"`
}

// Report is the upgrade message that tells the hub about r.
func (r Record) Report() agentproto.UpgradeReport {
	return agentproto.UpgradeReport{Version: r.Version, State: r.State, Reason: r.Reason}
}

// ErrCorruptRecord is returned by LoadRecord for a record that cannot be
// decoded; such a record is of no use and may be cleared.
var ErrCorruptRecord = errors.New("upgrade record is corrupt")

// LoadRecord reads the record in the state directory dir; it returns nil
// and no error when there is none.
func LoadRecord(dir string) (*Record, error) {
	// Retried like rename: on Windows the open fails while another process
	// renames a new record over this one.
	var b []byte
	err := retry(func() error {
		var err error
		b, err = os.ReadFile(filepath.Join(dir, RecordFile))
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("upgrade record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorruptRecord, RecordFile, err)
	}
	return &r, nil
}

// SaveRecord replaces the record in dir atomically: a temporary file with
// mode 0600 in the same directory, synced, then renamed over the old one.
// A crash leaves either the old record or the new one, never a torn one.
func SaveRecord(dir string, r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("upgrade record: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+RecordFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("upgrade record: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(tmp, filepath.Join(dir, RecordFile))
	}
	if err != nil {
		return fmt.Errorf("upgrade record: %w", err)
	}
	return nil
}

// ClearRecord removes the record in dir, if any.
func ClearRecord(dir string) error {
	if err := remove(filepath.Join(dir, RecordFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("upgrade record: %w", err)
	}
	return nil
}
