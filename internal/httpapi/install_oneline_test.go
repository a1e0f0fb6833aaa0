package httpapi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// oneLineHub starts a hub that can render both one-line installers: its
// agent downloads (HOSTGATE_AGENT_DIR) hold a windows/amd64 executable and
// a linux/amd64 agent binary. It returns the hub and the address its
// downloads are served from.
func oneLineHub(t *testing.T, mode hubtest.Mode, opts ...hubtest.Option) (*hubtest.Hub, string) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"hostgate-agent-windows-amd64.exe", "hostgate-agent-linux-amd64"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("pretend "+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := hubtest.Start(t, mode, append([]hubtest.Option{hubtest.WithEnv("HOSTGATE_AGENT_DIR", dir)}, opts...)...)
	return h, h.URL + "/download"
}

type installCommand struct {
	PowerShell string `json:"powershell"`
	Shell      string `json:"shell"`
}

// wantInstallCommand checks the lines to paste for token on hub h.
func wantInstallCommand(t *testing.T, where string, h *hubtest.Hub, got installCommand, token string) {
	t.Helper()
	want := installCommand{
		PowerShell: "irm " + h.URL + "/install/" + token + ".ps1 | iex",
		Shell:      "curl -fsSL " + h.URL + "/install/" + token + ".sh | sh",
	}
	if token == "" || got != want {
		t.Errorf("%s: install_command %+v, want %+v", where, got, want)
	}
}

var (
	ps1Token = regexp.MustCompile(`"install_token":"([A-Za-z0-9_-]+)"`)
	shToken  = regexp.MustCompile(`"install_token":"([A-Za-z0-9_-]+)"`)
)

// fetchInstaller fetches a one-line installer and returns the install
// token it embeds.
func fetchInstaller(t *testing.T, h *hubtest.Hub, token, kind string, re *regexp.Regexp) (string, *hubtest.Response) {
	t.Helper()
	r := h.Client(t).Do("GET", "/install/"+token+"."+kind, nil).Want(t, 200, "")
	if r.Header.Get("X-Hostgate-Install") != "" {
		t.Fatalf(".%s refused:\n%s", kind, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf(".%s: Content-Type %q, Cache-Control %q", kind, ct, r.Header.Get("Cache-Control"))
	}
	m := re.FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf(".%s carries no install token:\n%s", kind, r.Body)
	}
	if string(m[1]) == token {
		t.Fatalf(".%s carries the token it was fetched with, not a new one", kind)
	}
	return string(m[1]), r
}

func TestOneLineInstall(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h, dl := oneLineHub(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)

		// The three answers that issue a token give the lines to paste.
		var created struct {
			Host        host `json:"host"`
			Credentials struct {
				InstallToken   string         `json:"install_token"`
				InstallCommand installCommand `json:"install_command"`
			} `json:"credentials"`
		}
		h.Client(t).As(key).Do("POST", "/v1/api/hosts", map[string]any{"name": "web-1", "with_credentials": true}).
			Want(t, 201, "").JSON(t, &created)
		hs := created.Host
		wantInstallCommand(t, "host creation", h, created.Credentials.InstallCommand, created.Credentials.InstallToken)
		var apiTok struct {
			InstallToken   string         `json:"install_token"`
			InstallCommand installCommand `json:"install_command"`
		}
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &apiTok)
		wantInstallCommand(t, "client API install-token", h, apiTok.InstallCommand, apiTok.InstallToken)
		var userTok struct {
			InstallToken   string         `json:"install_token"`
			InstallCommand installCommand `json:"install_command"`
			Credentials    struct {
				InstallCommand installCommand `json:"install_command"`
			} `json:"credentials"`
		}
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &userTok)
		wantInstallCommand(t, "user install-token", h, userTok.InstallCommand, userTok.InstallToken)
		wantInstallCommand(t, "user install-token credentials", h, userTok.Credentials.InstallCommand, userTok.InstallToken)

		// The PowerShell installer spends the token and carries a new one.
		tok := userTok.InstallToken
		h.Client(t).Do("HEAD", "/install/"+tok+".ps1", nil).Want(t, 405, "")
		next, r := fetchInstaller(t, h, tok, "ps1", ps1Token)
		if !strings.Contains(string(r.Body), "--install-template --setup-from -") || !strings.Contains(string(r.Body), `"host_id":"`+hs.ID+`"`) {
			t.Errorf(".ps1 is not the installer of host %s:\n%s", hs.ID, r.Body)
		}
		refusedSh := wantRefused(t, h, tok+".sh", "sh")
		refusedPs := wantRefused(t, h, tok+".ps1", "ps1")
		online(t, h, hs.ID, tok).Want(t, 401, "invalid_token")

		// The shell installer likewise; the token it spends is the one the
		// .ps1 carried, which is then dead for enrolment too.
		last, r := fetchInstaller(t, h, next, "sh", shToken)
		body := string(r.Body)
		for _, want := range []string{"#!/bin/sh", dl + "/hostgate-agent-linux-amd64", " install --prefix ", `"host_id":"` + hs.ID + `"`} {
			if !strings.Contains(body, want) {
				t.Errorf(".sh lacks %q", want)
			}
		}
		online(t, h, hs.ID, next).Want(t, 401, "invalid_token")
		online(t, h, hs.ID, last).Want(t, 200, "")
		// Spent by enrolment, unknown, too long: the same refusal script,
		// byte for byte, naming no host.
		for _, p := range []string{last + ".sh", "nope.sh", strings.Repeat("a", 200) + ".sh"} {
			if got := wantRefused(t, h, p, "sh"); got != refusedSh {
				t.Errorf("%s: another refusal script", p)
			}
		}
		if got := wantRefused(t, h, "nope.ps1", "ps1"); got != refusedPs {
			t.Errorf("nope.ps1: another refusal script")
		}
		for _, refused := range []string{refusedSh, refusedPs} {
			if strings.Contains(refused, hs.ID) || strings.Contains(refused, tok) {
				t.Errorf("the refusal names the host or the token:\n%s", refused)
			}
		}
		// Names that are no one-line install are one 404.
		for _, p := range []string{tok + ".exe", tok} {
			h.Client(t).Do("GET", "/install/"+p, nil).Want(t, 404, "not_found")
		}
	})
}

func TestOneLineInstallRateLimit(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h, _ := oneLineHub(t, mode, hubtest.WithEnv("HOSTGATE_INSTALL_RATE_PER_MIN", "3"))
		key := apiKey(t, h, h.Register(t).AccessToken)
		hs, c := createWithCreds(t, h, key)
		for range 3 {
			wantRefused(t, h, "unknown.sh", "sh")
		}
		r := h.Client(t).Do("GET", "/install/"+c.InstallToken+".ps1", nil).Want(t, 429, "rate_limited")
		if r.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
		// The refused fetch spent nothing.
		online(t, h, hs.ID, c.InstallToken).Want(t, 200, "")
	})
}

func TestOneLineInstallWithoutAgent(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	key := apiKey(t, h, h.Register(t).AccessToken)
	hs, c := createWithCreds(t, h, key)
	h.Client(t).Do("GET", "/install/"+c.InstallToken+".ps1", nil).Want(t, 503, "exe_not_configured")
	r := h.Client(t).Do("GET", "/install/"+c.InstallToken+".sh", nil).Want(t, 503, "exe_not_configured")
	// Both refusals say how to give the hub its agents.
	if !strings.Contains(string(r.Body), "make build") || !strings.Contains(string(r.Body), "HOSTGATE_AGENT_DIR") {
		t.Errorf(".sh refusal %s", r.Body)
	}
	online(t, h, hs.ID, c.InstallToken).Want(t, 200, "")
}

// wantRefused fetches /install/<file> and checks it is the refusal script
// of kind: 200 (so that `curl -f … | sh` and `irm … | iex` run it), marked
// X-Hostgate-Install: refused, saying how to get a new line.
func wantRefused(t *testing.T, h *hubtest.Hub, file, kind string) string {
	t.Helper()
	r := h.Client(t).Do("GET", "/install/"+file, nil).Want(t, 200, "")
	body := string(r.Body)
	if r.Header.Get("X-Hostgate-Install") != "refused" || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: headers %v", file, r.Header)
	}
	want := map[string]string{"sh": "exit 6\n", "ps1": "throw 'hostgate: "}[kind]
	for _, w := range []string{"already used or has expired", "Re-issue install token", "hostgate-cli hosts credentials HOST",
		"POST /v1/api/hosts/{id}/install-token", want} {
		if !strings.Contains(body, w) {
			t.Errorf("%s: refusal lacks %q:\n%s", file, w, body)
		}
	}
	return body
}
