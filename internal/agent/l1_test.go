package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agent/l1local"
	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

// l1Config is a fake-hub config whose registry carries out DIR_MK by
// recording its path.
func l1Config(t *testing.T, h *fakeHub) (Config, *dirMkLog) {
	cfg := h.config(t)
	log := &dirMkLog{}
	cfg.Commands = NewRegistry()
	cfg.Commands.Register(agentproto.OpName(agentproto.CtlDirMk), func(_ context.Context, raw json.RawMessage) (any, error) {
		a, err := agentproto.DecodeArgs(agentproto.CtlDirMk, raw)
		if err != nil {
			return nil, err
		}
		log.add(a.Path)
		return agentproto.FileResult{Path: a.Path, Changed: true}, nil
	})
	return cfg, log
}

type dirMkLog struct {
	mu    sync.Mutex
	paths []string
}

func (d *dirMkLog) add(p string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paths = append(d.paths, p)
}

// l1Call sends DIR_MK path to the agent's local listener with codec and
// returns the answer.
func l1Call(t *testing.T, ta *testAgent, codec *l1.Codec, path string) l1.Response {
	t.Helper()
	addr := ta.Status().L1Listen
	if addr == "" {
		t.Fatal("the L1 listener is not listening")
	}
	body, err := codec.Encode(l1.NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: path}, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + addr + l1local.Path + "?bid=" + strconv.FormatInt(codec.BID(), 10)
	resp, err := http.Post(u, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	var r l1.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("answer: %v", err)
	}
	return r
}

func mustCodec(t *testing.T, bid int64, key string) *l1.Codec {
	t.Helper()
	c, err := l1.NewCodec(bid, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeSetup(t *testing.T, cfg Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.json")
	b, _ := json.Marshal(map[string]any{"host_id": cfg.HostID, "bid": cfg.BID, "secret_key": cfg.SecretKey,
		"ws_url": cfg.WSURL, "comment": map[string]any{"kept": true}})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readSetup(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("setup file: %v", err)
	}
	return m
}

// TestSettingsUpdateRestartsSoftly: settings.update rewrites the setup
// file atomically (other keys kept), is answered, and the agent
// reconnects in-process with the new bid and secret, which its local L1
// listener then uses.
func TestSettingsUpdateRestartsSoftly(t *testing.T) {
	h := newFakeHub(t)
	cfg, dirs := l1Config(t, h)
	cfg.SettingsFile = writeSetup(t, cfg)
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return ta.Status().L1Listen != "" })
	if r := l1Call(t, ta, mustCodec(t, cfg.BID, cfg.SecretKey), "before"); r.Code != l1.CodeOK {
		t.Fatalf("L1 with the first settings: %+v", r)
	}

	newKey := strings.ToUpper(randHex(16))
	c := h.conn(t, 1)
	c.cmd("s1", opSettingsUpdate, 10*time.Second, agentproto.SettingsUpdate{BID: 77, SecretKey: newKey, URL: "https://example.com/report"})
	r := c.resp(t, "s1")
	if !r.OK || string(r.Result) != `{"restarting":true}` {
		t.Fatalf("settings.update: %+v", r)
	}
	ta.waitConnected(t, 2)
	waitFor(t, 5*time.Second, "reload", func() bool { st := ta.Status(); return st.Reloads == 1 && st.L1Listen != "" })

	m := readSetup(t, cfg.SettingsFile)
	if m["bid"] != float64(77) || m["secret_key"] != newKey || m["report_url"] != "https://example.com/report" {
		t.Errorf("setup file = %v", m)
	}
	if m["host_id"] != cfg.HostID || m["ws_url"] != cfg.WSURL || m["comment"] == nil {
		t.Errorf("setup file lost keys: %v", m)
	}
	assertPrivateAndAlone(t, cfg.SettingsFile)

	if r := l1Call(t, ta, mustCodec(t, 77, newKey), "after"); r.Code != l1.CodeOK {
		t.Fatalf("L1 with the new settings: %+v", r)
	}
	if r := l1Call(t, ta, mustCodec(t, cfg.BID, cfg.SecretKey), "old"); r.Code != l1.CodeFailure || r.Msg != l1.MsgInvalid {
		t.Fatalf("L1 with the old settings: %+v, want invalid", r)
	}
	dirs.mu.Lock()
	defer dirs.mu.Unlock()
	if strings.Join(dirs.paths, ",") != "before,after" {
		t.Errorf("DIR_MK carried out for %v", dirs.paths)
	}
	if strings.Contains(ta.logs.String(), newKey) {
		t.Error("the new secret key was logged")
	}
}

// assertPrivateAndAlone checks the file's mode and that no temporary
// file was left beside it.
func assertPrivateAndAlone(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v, want 0600", path, fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("%d files beside the setup file, want none: %v", len(ents)-1, ents)
	}
}

// TestSettingsUpdateRefusesBadArgs: a bad argument is refused and changes
// nothing: neither the file nor the running agent.
func TestSettingsUpdateRefusesBadArgs(t *testing.T) {
	h := newFakeHub(t)
	cfg, _ := l1Config(t, h)
	cfg.SettingsFile = writeSetup(t, cfg)
	before, _ := os.ReadFile(cfg.SettingsFile)
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	c := h.conn(t, 1)
	good := randHex(16)
	for i, args := range []any{
		agentproto.SettingsUpdate{BID: 0, SecretKey: good},
		agentproto.SettingsUpdate{BID: -1, SecretKey: good},
		agentproto.SettingsUpdate{BID: 5, SecretKey: good[:31]},
		agentproto.SettingsUpdate{BID: 5, SecretKey: good[:31] + "g"},
		agentproto.SettingsUpdate{BID: 5, SecretKey: good, URL: "ftp://example.com/"},
		agentproto.SettingsUpdate{BID: 5, SecretKey: good, URL: "https:///nohost"},
		map[string]any{"bid": 5, "secret_key": good, "extra": 1},
		nil,
	} {
		id := "bad" + strconv.Itoa(i)
		c.cmd(id, opSettingsUpdate, 10*time.Second, args)
		assertCode(t, c.resp(t, id), agentproto.CodeBadArgs)
	}
	after, _ := os.ReadFile(cfg.SettingsFile)
	if string(after) != string(before) {
		t.Errorf("setup file changed:\n%s", after)
	}
	if st := ta.Status(); st.Reloads != 0 || st.Sessions != 1 {
		t.Errorf("status %+v: the agent restarted", st)
	}
	if r := l1Call(t, ta, mustCodec(t, cfg.BID, cfg.SecretKey), "still"); r.Code != l1.CodeOK {
		t.Errorf("L1 with the unchanged settings: %+v", r)
	}
}

// TestSettingsUpdateWithoutSetupFile: an agent started from flags keeps
// the settings in settings.json, which the next start reads over its
// flags; the same settings again change nothing.
func TestSettingsUpdateWithoutSetupFile(t *testing.T) {
	h := newFakeHub(t)
	cfg, _ := l1Config(t, h)
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	c := h.conn(t, 1)
	key := randHex(16)
	c.cmd("s1", opSettingsUpdate, 10*time.Second, agentproto.SettingsUpdate{BID: 9, SecretKey: key})
	if r := c.resp(t, "s1"); !r.OK {
		t.Fatalf("settings.update: %+v", r)
	}
	ta.waitConnected(t, 2)
	assertPrivate(t, filepath.Join(cfg.StateDir, settingsFileName))
	c2 := h.conn(t, 2)
	c2.cmd("s2", opSettingsUpdate, 10*time.Second, agentproto.SettingsUpdate{BID: 9, SecretKey: key})
	if r := c2.resp(t, "s2"); !r.OK || string(r.Result) != `{"restarting":false}` {
		t.Fatalf("same settings again: %+v", r)
	}
	ta.stop(t)

	a, err := New(cfg, nil) // the next start, with the same flags
	if err != nil {
		t.Fatal(err)
	}
	if a.s.BID != 9 || a.s.SecretKey != key || a.s.ReportURL != "" {
		t.Errorf("after restart: bid %d, report_url %q; want settings.json's", a.s.BID, a.s.ReportURL)
	}
}

func assertPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v, want 0600", path, fi.Mode().Perm())
	}
}

// reportSink is a report_url receiver that decrypts with the codec it is
// given, as a host owner's would.
type reportSink struct {
	mu      sync.Mutex
	codec   *l1.Codec
	reports []l1.Report
	bids    []string
	fail    int // answer 500 to this many requests first
}

func (rs *reportSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.fail > 0 {
		rs.fail--
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	rep, err := rs.codec.DecodeReport(body, time.Now())
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rs.reports = append(rs.reports, rep)
	rs.bids = append(rs.bids, r.URL.Query().Get("bid"))
}

func (rs *reportSink) events() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []string
	for _, r := range rs.reports {
		out = append(out, r.Event)
	}
	return out
}

func (rs *reportSink) has(event string) bool {
	for _, e := range rs.events() {
		if e == event {
			return true
		}
	}
	return false
}

// TestReverseReporting: online after the welcome, control after a local
// L1 control, and settings after a soft restart (then encrypted with the
// new secret), each decrypted by the receiver with l1.Codec.
func TestReverseReporting(t *testing.T) {
	h := newFakeHub(t)
	cfg, _ := l1Config(t, h)
	sink := &reportSink{codec: mustCodec(t, cfg.BID, cfg.SecretKey), fail: 1}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	cfg.ReportURL = srv.URL + "/hook?token=abc"
	cfg.l1ReportRetry = 10 * time.Millisecond
	ta := start(t, cfg)
	ta.waitConnected(t, 1)
	waitFor(t, 5*time.Second, "online report (after one failure)", func() bool { return sink.has("online") })
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return ta.Status().L1Listen != "" })
	if r := l1Call(t, ta, mustCodec(t, cfg.BID, cfg.SecretKey), "x"); r.Code != l1.CodeOK {
		t.Fatalf("L1: %+v", r)
	}
	waitFor(t, 5*time.Second, "control report", func() bool { return sink.has("control") })
	sink.mu.Lock()
	var detail controlDetail
	for _, r := range sink.reports {
		if r.Event == "control" {
			_ = json.Unmarshal(r.Detail, &detail)
		}
	}
	if detail != (controlDetail{Control: agentproto.CtlDirMk, Name: "DIR_MK", Code: 0, Msg: "ok"}) {
		t.Errorf("control detail = %+v", detail)
	}
	if sink.bids[0] != strconv.FormatInt(cfg.BID, 10) {
		t.Errorf("bid query = %q", sink.bids[0])
	}
	newKey := randHex(16)
	sink.codec = mustCodec(t, 5, newKey)
	sink.reports = nil
	sink.mu.Unlock()

	c := h.conn(t, 1)
	c.cmd("s", opSettingsUpdate, 10*time.Second, agentproto.SettingsUpdate{BID: 5, SecretKey: newKey, URL: cfg.ReportURL})
	if r := c.resp(t, "s"); !r.OK {
		t.Fatalf("settings.update: %+v", r)
	}
	waitFor(t, 5*time.Second, "settings and online reports with the new secret", func() bool {
		ev := sink.events()
		return len(ev) >= 2 && ev[0] == "settings" && ev[1] == "online"
	})
	if strings.Contains(ta.logs.String(), "token=abc") {
		t.Error("the report URL's query was logged")
	}
}

// l1Post sends an encoded L1 request body to the agent's local listener.
func l1Post(t *testing.T, ta *testAgent, bid int64, body string) l1.Response {
	t.Helper()
	u := "http://" + ta.Status().L1Listen + l1local.Path + "?bid=" + strconv.FormatInt(bid, 10)
	resp, err := http.Post(u, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	var r l1.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("answer: %v", err)
	}
	return r
}

// TestL1ReplayAfterAgentRestartRefused: a request captured on the local
// listener and sent again, within its ts window, to a new agent on the
// same state directory (a restart) is refused and carried out once: the
// nonces are kept in the state directory (issue 15).
func TestL1ReplayAfterAgentRestartRefused(t *testing.T) {
	h := newFakeHub(t)
	cfg, dirs := l1Config(t, h)
	codec := mustCodec(t, cfg.BID, cfg.SecretKey)
	body, err := codec.Encode(l1.NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: "once"}, time.Now()))
	if err != nil {
		t.Fatal(err)
	}

	ta := start(t, cfg)
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return ta.Status().L1Listen != "" })
	if r := l1Post(t, ta, cfg.BID, body); r.Code != l1.CodeOK {
		t.Fatalf("first request: %+v", r)
	}
	if r := l1Post(t, ta, cfg.BID, body); r.Code != l1.CodeFailure || r.Msg != l1.MsgInvalid {
		t.Fatalf("replay to the same agent: %+v, want invalid", r)
	}
	ta.stop(t)

	tb := start(t, cfg) // the restart: a new process on the same state directory
	waitFor(t, 5*time.Second, "L1 listener", func() bool { return tb.Status().L1Listen != "" })
	if r := l1Post(t, tb, cfg.BID, body); r.Code != l1.CodeFailure || r.Msg != l1.MsgInvalid {
		t.Fatalf("replay after the restart: %+v, want invalid", r)
	}
	if r := l1Call(t, tb, codec, "fresh"); r.Code != l1.CodeOK {
		t.Fatalf("a fresh request after the restart: %+v", r)
	}
	dirs.mu.Lock()
	defer dirs.mu.Unlock()
	if strings.Join(dirs.paths, ",") != "once,fresh" {
		t.Errorf("DIR_MK carried out for %v, want once,fresh", dirs.paths)
	}
	assertPrivate(t, filepath.Join(cfg.StateDir, l1NoncesFileName))
}
