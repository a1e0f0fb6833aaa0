package agent

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

// TestRawControlUnsupported: control.raw with a value the agent does not
// carry out by value answers unsupported_control naming it; UPLOAD_FILE
// answers not_implemented; a value whose operation the agent has (an
// older hub's unknown) is carried out.
func TestRawControlUnsupported(t *testing.T) {
	h := newFakeHub(t)
	cfg, dirs := l1Config(t, h)
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	c := h.conn(t, 1)
	for i, want := range []struct {
		ctl  int64
		code string
		name string
	}{
		{65536, agentproto.CodeUnsupportedControl, "controls 65536 (SHELL_OPEN)"},
		{1 << 40, agentproto.CodeUnsupportedControl, "controls 1099511627776 is not an operation"},
		{3, agentproto.CodeUnsupportedControl, "controls 3 is not"},
		{agentproto.CtlSettingsUpdate, agentproto.CodeUnsupportedControl, "SETTINGS_UPDATE"},
		{agentproto.CtlUploadFile, agentproto.CodeNotImplemented, "UPLOAD_FILE (512)"},
	} {
		id := "u" + strconv.Itoa(i)
		c.cmd(id, agentproto.OpRawControl, 5*time.Second, agentproto.RawControl{Controls: want.ctl, Path: "/x"})
		r := c.resp(t, id)
		if r.OK || r.Error == nil || r.Error.Code != want.code || !strings.Contains(r.Error.Message, want.name) {
			t.Errorf("controls %d: %+v %+v", want.ctl, r, r.Error)
		}
	}
	c.cmd("known", agentproto.OpRawControl, 5*time.Second, agentproto.RawControl{Controls: agentproto.CtlDirMk, Path: "made"})
	if r := c.resp(t, "known"); !r.OK {
		t.Fatalf("DIR_MK by value: %+v", r.Error)
	}
	dirs.mu.Lock()
	defer dirs.mu.Unlock()
	if !slices.Equal(dirs.paths, []string{"made"}) {
		t.Errorf("DIR_MK carried out for %v", dirs.paths)
	}
}

func watchResult(t *testing.T, r agentproto.Response) agentproto.WatchDirResult {
	t.Helper()
	if !r.OK {
		t.Fatalf("change_watch_dir: %+v", r.Error)
	}
	var res agentproto.WatchDirResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestChangeWatchDir: CHANGE_WATCH_DIR takes an absolute path of an
// existing directory, answers the new and previous directories, and keeps
// it in the state directory across a restart; bad paths change nothing.
func TestChangeWatchDir(t *testing.T) {
	h := newFakeHub(t)
	cfg, _ := l1Config(t, h)
	first, second := t.TempDir(), t.TempDir()
	file := filepath.Join(first, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	c := h.conn(t, 1)
	c.cmd("w1", opChangeWatchDir, 5*time.Second, agentproto.ControlArgs{Path: first + string(filepath.Separator)})
	if res := watchResult(t, c.resp(t, "w1")); res.Dir != first || res.Previous != "" {
		t.Fatalf("first change: %+v", res)
	}
	for id, bad := range map[string]struct {
		args agentproto.ControlArgs
		code string
	}{
		"relative":  {agentproto.ControlArgs{Path: "rel/dir"}, agentproto.CodeBadArgs},
		"missing":   {agentproto.ControlArgs{Path: filepath.Join(first, "nope")}, "not_found"},
		"file":      {agentproto.ControlArgs{Path: file}, "not_a_directory"},
		"no path":   {agentproto.ControlArgs{}, agentproto.CodeBadArgs},
		"with data": {agentproto.ControlArgs{Path: second, Data: json.RawMessage(`"x"`)}, agentproto.CodeBadArgs},
	} {
		c.cmd(id, opChangeWatchDir, 5*time.Second, bad.args)
		if r := c.resp(t, id); r.OK || r.Error.Code != bad.code {
			t.Errorf("%s: %+v %+v, want %s", id, r, r.Error, bad.code)
		}
	}
	var saved savedWatchDir
	if ok, err := (stateStore{dir: cfg.StateDir}).read(watchDirFile, &saved); !ok || err != nil || saved.Dir != first {
		t.Fatalf("%s: %+v %v %v", watchDirFile, saved, ok, err)
	}
	assertPrivate(t, filepath.Join(cfg.StateDir, watchDirFile))
	ta.stop(t)

	tb := start(t, cfg) // a restart on the same state directory
	tb.waitConnected(t, 1)
	c = h.conn(t, 2)
	c.cmd("w2", opChangeWatchDir, 5*time.Second, agentproto.ControlArgs{Path: second})
	if res := watchResult(t, c.resp(t, "w2")); res.Dir != second || res.Previous != first {
		t.Fatalf("after the restart: %+v, want previous %s", res, first)
	}
	// The same value by controls value, as an older hub would send it.
	c.cmd("w3", agentproto.OpRawControl, 5*time.Second, agentproto.RawControl{Controls: agentproto.CtlChangeWatchDir, Path: second})
	if res := watchResult(t, c.resp(t, "w3")); res.Dir != second || res.Previous != second {
		t.Fatalf("unchanged: %+v", res)
	}
}

// TestWatchDirReports: the watched directory's changes are reported to
// report_url as "watch" events, the change of directory as "watch_dir";
// CHANGE_WATCH_DIR and UPLOAD_FILE work over the local L1 listener.
func TestWatchDirReports(t *testing.T) {
	h := newFakeHub(t)
	cfg, _ := l1Config(t, h)
	sink := &reportSink{codec: mustCodec(t, cfg.BID, cfg.SecretKey)}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	cfg.ReportURL = srv.URL + "/hook"
	cfg.watchPoll = 20 * time.Millisecond
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return ta.Status().L1Listen != "" })
	codec := mustCodec(t, cfg.BID, cfg.SecretKey)
	send := func(ctl int64, path string) l1.Response {
		body, err := codec.Encode(l1.NewRequest(ctl, agentproto.ControlArgs{Path: path}, time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		return l1Post(t, ta, cfg.BID, body)
	}
	if r := send(agentproto.CtlUploadFile, "/x"); r.Code != l1.CodeFailure || !strings.HasPrefix(r.Msg, "not_implemented: ") {
		t.Errorf("UPLOAD_FILE over local L1: %+v", r)
	}
	if r := send(agentproto.CtlChangeWatchDir, dir); r.Code != l1.CodeOK || !strings.Contains(string(r.Data), `"previous":""`) {
		t.Fatalf("CHANGE_WATCH_DIR over local L1: %+v", r)
	}
	waitFor(t, 5*time.Second, "watch_dir report", func() bool { return sink.has("watch_dir") })
	// A file made before the watcher's first listing of the new
	// directory is in that listing: make a new one until one is reported.
	// Each file is written elsewhere and renamed in, so that no listing
	// sees it half written (empty, then one byte: "modified").
	var detail watchDetail
	n := 0
	staging := t.TempDir()
	waitFor(t, 5*time.Second, "watch report of a new file", func() bool {
		n++
		name := "new-" + strconv.Itoa(n) + ".txt"
		if err := os.WriteFile(filepath.Join(staging, name), []byte("y"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(staging, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, r := range sink.reports {
			if r.Event == "watch" {
				_ = json.Unmarshal(r.Detail, &detail)
				return true
			}
		}
		return false
	})
	if detail.Dir != dir || len(detail.Created) == 0 || !strings.HasPrefix(detail.Created[0], "new-") ||
		len(detail.Removed) != 0 || len(detail.Modified) != 0 {
		t.Errorf("watch detail = %+v", detail)
	}
}

func TestWatchDiff(t *testing.T) {
	t0 := time.Unix(100, 0)
	old := listing{files: map[string]fileState{"a": {1, t0, false}, "b": {1, t0, false}, "c": {1, t0, false}}}
	cur := listing{files: map[string]fileState{"a": {1, t0, false}, "b": {2, t0, false}, "d": {1, t0, true}}}
	d, ok := diff("/w", old, cur)
	if !ok || !slices.Equal(d.Created, []string{"d"}) || !slices.Equal(d.Modified, []string{"b"}) || !slices.Equal(d.Removed, []string{"c"}) {
		t.Errorf("diff = %+v %v", d, ok)
	}
	if _, ok := diff("/w", cur, cur); ok {
		t.Error("no change reported as one")
	}
	many := listing{files: map[string]fileState{}}
	for i := range watchMaxNames + 5 {
		many.files[strconv.Itoa(i)] = fileState{}
	}
	if d, _ := diff("/w", listing{}, many); len(d.Created) != watchMaxNames || d.More != 5 {
		t.Errorf("capped: %d names, %d more", len(d.Created), d.More)
	}
}
