package orchestrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"hostgate/internal/agentproto"
)

// Kinds of child process and their stage-2 waits (spec section 8): the
// protocol's, which the hub's wait for a shutdown derives from.
const (
	KindDatabase = agentproto.KindDatabase
	KindLogin    = agentproto.KindLogin
	KindLog      = agentproto.KindLog
	KindMain     = agentproto.KindMain
	KindGate     = agentproto.KindGate
)

// KindWaits are the stage-2 waits of the kinds: how long a child has to
// exit after the quit message.
var KindWaits = agentproto.KindWaits

// ManifestFile is the manifest another engine family keeps beside its
// controller; without it the default (GameCenter) manifest applies.
const ManifestFile = "orchestrate.json"

// Manifest limits.
const (
	maxEntries = 64
	maxArgs    = 16
	maxWaitS   = 600
)

// Entry is one child of a family's manifest, in start order.
type Entry struct {
	// Section is the child's section in Config.ini (its GetStart flag).
	Section string
	// Exe is the executable relative to the game directory, '/'-separated.
	Exe string
	// Kind names the stage-2 wait; Wait is that wait (from the kind or
	// the manifest's wait_s).
	Kind string
	Wait time.Duration
	// Args are the child's fixed arguments.
	Args []string
	// Instances is how many times the child starts (0: once, without an
	// instance number); PerRunGate starts it run_gate_count times. A
	// numbered instance i gets i as its last argument.
	Instances  int
	PerRunGate bool
}

// count is how many instances start with run_gate_count n, and whether
// they are numbered.
func (e Entry) count(runGates int) (int, bool) {
	switch {
	case e.PerRunGate:
		return runGates, true
	case e.Instances > 0:
		return e.Instances, true
	}
	return 1, false
}

// DefaultManifest is the GameCenter family (agentproto.DefaultFamily,
// issue 18's table).
func DefaultManifest() []Entry {
	m := make([]Entry, len(agentproto.DefaultFamily))
	for i, c := range agentproto.DefaultFamily {
		m[i] = Entry{Section: c.Section, Exe: c.Exe, Kind: c.Kind, Wait: KindWaits[c.Kind], PerRunGate: c.PerRunGate}
	}
	return m
}

// manifestEntry is one entry of orchestrate.json as written.
type manifestEntry struct {
	Section   string          `json:"section"`
	Exe       string          `json:"exe"`
	Kind      string          `json:"kind,omitempty"`
	WaitS     *int            `json:"wait_s,omitempty"`
	Args      []string        `json:"args,omitempty"`
	Instances json.RawMessage `json:"instances,omitempty"`
}

// LoadManifest reads orchestrate.json in gameDir, or returns the default
// manifest when there is none. A file that is not a valid manifest is an
// error with code manifest_invalid naming the entry and the fault.
func LoadManifest(gameDir string) ([]Entry, error) {
	b, err := os.ReadFile(filepath.Join(gameDir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultManifest(), nil
	}
	if err != nil {
		return nil, fail(agentproto.CodeFailed, "reading %s: %v", ManifestFile, err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, fail(CodeManifestInvalid, "%s: %v", filepath.Join(gameDir, ManifestFile), err)
	}
	return m, nil
}

// ParseManifest parses and checks orchestrate.json's content.
func ParseManifest(b []byte) ([]Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var raw []manifestEntry
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a JSON array of entries: %v", err)
	}
	if dec.More() {
		return nil, errors.New("trailing content after the array")
	}
	if len(raw) == 0 || len(raw) > maxEntries {
		return nil, fmt.Errorf("the manifest must list 1..%d entries", maxEntries)
	}
	out := make([]Entry, 0, len(raw))
	seen := map[string]bool{}
	for i, r := range raw {
		e, err := r.entry()
		if err != nil {
			return nil, fmt.Errorf("entry %d (%q): %v", i+1, r.Section, err)
		}
		key := strings.ToLower(e.Section)
		if seen[key] {
			return nil, fmt.Errorf("entry %d: section %q appears twice", i+1, e.Section)
		}
		seen[key] = true
		out = append(out, e)
	}
	return out, nil
}

func (r manifestEntry) entry() (Entry, error) {
	if err := agentproto.ValidateININame("section", r.Section); err != nil {
		return Entry{}, errors.New(err.(*agentproto.Error).Message)
	}
	exe, err := cleanExe(r.Exe)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Section: r.Section, Exe: exe, Kind: r.Kind, Args: r.Args}
	switch {
	case r.Kind != "" && r.WaitS != nil:
		return Entry{}, errors.New("give kind or wait_s, not both")
	case r.WaitS != nil:
		if *r.WaitS < 0 || *r.WaitS > maxWaitS {
			return Entry{}, fmt.Errorf("wait_s must be 0..%d", maxWaitS)
		}
		e.Wait = time.Duration(*r.WaitS) * time.Second
	case r.Kind != "":
		w, ok := KindWaits[r.Kind]
		if !ok {
			return Entry{}, fmt.Errorf("kind %q is not one of database, login, log, main, gate", r.Kind)
		}
		e.Wait = w
	default:
		return Entry{}, errors.New("kind or wait_s is required")
	}
	if len(r.Args) > maxArgs {
		return Entry{}, fmt.Errorf("at most %d args", maxArgs)
	}
	for _, a := range r.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return Entry{}, errors.New("an arg holds a NUL byte")
		}
	}
	if err := e.setInstances(r.Instances); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// setInstances reads instances: a number 1..16 or "run_gate_count".
func (e *Entry) setInstances(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s != "run_gate_count" {
			return fmt.Errorf(`instances must be a number or "run_gate_count", got %q`, s)
		}
		e.PerRunGate = true
		return nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n < 1 || n > agentproto.MaxRunGateCount {
		return fmt.Errorf(`instances must be 1..%d or "run_gate_count"`, agentproto.MaxRunGateCount)
	}
	e.Instances = n
	return nil
}

// cleanExe checks a manifest exe: a relative path inside the game
// directory ('/' or '\' separated) to a file, returned '/'-separated.
func cleanExe(exe string) (string, error) {
	s := strings.ReplaceAll(exe, `\`, "/")
	if s == "" || strings.IndexByte(s, 0) >= 0 || strings.HasPrefix(s, "/") || strings.Contains(s, ":") {
		return "", fmt.Errorf("exe %q must be a relative path inside the game directory", exe)
	}
	c := path.Clean(s)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("exe %q must be a relative path inside the game directory", exe)
	}
	return c, nil
}
