package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"hostgate/internal/agent/l1report"
	"hostgate/internal/agentproto"
)

// The watch directory (CHANGE_WATCH_DIR, 2048; docs/l1.md, "Reverse
// reporting"): a directory of the host whose files the agent watches and
// reports to the host's report_url. CHANGE_WATCH_DIR sets it, from
// controls/raw, /gateway or the local L1 listener; it is kept in the state
// directory (watchDirFile), so it survives restarts, and no directory is
// watched until one is set. The agent polls the directory's entries (not
// its subdirectories' contents) every watchPoll and reports each change as
// a "watch" event; the change of directory itself is a "watch_dir" event.
// Without a report_url the setting is kept and nothing is sent.

// watchDirFile keeps the watched directory in the state directory.
const watchDirFile = "watch-dir.json"

// Bounds of the watcher.
const (
	// DefaultWatchPoll is how often the watched directory is listed.
	DefaultWatchPoll = 5 * time.Second
	// watchMaxEntries bounds one listing; entries beyond it are not
	// compared (reported as truncated).
	watchMaxEntries = 10_000
	// watchMaxNames bounds the names one report lists per kind of change;
	// the rest are counted.
	watchMaxNames = 100
)

// savedWatchDir is watch-dir.json.
type savedWatchDir struct {
	Dir       string    `json:"dir"`
	ChangedAt time.Time `json:"changed_at"`
}

// watchDir is the agent's watched directory, shared by its runs.
type watchDir struct {
	mu    sync.Mutex
	dir   string
	store stateStore
}

// loadWatchDir reads the saved directory; a missing file is none, and a
// corrupt one is logged by the caller and taken as none.
func loadWatchDir(st stateStore) (*watchDir, error) {
	w := &watchDir{store: st}
	var saved savedWatchDir
	ok, err := st.read(watchDirFile, &saved)
	if ok {
		w.dir = saved.Dir
	}
	return w, err
}

// get is the directory watched now ("" for none).
func (w *watchDir) get() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dir
}

// change serves CHANGE_WATCH_DIR: path must be an absolute path of an
// existing directory. It is saved before it is answered; an unchanged
// directory is answered without a write.
func (w *watchDir) change(path string, now time.Time) (agentproto.WatchDirResult, error) {
	if !filepath.IsAbs(path) {
		return agentproto.WatchDirResult{}, agentproto.ArgsError("path must be an absolute directory path, got %q", path)
	}
	dir := filepath.Clean(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return agentproto.WatchDirResult{}, cmdError("not_found", "no such directory: "+dir)
	case errors.Is(err, fs.ErrPermission):
		return agentproto.WatchDirResult{}, cmdError("permission_denied", "cannot reach "+dir)
	case err != nil:
		return agentproto.WatchDirResult{}, cmdError(agentproto.CodeFailed, err.Error())
	case !fi.IsDir():
		return agentproto.WatchDirResult{}, cmdError("not_a_directory", dir+" is not a directory")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	prev := w.dir
	if dir != prev {
		if err := w.store.write(watchDirFile, savedWatchDir{Dir: dir, ChangedAt: now.UTC()}); err != nil {
			return agentproto.WatchDirResult{}, cmdError(agentproto.CodeFailed, "cannot save the watch directory: "+err.Error())
		}
		w.dir = dir
	}
	return agentproto.WatchDirResult{Dir: dir, Previous: prev}, nil
}

// changeWatchDir is the handler of CHANGE_WATCH_DIR.
func (a *Agent) changeWatchDir(_ context.Context, raw json.RawMessage) (any, error) {
	args, err := agentproto.DecodeArgs(agentproto.CtlChangeWatchDir, raw)
	if err != nil {
		return nil, err
	}
	res, err := a.watch.change(args.Path, time.Now())
	if err != nil {
		return nil, err
	}
	if res.Dir != res.Previous {
		a.log.Info("watch directory changed", "dir", res.Dir, "previous", res.Previous)
		a.l1.report(l1report.EventWatchDir, res)
	}
	return res, nil
}

// fileState is what a listing compares of one entry.
type fileState struct {
	size  int64
	mtime time.Time
	dir   bool
}

// listing is one poll of the watched directory.
type listing struct {
	files     map[string]fileState
	truncated bool
}

// list reads dir's entries, at most watchMaxEntries.
func list(dir string) (listing, error) {
	f, err := os.Open(dir)
	if err != nil {
		return listing{}, err
	}
	defer f.Close()
	ents, err := f.ReadDir(watchMaxEntries + 1)
	if err != nil && len(ents) == 0 && !errors.Is(err, io.EOF) {
		return listing{}, err
	}
	l := listing{files: make(map[string]fileState, len(ents))}
	if len(ents) > watchMaxEntries {
		ents, l.truncated = ents[:watchMaxEntries], true
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue // removed between the listing and the stat
		}
		l.files[e.Name()] = fileState{size: fi.Size(), mtime: fi.ModTime(), dir: fi.IsDir()}
	}
	return l, nil
}

// watchDetail is the detail of a "watch" report.
type watchDetail struct {
	Dir       string   `json:"dir"`
	Created   []string `json:"created,omitempty"`
	Modified  []string `json:"modified,omitempty"`
	Removed   []string `json:"removed,omitempty"`
	More      int      `json:"more,omitempty"`      // changes left out of the lists
	Truncated bool     `json:"truncated,omitempty"` // the directory has more entries than are compared
}

// diff compares two listings of dir; ok is false when nothing changed.
func diff(dir string, old, cur listing) (watchDetail, bool) {
	d := watchDetail{Dir: dir, Truncated: cur.truncated}
	n := 0
	add := func(list *[]string, name string) {
		n++
		if len(*list) < watchMaxNames {
			*list = append(*list, name)
		} else {
			d.More++
		}
	}
	for name, st := range cur.files {
		was, ok := old.files[name]
		switch {
		case !ok:
			add(&d.Created, name)
		case was != st:
			add(&d.Modified, name)
		}
	}
	for name := range old.files {
		if _, ok := cur.files[name]; !ok {
			add(&d.Removed, name)
		}
	}
	slices.Sort(d.Created)
	slices.Sort(d.Modified)
	slices.Sort(d.Removed)
	return d, n > 0
}

// runWatch polls the watched directory every poll and reports changes
// with report until ctx ends. A new directory starts with a silent
// listing; one that cannot be read is logged once and retried.
func (a *Agent) runWatch(ctx context.Context, poll time.Duration, report func(event string, detail any)) {
	t := time.NewTicker(poll)
	defer t.Stop()
	var (
		dir    string
		last   listing
		have   bool
		failed bool
	)
	for {
		if cur := a.watch.get(); cur != dir {
			dir, have, failed = cur, false, false
		}
		if dir != "" {
			l, err := list(dir)
			switch {
			case err != nil:
				if !failed {
					a.log.Warn("watch directory cannot be read", "dir", dir, "err", err)
					failed = true
				}
				have = false
			case !have:
				last, have, failed = l, true, false
			default:
				if d, changed := diff(dir, last, l); changed {
					report(l1report.EventWatch, d)
				}
				last = l
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
