package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/agentdist"
	"hostgate/internal/apperr"
)

// The agent downloads (docs/agent.md, Downloads): the binaries the hub
// was built with or that HOSTGATE_AGENT_DIR holds. Public: the binaries
// are not secret, and an installer on a fresh host has no credential.

// AgentDownload is one agent binary in the public list.
type AgentDownload struct {
	OS     string `json:"os" example:"windows"`
	Arch   string `json:"arch" example:"amd64"`
	Name   string `json:"name" example:"hostgate-agent-windows-amd64.exe"`
	SHA256 string `json:"sha256" doc:"64 hexadecimal characters"`
	Size   int64  `json:"size" doc:"Bytes"`
	URL    string `json:"url" doc:"HOSTGATE_PUBLIC_URL + /download/ + name"`
}

type downloadsOut struct {
	Body struct {
		Items []AgentDownload `json:"items"`
	}
}

func (s *Server) downloadRoutes() {
	tags := []string{"downloads"}
	op(s, huma.Operation{OperationID: "agentDownloads", Method: http.MethodGet, Path: "/v1/public/agent/downloads",
		Summary: "The agent binaries this hub serves, with their SHA-256 and download address", Tags: tags}, s.agentDownloads)
	s.raw("GET /download/SHA256SUMS", s.downloadSums, huma.Operation{OperationID: "agentDownloadSums", Tags: tags,
		Summary: "SHA-256 of every agent binary, in sha256sum's format (`sha256sum -c SHA256SUMS`)",
		Responses: map[string]*huma.Response{"200": {Description: "text/plain; one `<sha256>  <name>` line per binary",
			Content: map[string]*huma.MediaType{"text/plain": {}}}}})
	s.raw("GET /download/{name}", s.download, huma.Operation{OperationID: "agentDownload", Tags: tags,
		Summary: "Download an agent binary (HEAD and Range work)",
		Description: "ETag and X-Checksum-SHA256 carry the file's SHA-256. 404 not_found for a name not in " +
			"/v1/public/agent/downloads; 503 exe_unavailable when the file changed on disk since the hub started.",
		Parameters: []*huma.Param{{Name: "name", In: "path", Required: true, Schema: &huma.Schema{Type: "string"},
			Description: "hostgate-agent-<os>-<arch>, with .exe for windows", Example: "hostgate-agent-windows-amd64.exe"}},
		Responses: map[string]*huma.Response{
			"200": {Description: "The binary", Content: map[string]*huma.MediaType{"application/octet-stream": {}}},
			"404": {Description: "No such binary"},
		}})
}

func (s *Server) agentDownloads(context.Context, *struct{}) (*downloadsOut, error) {
	out := &downloadsOut{}
	out.Body.Items = []AgentDownload{}
	base := s.cfg.Hosts.APIEndpoint()
	for _, b := range s.cfg.Installs.Downloads() {
		out.Body.Items = append(out.Body.Items, AgentDownload{OS: b.OS, Arch: b.Arch, Name: b.Name,
			SHA256: b.SHA256, Size: b.Size, URL: b.URL(base)})
	}
	return out, nil
}

func (s *Server) downloadSums(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	http.ServeContent(&jsonErrors{ResponseWriter: w}, r, "", time.Time{}, bytes.NewReader(s.cfg.Installs.SHA256SUMS()))
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	f, b, err := s.cfg.Installs.OpenDownload(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		writeProblem(w, &Problem{Status: 404, Code: apperr.CodeNotFound,
			Message: "no agent download named " + name + "; GET /v1/public/agent/downloads lists them"})
		return
	case errors.Is(err, agentdist.ErrChanged):
		writeProblem(w, &Problem{Status: 503, Code: "exe_unavailable", Message: name + ": " + err.Error()})
		return
	case err != nil:
		writeProblem(w, problemFor(s.log, r, err))
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="`+b.Name+`"`)
	h.Set("ETag", `"`+b.SHA256+`"`)
	h.Set("X-Checksum-SHA256", b.SHA256)
	http.ServeContent(&jsonErrors{ResponseWriter: w}, r, "", time.Time{}, f)
}

// jsonErrors turns http.ServeContent's own refusals (416 for a Range
// outside the file, 412 for a failed If-Match) into {error, message}.
type jsonErrors struct {
	http.ResponseWriter
	failed bool
}

func (w *jsonErrors) WriteHeader(code int) {
	if code < 400 {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.failed = true
	p := &Problem{Status: code, Code: "range_not_satisfiable", Message: "the Range asks for bytes outside the file"}
	if code == http.StatusPreconditionFailed {
		p.Code, p.Message = "precondition_failed", "If-Match or If-Unmodified-Since does not hold for this file"
	}
	writeProblem(w.ResponseWriter, p)
}

func (w *jsonErrors) Write(b []byte) (int, error) {
	if w.failed {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}
