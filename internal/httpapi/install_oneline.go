package httpapi

import (
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
	"hostgate/internal/installer"
)

// The one-line install (docs/hosts.md): GET /install/<install token>.ps1
// or .sh, with no other credential. The token is spent by the fetch,
// which issues new install credentials for its host (as install-token
// does) and answers the installer embedding them. Unknown, spent and
// expired tokens all get one short script (installer.Refused), status 200
// with X-Hostgate-Install: refused, which says the line was used or has
// expired and how to get a new one, and exits non-zero: `curl -f` pipes
// no 4xx body into sh and `irm` throws on one, so a 404 left the user
// with nothing. A refused fetch (rate, no agent to install) spends
// nothing. The token never reaches a log: the access log shows the path
// as /install/[token].ps1.

func (s *Server) oneLineRoutes() {
	s.raw("GET "+hosts.InstallPath+"{file}", s.oneLineInstaller, huma.Operation{
		OperationID: "oneLineInstaller", Tags: []string{"hosts"},
		Summary: "One-line install: the installer for the host of an install token, which this spends",
		Description: "`{file}` is `<install_token>.ps1` (PowerShell, for `irm <url> | iex` in an elevated PowerShell) or " +
			"`<install_token>.sh` (POSIX sh, for `curl -fsSL <url> | sh` on Linux, as root or as a user who may sudo). " +
			"No other credential: the token (single use, INSTALL_TOKEN_TTL) is spent, new install credentials are issued " +
			"for its host exactly as POST …/install-token does (the previous key pair and install token stop working), " +
			"and the script embedding them is answered as text/plain. An unknown, spent or expired token is answered " +
			"200 as well, with the header `X-Hostgate-Install: refused` and one short script, the same for every such " +
			"token (no host id, no secret), that says the line was used or has expired and how to get a new one, and " +
			"fails (the .sh exits 6, the .ps1 throws): a 4xx body would never run, since `curl -f` drops it and `irm` " +
			"throws on it. Nothing changes then. 404 not_found for a name that is not <token>.ps1 or <token>.sh; " +
			"429 rate_limited past HOSTGATE_INSTALL_RATE_PER_MIN per source address; 503 exe_not_configured when the hub " +
			"has no agent to install for that script (the token is not spent). HEAD is refused (405), so a probe spends nothing.",
		Parameters: []*huma.Param{{Name: "file", In: "path", Required: true, Schema: &huma.Schema{Type: "string"},
			Description: "<install_token>.ps1 or <install_token>.sh"}},
		Responses: map[string]*huma.Response{
			"200": {Description: "The installer script (text/plain; charset=utf-8); for an unknown, spent or expired token " +
				"the refusal script, marked `X-Hostgate-Install: refused`",
				Headers: map[string]*huma.Param{installer.HeaderInstall: {Schema: &huma.Schema{Type: "string", Enum: []any{installer.RefusedValue}},
					Description: "`refused` on the refusal script; absent on an installer"}}},
			"404": {Description: "not_found"}, "429": {Description: "rate_limited"}, "503": {Description: "exe_not_configured"},
		},
	})
}

func (s *Server) oneLineInstaller(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		w.Header().Set("Allow", http.MethodGet)
		writeProblem(w, problemFor(s.log, r, &Problem{Status: 405, Code: "method_not_allowed", Message: "HEAD is not allowed here; allowed: GET"}))
		return
	}
	sc, refused, err := s.cfg.Installs.OneLine(r.Context(), r.PathValue("file"), clientIP(r.Context()))
	if err != nil {
		if apperr.Code(err) == apperr.CodeRateLimited {
			w.Header().Set("Retry-After", "60")
		}
		writeProblem(w, problemFor(s.log, r, err))
		return
	}
	if refused {
		w.Header().Set(installer.HeaderInstall, installer.RefusedValue)
	}
	w.Header().Set("Content-Type", sc.ContentType)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(sc.Body)
}

// logPath is r's path as the access log shows it: an install token in
// the path is a credential and is masked.
func logPath(p string) string {
	rest, ok := strings.CutPrefix(p, hosts.InstallPath)
	if !ok || rest == "" {
		return p
	}
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		return hosts.InstallPath + "[token]" + rest[i:]
	}
	return hosts.InstallPath + "[token]"
}
