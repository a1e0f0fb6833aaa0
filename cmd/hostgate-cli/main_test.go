package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCLIConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	named := write("named.json", `{"url": "http://named", "api_key": "k-named"}`)
	envFile := write("env.json", `{"url": "http://envfile", "api_key": "k-envfile"}`)
	write("xdg/hostgate/config.json", `{"url": "http://xdg", "api_key": "k-xdg"}`)
	write("home/.config/hostgate/config.json", `{"url": "http://home", "api_key": "k-home"}`)
	partial := write("partial.json", `{"url": "http://partial"}`)

	cases := []struct {
		name             string
		flagURL, flagKey string
		flagFile         string
		vars             map[string]string
		url, key         string
	}{
		{"flags win", "http://flag", "k-flag", named, map[string]string{"HOSTGATE_URL": "http://env", "HOSTGATE_API_KEY": "k-env"}, "http://flag", "k-flag"},
		{"env over file", "", "", named, map[string]string{"HOSTGATE_URL": "http://env", "HOSTGATE_API_KEY": "k-env"}, "http://env", "k-env"},
		{"flag and env mix", "http://flag", "", "", map[string]string{"HOSTGATE_API_KEY": "k-env"}, "http://flag", "k-env"},
		{"file fills the gap", "", "k-flag", named, nil, "http://named", "k-flag"},
		{"--config over HOSTGATE_CONFIG", "", "", named, map[string]string{"HOSTGATE_CONFIG": envFile}, "http://named", "k-named"},
		{"HOSTGATE_CONFIG", "", "", "", map[string]string{"HOSTGATE_CONFIG": envFile}, "http://envfile", "k-envfile"},
		{"XDG_CONFIG_HOME", "", "", "", map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "xdg")}, "http://xdg", "k-xdg"},
		{"home", "", "", "", map[string]string{"XDG_CONFIG_HOME": "relative/ignored"}, "http://home", "k-home"},
		{"env key with a partial file", "", "", partial, map[string]string{"HOSTGATE_API_KEY": "k-env"}, "http://partial", "k-env"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _, errb := testEnv(c.vars, "")
			e.home = func() (string, error) { return filepath.Join(dir, "home"), nil }
			got, err := loadConfig(c.flagURL, c.flagKey, c.flagFile, e)
			if err != nil || got.url != c.url || got.key != c.key {
				t.Fatalf("got %+v %v, want %s %s", got, err, c.url, c.key)
			}
			if errb.Len() != 0 {
				t.Fatalf("stderr: %s", errb)
			}
		})
	}
}

func TestCLIConfigErrors(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.json")
	if err := os.WriteFile(open, []byte(`{"url": "http://x", "api_key": "k"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"url": "http://x", "apikey": "k"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("readable by others warns", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no mode bits")
		}
		e, _, errb := testEnv(nil, "")
		if _, err := loadConfig("", "", open, e); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errb.String(), "warning: "+open+" is readable by group or others") {
			t.Fatalf("stderr %q", errb)
		}
	})
	for _, c := range []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"no url", map[string]string{"HOSTGATE_API_KEY": "k"}, []string{"hosts", "list"},
			"no hub URL: pass --url, set HOSTGATE_URL, or put \"url\" in the config file /nonexistent-home/.config/hostgate/config.json"},
		{"no key", nil, []string{"--url", "http://x", "hosts", "list"},
			"no API key: pass --api-key, set HOSTGATE_API_KEY, or put \"api_key\" in the config file"},
		{"named file missing", nil, []string{"--config", filepath.Join(dir, "none.json"), "hosts", "list"}, "none.json"},
		{"unknown field", nil, []string{"--config", bad, "hosts", "list"}, `unknown field "apikey"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, out, errb := testEnv(c.vars, "")
			r := runEnv(t, e, out, errb, c.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, c.want)
			}
		})
	}
}

func TestCLIUsageErrors(t *testing.T) {
	f := newFakeHub(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--bogus", "hosts", "list"}, "flag provided but not defined: -bogus"},
		{[]string{"hosts"}, "hosts: missing subcommand"},
		{[]string{"hosts", "show"}, "usage: hostgate-cli hosts show HOST"},
		{[]string{"hosts", "show", "a", "b"}, "2 arguments, want 1"},
		{[]string{"hosts", "create", "x", "--listen-port", "abc"}, "invalid value"},
		{[]string{"shell", hostID}, "missing PROGRAM"},
		{[]string{"read", hostID}, "usage: hostgate-cli read HOST PATH"},
		{[]string{"deliveries", hostID, "--limit", "500"}, "--limit must be 1-200"},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"`},
		{[]string{"hosts", "delete", hostID}, "pass --yes"},
		{[]string{"term", hostID}, "must be a terminal"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := f.cli(t, c.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "hostgate-cli help") {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, c.want)
			}
		})
	}
	if f.called("DELETE /v1/api/hosts/" + hostID) {
		t.Fatal("deleted without --yes")
	}
}

func TestCLIParseFlagsAnywhere(t *testing.T) {
	c := newCommand("x", "")
	n := c.fs.Int("n", 0, "")
	yes := c.fs.Bool("yes", false, "")
	pos, err := c.parse([]string{"a", "--n", "3", "b", "--yes", "--", "--c"}, 3)
	if err != nil || strings.Join(pos, ",") != "a,b,--c" || *n != 3 || !*yes {
		t.Fatalf("pos %q n %d yes %v err %v", pos, *n, *yes, err)
	}
	c = newCommand("shell", "")
	ts := c.fs.Int("timeout-s", 0, "")
	host, argv, err := c.parseCommandLine([]string{"h", "--timeout-s", "5", "--", "ls", "-l", "--timeout-s", "9"})
	if err != nil || host != "h" || *ts != 5 || strings.Join(argv, " ") != "ls -l --timeout-s 9" {
		t.Fatalf("host %q argv %q ts %d err %v", host, argv, *ts, err)
	}
	host, argv, err = c.parseCommandLine([]string{"h", "uname", "-a"})
	if err != nil || host != "h" || strings.Join(argv, " ") != "uname -a" {
		t.Fatalf("without --: host %q argv %q err %v", host, argv, err)
	}
}

func TestCLIHosts(t *testing.T) {
	f := newFakeHub(t)
	r := f.cli(t, "hosts", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") ||
		strings.Index(lines[0], "NAME") != strings.Index(lines[1], hostName) || !strings.Contains(lines[1], "yes") ||
		!strings.HasSuffix(lines[1], " env=prod role=") {
		t.Fatalf("exit %d table:\n%s", r.code, r.stdout)
	}

	r = f.cli(t, "--json", "hosts", "list")
	var hosts []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &hosts); err != nil || len(hosts) != 1 || hosts[0]["id"] != hostID || hosts[0]["online"] != true {
		t.Fatalf("json list %s: %v", r.stdout, err)
	}

	r = f.cli(t, "--json", "hosts", "create", "--listen-port", "4000", "new", "--credentials")
	var created struct {
		Host        map[string]any `json:"host"`
		Credentials map[string]any `json:"credentials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil || created.Host["id"] != hostID || created.Credentials["install_token"] != "it_1" {
		t.Fatalf("create --credentials: %s %v", r.stdout, err)
	}
	if b := f.body(); b["name"] != "new" || b["listen_port"] != 4000.0 || b["with_credentials"] != true {
		t.Fatalf("create body %v", b)
	}
	r = f.cli(t, "--json", "hosts", "create", "plain")
	var plain map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &plain); err != nil || plain["id"] != hostID || plain["host"] != nil {
		t.Fatalf("create: %s %v", r.stdout, err)
	}
	r = f.cli(t, "hosts", "create", "human", "--credentials")
	if !strings.Contains(r.stdout, "install_token:") || !strings.Contains(r.stdout, "curl x | sudo sh") || !strings.Contains(r.stderr, "shown only this once") {
		t.Fatalf("create human: %s / %s", r.stdout, r.stderr)
	}

	// show by name: looked up in the list.
	r = f.cli(t, "hosts", "show", hostName)
	if r.code != 0 || !strings.Contains(r.stdout, "id:") || !strings.Contains(r.stdout, hostID) || !strings.Contains(r.stdout, "env=prod role=") {
		t.Fatalf("show: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = f.cli(t, "hosts", "show", "nosuch")
	if r.code != exitFailed || !strings.Contains(r.stderr, `no host with the id or name "nosuch" (404 not_found)`) {
		t.Fatalf("show nosuch: %d %q", r.code, r.stderr)
	}

	r = f.cli(t, "--json", "hosts", "credentials", hostName, "--rotate")
	if r.code != 0 || !f.called("POST /v1/api/hosts/"+hostID+"/rotate-secret") || !strings.Contains(r.stdout, `"secret_key": "sk"`) {
		t.Fatalf("rotate: %d %s", r.code, r.stdout)
	}
	r = f.cli(t, "hosts", "credentials", hostID)
	if r.code != 0 || !f.called("POST /v1/api/hosts/"+hostID+"/install-token") {
		t.Fatalf("install-token: %d %s", r.code, r.stderr)
	}
}

func TestCLIHostsDeleteConfirms(t *testing.T) {
	f := newFakeHub(t)
	ask := func(answer string) result {
		e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": testKey}, answer)
		e.stdinTerminal = func() bool { return true }
		return runEnv(t, e, out, errb, "hosts", "delete", hostID)
	}
	if r := ask("n\n"); r.code != exitFailed || !strings.Contains(r.stderr, "[y/N]") || f.called("DELETE /v1/api/hosts/"+hostID) {
		t.Fatalf("answered n: %d %q", r.code, r.stderr)
	}
	if r := ask("y\n"); r.code != 0 || !f.called("DELETE /v1/api/hosts/"+hostID) {
		t.Fatalf("answered y: %d %q", r.code, r.stderr)
	}
	r := f.cli(t, "--json", "hosts", "delete", hostID, "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, `"deleted": true`) {
		t.Fatalf("--yes: %d %s", r.code, r.stdout)
	}
}

func TestCLIShell(t *testing.T) {
	f := newFakeHub(t)
	f.set(func() {
		f.shell = map[string]any{"stdout": "out\n", "stderr": "err\n", "exit_code": 7, "duration_ms": 5}
	})
	r := f.cli(t, "shell", hostID, "--timeout-s", "9", "--", "/bin/sh", "-c", "echo it's; exit 7")
	if r.code != 7 || r.stdout != "out\n" || r.stderr != "err\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	body := f.body()
	data, _ := body["data"].(map[string]any)
	if body["path"] != "/bin/sh" || data["args"] != `-c 'echo it'\''s; exit 7'` || data["timeout_s"] != 9.0 {
		t.Fatalf("sent %v", body)
	}

	r = f.cli(t, "--json", "shell", hostID, "--", "false")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 7 || res["stdout"] != "out\n" || res["exit_code"] != 7.0 || res["timed_out"] != false {
		t.Fatalf("--json: exit %d %s %v", r.code, r.stdout, err)
	}
	if r.stderr != "" {
		t.Fatalf("--json stderr %q", r.stderr)
	}

	f.set(func() { f.hostOS = "windows" })
	f.cli(t, "shell", hostName, "--", `C:\bin\tool.exe`, `C:\Program Files\`, `say "hi"`)
	data, _ = f.body()["data"].(map[string]any)
	if want := `"C:\Program Files\\" "say \"hi\""`; data["args"] != want {
		t.Fatalf("windows args %q, want %q", data["args"], want)
	}

	f.set(func() { f.shell = map[string]any{"stdout": "", "stderr": "", "exit_code": -1, "timed_out": true} })
	if r := f.cli(t, "shell", hostID, "--", "sleep", "100"); r.code != exitTimedOut || !strings.Contains(r.stderr, "timed out") {
		t.Fatalf("timed out: exit %d %q", r.code, r.stderr)
	}
	f.set(func() { f.shell = map[string]any{"exit_code": -1} })
	if r := f.cli(t, "shell", hostID, "--", "x"); r.code != 255 {
		t.Fatalf("killed: exit %d", r.code)
	}
}

func TestCLIAPIErrors(t *testing.T) {
	f := newFakeHub(t)
	f.set(func() { f.failWith = 402 })
	r := f.cli(t, "shell", hostID, "--", "true")
	if r.code != exitFailed || r.stderr != "hostgate-cli: the balance does not cover the call (402 insufficient_balance)\n" {
		t.Fatalf("402: exit %d %q", r.code, r.stderr)
	}
	f.set(func() { f.failWith = 409 })
	r = f.cli(t, "--json", "read", hostID, "/etc/hostname")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	var e map[string]any
	if r.code != exitFailed || len(lines) != 2 || !strings.HasSuffix(lines[0], "(409 host_offline)") ||
		json.Unmarshal([]byte(lines[1]), &e) != nil || e["status"] != 409.0 || e["error"] != "host_offline" || e["message"] == "" {
		t.Fatalf("409 --json: exit %d %q", r.code, r.stderr)
	}
	e2, out, errb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": "ak_wrong.key"}, "")
	if r := runEnv(t, e2, out, errb, "hosts", "list"); r.code != exitFailed || !strings.Contains(r.stderr, "(401 unauthorized)") {
		t.Fatalf("401: exit %d %q", r.code, r.stderr)
	}
	e3, out, errb := testEnv(map[string]string{"HOSTGATE_URL": "http://127.0.0.1:1", "HOSTGATE_API_KEY": testKey}, "")
	if r := runEnv(t, e3, out, errb, "--json", "hosts", "list"); r.code != exitFailed || !strings.Contains(r.stderr, `"error":"request_failed"`) {
		t.Fatalf("unreachable: exit %d %q", r.code, r.stderr)
	}
}

func TestCLIRead(t *testing.T) {
	f := newFakeHub(t)
	r := f.cli(t, "read", hostName, "/bin/x")
	if r.code != 0 || r.stdout != "\x00bin\xff" || f.body()["path"] != "/bin/x" {
		t.Fatalf("read: %d %q %v", r.code, r.stdout, f.body())
	}
	r = f.cli(t, "--json", "read", hostID, "/bin/x")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res["encoding"] != "base64" || res["bytes"] != 5.0 {
		t.Fatalf("read --json: %s %v", r.stdout, err)
	}
}

func TestCLIVersionAndCompletion(t *testing.T) {
	e, out, errb := testEnv(nil, "")
	if r := runEnv(t, e, out, errb, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "hostgate-cli "+version+" (") {
		t.Fatalf("version: %d %q", r.code, r.stdout)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		e, out, errb := testEnv(nil, "")
		if r := runEnv(t, e, out, errb, "completion", sh); r.code != 0 || !strings.Contains(r.stdout, "hostgate-cli") {
			t.Fatalf("completion %s: %d %q", sh, r.code, r.stderr)
		}
	}
}

func TestCLIHelp(t *testing.T) {
	f := newFakeHub(t)
	if r := f.cli(t, "hosts", "create", "-h"); r.code != 0 || r.stdout != "usage: hostgate-cli hosts create NAME [--listen-port N] [--credentials]\n" {
		t.Fatalf("hosts create -h: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := f.cli(t, "--help"); r.code != 0 || !strings.Contains(r.stdout, "deliveries HOST [--limit N] [--follow]") {
		t.Fatalf("--help: %d %q", r.code, r.stdout)
	}
}

func TestCLIRemoteStatus(t *testing.T) {
	for code, want := range map[int]int{0: 0, 3: 3, 255: 255, -1: 255} {
		if got := int(remoteStatus(code)); got != want {
			t.Errorf("remoteStatus(%d) = %d, want %d", code, got, want)
		}
	}
	if runtime.GOOS != "windows" && remoteStatus(256) != 255 {
		t.Error("256 is not 255")
	}
}
