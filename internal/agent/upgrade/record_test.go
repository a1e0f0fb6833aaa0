package upgrade

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r, err := LoadRecord(dir); r != nil || err != nil {
		t.Fatalf("LoadRecord of an empty dir = %+v, %v; want nil, nil", r, err)
	}
	want := Record{Version: "2.0.0", FromVersion: "1.0.0", Exe: "/opt/agent", Backup: "/opt/agent.previous",
		State: agentproto.UpgradeRestarting, Time: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	if err := SaveRecord(dir, want); err != nil {
		t.Fatal(err)
	}
	want.State, want.Reason = agentproto.UpgradeRolledBack, "version 2.0.0 was not accepted"
	want.StartedAt = want.Time.Add(time.Second)
	if err := SaveRecord(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadRecord(dir)
	if err != nil || got == nil || *got != want {
		t.Fatalf("LoadRecord = %+v, %v; want %+v", got, err, want)
	}
	if r := got.Report(); r != (agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeRolledBack, Reason: want.Reason}) {
		t.Errorf("Report = %+v", r)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{RecordFile}) {
		t.Errorf("files %v, want only the record", names)
	}
	if fi, _ := os.Stat(filepath.Join(dir, RecordFile)); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v, want 0600", fi.Mode().Perm())
	}

	for range 2 { // idempotent
		if err := ClearRecord(dir); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := LoadRecord(dir); r != nil || err != nil {
		t.Fatalf("LoadRecord after Clear = %+v, %v", r, err)
	}
}

func TestCorruptRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, RecordFile), "{torn")
	if _, err := LoadRecord(dir); !errors.Is(err, ErrCorruptRecord) {
		t.Fatalf("LoadRecord of a corrupt file: %v", err)
	}
	if err := SaveRecord(filepath.Join(dir, "missing"), Record{}); err == nil {
		t.Error("SaveRecord into a missing directory succeeded")
	}
}
