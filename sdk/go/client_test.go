package hostgate

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"testing"

	"hostgate/internal/agentproto"
)

// TestControlsMirrorTheProtocol: every controls constant here has the
// value of the hub's table, and none is missing.
func TestControlsMirrorTheProtocol(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "controls.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, sp := range g.Specs {
				ours[sp.(*ast.ValueSpec).Names[0].Name] = true
			}
		}
	}
	values := map[string]int64{
		"CtlDirMk": CtlDirMk, "CtlDirRm": CtlDirRm, "CtlFileMk": CtlFileMk, "CtlFileRm": CtlFileRm,
		"CtlStrAd": CtlStrAd, "CtlStrRd": CtlStrRd, "CtlStrRm": CtlStrRm, "CtlZipToDir": CtlZipToDir,
		"CtlDownFile": CtlDownFile, "CtlUploadFile": CtlUploadFile, "CtlExecProgram": CtlExecProgram,
		"CtlChangeWatchDir": CtlChangeWatchDir, "CtlKillProcess": CtlKillProcess, "CtlExecShell": CtlExecShell,
		"CtlOrchestratedStart": CtlOrchestratedStart, "CtlOrchestratedShutdown": CtlOrchestratedShutdown,
		"CtlShellOpen": CtlShellOpen, "CtlShellWrite": CtlShellWrite, "CtlShellRead": CtlShellRead,
		"CtlShellResize": CtlShellResize, "CtlShellClose": CtlShellClose, "CtlProcessList": CtlProcessList,
		"CtlSystemInfo": CtlSystemInfo, "CtlSystemMetrics": CtlSystemMetrics, "CtlServiceCtl": CtlServiceCtl,
		"CtlRegistryRW": CtlRegistryRW, "CtlScheduledTaskCtl": CtlScheduledTaskCtl, "CtlSettingsUpdate": CtlSettingsUpdate,
	}
	if len(ours) != len(agentproto.Controls) || len(values) != len(ours) {
		t.Fatalf("%d constants here, %d checked, %d in the protocol table", len(ours), len(values), len(agentproto.Controls))
	}
	seen := map[int64]bool{}
	for name, v := range values {
		if !ours[name] {
			t.Errorf("%s is not a constant of controls.go", name)
		}
		if _, ok := agentproto.ControlByValue(v); !ok || seen[v] {
			t.Errorf("%s = %d is not a distinct protocol value", name, v)
		}
		seen[v] = true
	}
}

func TestErrorsAndHelpers(t *testing.T) {
	cases := []struct {
		status int
		body   string
		check  func(error) bool
		code   string
	}{
		{402, `{"error":"insufficient_balance","message":"low"}`, IsInsufficientBalance, "insufficient_balance"},
		{409, `{"error":"host_offline","message":"gone"}`, IsHostOffline, "host_offline"},
		{404, `{"error":"not_found","message":"host not found"}`, IsNotFound, "not_found"},
		{504, `{"error":"agent_timeout","message":"slow"}`, IsAgentTimeout, "agent_timeout"},
		{502, `<html>bad gateway</html>`, func(error) bool { return true }, "http_502"},
	}
	for _, tc := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer ak_x.y" {
				t.Errorf("authorization %q", r.Header.Get("Authorization"))
			}
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		}))
		_, err := New(srv.URL, "ak_x.y").Shell(context.Background(), "h", "sh", "", 0)
		srv.Close()
		if !tc.check(err) || ErrorCode(err) != tc.code {
			t.Errorf("%d: err %v, code %q; want %q", tc.status, err, ErrorCode(err), tc.code)
		}
		if e, ok := err.(*Error); !ok || e.Status != tc.status {
			t.Errorf("%d: status lost: %#v", tc.status, err)
		}
	}
	if IsHostOffline(nil) || IsInsufficientBalance(context.Canceled) {
		t.Error("helpers accept non-API errors")
	}
}

func TestOperationBodies(t *testing.T) {
	var got map[string]any
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		_ = json.NewDecoder(r.Body).Decode(&got)
		w.Write([]byte(`{"stdout":"hi\n","exit_code":0,"timed_out":false}`))
	}))
	defer srv.Close()
	res, err := New(srv.URL+"/", "k").Shell(context.Background(), "h/1", "/bin/sh", "-c 'echo hi'", 5)
	if err != nil || res.Stdout != "hi\n" {
		t.Fatalf("%+v %v", res, err)
	}
	if path != "/v1/api/hosts/h%2F1/process/shell" && path != "/v1/api/hosts/h/1/process/shell" {
		t.Errorf("path %q", path)
	}
	data, _ := got["data"].(map[string]any)
	if got["controls"] != float64(CtlExecShell) || got["path"] != "/bin/sh" || data["args"] != "-c 'echo hi'" ||
		data["timeout_s"] != float64(5) {
		t.Errorf("body %v", got)
	}
}
