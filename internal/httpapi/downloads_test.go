package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// fakeAgents writes small stand-ins for the agent binaries `make build`
// makes, so these tests need no cross-compile, and returns the directory
// for HOSTGATE_AGENT_DIR and each file's bytes by name.
func fakeAgents(t *testing.T, version string) (string, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"hostgate-agent-windows-amd64.exe": []byte("MZ pretend windows agent"),
		"hostgate-agent-linux-amd64":       []byte("\x7fELF pretend linux amd64 agent"),
		"hostgate-agent-linux-arm64":       []byte("\x7fELF pretend linux arm64 agent!"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if version != "" {
		if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte(version+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

type agentDownload struct {
	OS, Arch, Name, SHA256, URL string
	Size                        int64
}

func TestAgentDownloads(t *testing.T) {
	dir, files := fakeAgents(t, "")
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_AGENT_DIR", dir))
	c := h.Client(t)

	var list struct{ Items []agentDownload }
	c.Do("GET", "/v1/public/agent/downloads", nil).Want(t, 200, "").JSON(t, &list)
	if len(list.Items) != len(files) {
		t.Fatalf("list = %+v", list)
	}
	var sums strings.Builder
	for _, it := range list.Items {
		b := files[it.Name]
		if b == nil || it.SHA256 != sha(b) || it.Size != int64(len(b)) || it.URL != h.URL+"/download/"+it.Name ||
			!strings.HasPrefix(it.Name, "hostgate-agent-"+it.OS+"-"+it.Arch) {
			t.Errorf("list item %+v", it)
		}
		fmt.Fprintf(&sums, "%s  %s\n", sha(b), it.Name)

		r := c.Do("GET", "/download/"+it.Name, nil).Want(t, 200, "")
		if !bytes.Equal(r.Body, b) || sha(r.Body) != it.SHA256 {
			t.Errorf("%s: body %q", it.Name, r.Body)
		}
		for k, v := range map[string]string{
			"Content-Type":        "application/octet-stream",
			"Content-Length":      fmt.Sprint(len(b)),
			"Content-Disposition": `attachment; filename="` + it.Name + `"`,
			"ETag":                `"` + it.SHA256 + `"`,
			"X-Checksum-SHA256":   it.SHA256,
		} {
			if got := r.Header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", it.Name, k, got, v)
			}
		}
		head := c.Do("HEAD", "/download/"+it.Name, nil).Want(t, 200, "")
		if len(head.Body) != 0 || head.Header.Get("Content-Length") != fmt.Sprint(len(b)) || head.Header.Get("X-Checksum-SHA256") != it.SHA256 {
			t.Errorf("%s: HEAD %v %q", it.Name, head.Header, head.Body)
		}
	}
	r := c.Do("GET", "/download/SHA256SUMS", nil).Want(t, 200, "")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || string(r.Body) != sumsSorted(sums.String()) {
		t.Errorf("SHA256SUMS = %s %q", r.Header.Get("Content-Type"), r.Body)
	}

	// Range and conditional requests, as download tools resume them.
	name := "hostgate-agent-linux-arm64"
	req, _ := http.NewRequest("GET", h.URL+"/download/"+name, nil)
	req.Header.Set("Range", "bytes=4-7")
	if r := c.Send(req); r.Status != 206 || string(r.Body) != string(files[name][4:8]) {
		t.Errorf("Range: %d %q", r.Status, r.Body)
	}
	req.Header.Set("Range", "bytes=1000-")
	c.Send(req).Want(t, 416, "range_not_satisfiable")
	req.Header.Del("Range")
	req.Header.Set("If-None-Match", `"`+sha(files[name])+`"`)
	if r := c.Send(req); r.Status != 304 {
		t.Errorf("If-None-Match: %d", r.Status)
	}

	for _, bad := range []string{"hostgate-agent-darwin-arm64", "VERSION", "README.md", "x"} {
		r := c.Do("GET", "/download/"+bad, nil).Want(t, 404, "not_found")
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: 404 is %s", bad, r.Header.Get("Content-Type"))
		}
	}

	// A file replaced on disk after start is refused, not served under the
	// checksum of the one it replaced. Its modification time is set a
	// second later, whatever the file system's clock granularity.
	path := filepath.Join(dir, name)
	old, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("\x7fELF something else entirely"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, old.ModTime().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	c.Do("GET", "/download/"+name, nil).Want(t, 503, "exe_unavailable")
}

// sumsSorted orders sha256sum lines by file name, as the hub lists them.
func sumsSorted(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return strings.Join(lines, "\n") + "\n"
}

type exeCreds struct {
	ExeURL    string `json:"exe_url"`
	ExeSHA256 string `json:"exe_sha256"`
}

func hostExe(t *testing.T, h *hubtest.Hub, key string) exeCreds {
	t.Helper()
	var out struct{ Credentials exeCreds }
	h.Client(t).As(key).Do("POST", "/v1/api/hosts", map[string]any{"name": "x", "with_credentials": true}).Want(t, 201, "").JSON(t, &out)
	return out.Credentials
}

// TestCredentialsNameTheHubsOwnAgent: exe_url and exe_sha256 default to
// the hub's own windows/amd64 download, GATEWAY_EXE_URL overrides them,
// and the exe installer reads the hub's copy without fetching its URL.
func TestCredentialsNameTheHubsOwnAgent(t *testing.T) {
	dir, files := fakeAgents(t, "")
	exe := files["hostgate-agent-windows-amd64.exe"]

	// The public URL is unreachable: an installer that fetched its own
	// download over HTTP would fail.
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_AGENT_DIR", dir),
		hubtest.WithEnv("HOSTGATE_PUBLIC_URL", "https://hub.invalid"))
	key := apiKey(t, h, h.Register(t).AccessToken)
	if c := hostExe(t, h, key); c.ExeURL != "https://hub.invalid/download/hostgate-agent-windows-amd64.exe" || c.ExeSHA256 != sha(exe) {
		t.Errorf("credentials %+v", c)
	}
	hs, _ := createWithCreds(t, h, key)
	r := h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer", nil).Want(t, 200, "")
	if p, err := agentproto.ReadPayload(r.Body); err != nil || !bytes.HasPrefix(r.Body, exe) || p.Hub.HostID != hs.ID {
		t.Errorf("exe installer: %+v, %v", p, err)
	}
	r = h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer?format=ps1", nil).Want(t, 200, "")
	if !strings.Contains(string(r.Body), "https://hub.invalid/download/hostgate-agent-windows-amd64.exe") || !strings.Contains(string(r.Body), sha(exe)) {
		t.Errorf("ps1 installer does not name the hub's download")
	}

	cdn := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_AGENT_DIR", dir),
		hubtest.WithEnv("GATEWAY_EXE_URL", "https://cdn.example.com/agent.exe"), hubtest.WithEnv("GATEWAY_EXE_SHA256", strings.Repeat("AB", 32)))
	key = apiKey(t, cdn, cdn.Register(t).AccessToken)
	if c := hostExe(t, cdn, key); c.ExeURL != "https://cdn.example.com/agent.exe" || c.ExeSHA256 != strings.Repeat("ab", 32) {
		t.Errorf("credentials with GATEWAY_EXE_URL %+v", c)
	}
}

// TestHubWithoutAgents: a hub built without agent downloads is ready and
// says so, serves an empty list, and refuses installers as before.
func TestHubWithoutAgents(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded) // hubtest's default: an empty HOSTGATE_AGENT_DIR
	var ready struct {
		Status         string `json:"status"`
		AgentDownloads string `json:"agent_downloads"`
	}
	h.Client(t).Do("GET", "/readyz", nil).Want(t, 200, "").JSON(t, &ready)
	if ready.Status != "ok" || !strings.HasPrefix(ready.AgentDownloads, "none built") {
		t.Errorf("readyz %+v", ready)
	}
	var list struct{ Items []agentDownload }
	r := h.Client(t).Do("GET", "/v1/public/agent/downloads", nil).Want(t, 200, "")
	if r.JSON(t, &list); list.Items == nil || len(list.Items) != 0 || !strings.Contains(string(r.Body), `"items":[]`) {
		t.Errorf("list %s", r.Body)
	}
	h.Client(t).Do("GET", "/download/hostgate-agent-windows-amd64.exe", nil).Want(t, 404, "not_found")
	if r := h.Client(t).Do("GET", "/download/SHA256SUMS", nil).Want(t, 200, ""); len(r.Body) != 0 {
		t.Errorf("SHA256SUMS %q", r.Body)
	}
	key := apiKey(t, h, h.Register(t).AccessToken)
	hs, c := createWithCreds(t, h, key)
	if e := hostExe(t, h, key); e != (exeCreds{}) {
		t.Errorf("credentials name an executable: %+v", e)
	}
	r = h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer", nil).Want(t, 503, "exe_not_configured")
	if !strings.Contains(string(r.Body), "make build") || !strings.Contains(string(r.Body), "GATEWAY_EXE_URL") {
		t.Errorf("installer refusal %s", r.Body)
	}
	online(t, h, hs.ID, c.InstallToken).Want(t, 200, "")

	dir, _ := fakeAgents(t, "")
	full := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_AGENT_DIR", dir))
	full.Client(t).Do("GET", "/readyz", nil).Want(t, 200, "").JSON(t, &ready)
	if ready.AgentDownloads != "linux/amd64, linux/arm64, windows/amd64" {
		t.Errorf("readyz with agents %+v", ready)
	}
}

type gwVersion struct {
	Version      string `json:"version"`
	Channel      string `json:"channel"`
	ExeURL       string `json:"exe_url"`
	ExeSHA256    string `json:"exe_sha256"`
	ExeSizeBytes int64  `json:"exe_size_bytes"`
}

func listVersions(t *testing.T, h *hubtest.Hub, admin string) []gwVersion {
	t.Helper()
	var page struct{ Items []gwVersion }
	h.Client(t).As(admin).Do("GET", "/v1/admin/gateway-versions?include_yanked=true", nil).Want(t, 200, "").JSON(t, &page)
	return page.Items
}

// TestFirstGatewayVersion: hubs starting on a database without versions
// publish the served windows/amd64 agent once, however many start.
func TestFirstGatewayVersion(t *testing.T) {
	dir, files := fakeAgents(t, "0.9.1-3-gabc1234")
	exe := files["hostgate-agent-windows-amd64.exe"]
	h := hubtest.Start(t, hubtest.Scaled, hubtest.WithEnv("HOSTGATE_AGENT_DIR", dir),
		hubtest.WithEnv("HOSTGATE_PUBLIC_URL", "https://hub.example.com"))
	env := maps.Clone(h.Env) // a second instance with the same public URL
	env["HOSTGATE_ADDR"], env["HOSTGATE_DATA_DIR"] = "127.0.0.1:0", t.TempDir()
	sibling := hubtest.StartEnv(t, env)
	admin, _ := h.Admin(t, "owner")
	var got []gwVersion
	eventually.True(t, 10*time.Second, "a version published", func() bool { got = listVersions(t, h, admin); return len(got) > 0 })
	want := gwVersion{Version: "0.9.1-3-gabc1234", Channel: "stable", ExeSHA256: sha(exe), ExeSizeBytes: int64(len(exe)),
		ExeURL: "https://hub.example.com/download/hostgate-agent-windows-amd64.exe"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("versions = %+v, want [%+v]", got, want)
	}
	// Restarts find a version and publish nothing, even when the build changed.
	if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte("0.9.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sibling.Restart(t)
	h = h.Restart(t)
	h.Client(t).Do("GET", "/readyz", nil).Want(t, 200, "")
	if got := listVersions(t, h, admin); len(got) != 1 || got[0].Version != want.Version {
		t.Errorf("after restarts: %+v", got)
	}
}
