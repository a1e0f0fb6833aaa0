package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

type cliPayload struct {
	SchemaVersion int `json:"schema_version"`
	Hub           struct {
		HostID       string `json:"host_id"`
		SecretKey    string `json:"secret_key"`
		InstallToken string `json:"install_token"`
		AgentPubkey  string `json:"agent_pubkey"`
	} `json:"hub"`
	Autologon *struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"autologon"`
}

// TestCLIProvisioningPayload: the payload of a real hub's host, to stdout
// and to a file only its owner can read, with and without autologon.
func TestCLIProvisioningPayload(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	var key struct{ Secret string }
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "cli"}).Want(t, 200, "").JSON(t, &key)
	var created struct {
		Host        struct{ ID string }
		Credentials struct {
			SecretKey    string `json:"secret_key"`
			InstallToken string `json:"install_token"`
		}
	}
	h.Client(t).As(key.Secret).Do("POST", "/v1/api/hosts", map[string]any{"name": "tmpl-1", "with_credentials": true}).
		Want(t, 201, "").JSON(t, &created)
	cli := func(stdin string, args ...string) result {
		t.Helper()
		e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": h.URL, "HOSTGATE_API_KEY": key.Secret}, stdin)
		return runEnv(t, e, out, errb, args...)
	}
	decode := func(b []byte) cliPayload {
		t.Helper()
		if _, err := agentproto.ParsePayload(b); err != nil {
			t.Fatalf("the agent's validator refuses %s: %v", b, err)
		}
		var p cliPayload
		if err := json.Unmarshal(b, &p); err != nil || p.SchemaVersion != 1 || p.Hub.HostID != created.Host.ID ||
			p.Hub.SecretKey != created.Credentials.SecretKey || strings.HasPrefix(p.Hub.AgentPubkey, "ed25519:") || len(b) >= 1024 {
			t.Fatalf("payload %s (%d bytes): %v", b, len(b), err)
		}
		return p
	}

	// To stdout, by name.
	r := cli("", "hosts", "provisioning-payload", "tmpl-1")
	if r.code != 0 || !strings.Contains(r.stderr, "previous install token and agent key no longer work") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	p := decode([]byte(r.stdout))
	if p.Autologon != nil || p.Hub.InstallToken == created.Credentials.InstallToken {
		t.Errorf("stdout payload %+v", p)
	}

	// To a file, replacing one that others could read.
	dir := t.TempDir()
	file := filepath.Join(dir, "user-data.json")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = cli("", "hosts", "provisioning-payload", created.Host.ID, "--autologon-generate", "-o", file)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote the provisioning payload of host "+created.Host.ID+" to "+file) {
		t.Fatalf("exit %d, stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p = decode(b)
	if p.Autologon == nil || p.Autologon.Username != "Administrator" || len(p.Autologon.Password) < 16 {
		t.Errorf("generated autologon %+v", p.Autologon)
	}
	if fi, err := os.Stat(file); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("file mode %v (%v), want 0600", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want the payload only", len(ents))
	}

	// A given user and a password from stdin; --json names the file.
	r = cli("0123456789abcdefXYZ\n", "--json", "hosts", "provisioning-payload", created.Host.ID,
		"--autologon-user", "ops", "--autologon-password", "-", "--output", file)
	var summary struct {
		File      string `json:"file"`
		Autologon bool   `json:"autologon"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &summary); r.code != 0 || err != nil || summary.File != file || !summary.Autologon {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", r.code, r.stdout, err, r.stderr)
	}
	b, _ = os.ReadFile(file)
	if p = decode(b); p.Autologon == nil || p.Autologon.Username != "ops" || p.Autologon.Password != "0123456789abcdefXYZ" {
		t.Errorf("given autologon %+v", p.Autologon)
	}

	// The hub's refusal, and the CLI's own.
	r = cli("", "hosts", "provisioning-payload", created.Host.ID, "--autologon-password", "short", "-o", file)
	if r.code != exitFailed || !strings.Contains(r.stderr, "invalid_body") || !strings.Contains(r.stderr, "16") {
		t.Errorf("short password: exit %d, stderr %q", r.code, r.stderr)
	}
	if b2, _ := os.ReadFile(file); string(b2) != string(b) {
		t.Error("a refused request replaced the file")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{created.Host.ID, "--autologon-password", "0123456789abcdefXYZ", "--autologon-generate"}, "not both"},
		{[]string{created.Host.ID, "--autologon-password", ""}, "--autologon-generate"},
		{[]string{created.Host.ID, "--autologon-password", "-"}, "no password on stdin"},
		{[]string{created.Host.ID, "-o", ""}, "-o needs a file name"},
		{nil, "usage: hostgate-cli hosts provisioning-payload HOST"},
	} {
		r := cli("", append([]string{"hosts", "provisioning-payload"}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r = cli("", "hosts", "provisioning-payload", "00000000-0000-4000-8000-000000000000")
	if r.code != exitFailed || !strings.Contains(r.stderr, "not_found") {
		t.Errorf("unknown host: exit %d, stderr %q", r.code, r.stderr)
	}
}
