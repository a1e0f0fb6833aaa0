package upgrade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

func shaOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// newExeServer serves body at /exe with its length, and misbehaving
// variants on other paths.
func newExeServer(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/exe", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
	// No Content-Length: the size is only known by reading.
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.(http.Flusher).Flush()
		_, _ = w.Write(make([]byte, n))
	})
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drops the connection mid-body
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestDownload(t *testing.T) {
	t.Parallel()
	body := []byte(strings.Repeat("new agent build ", 5000))
	srv := newExeServer(t, body)
	dir := t.TempDir()
	exe := filepath.Join(dir, exeName("hostgate-agent"))
	writeFile(t, exe, "old")

	u := agentproto.Upgrade{Version: "2.0.0", ExeURL: srv.URL + "/exe", ExeSHA256: shaOf(body), ExeSize: int64(len(body))}
	staged, d, err := Download(t.Context(), u, exe)
	if err != nil {
		t.Fatalf("Download: %v", err)
	}
	if err := Verify(u, d); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if filepath.Dir(staged) != dir {
		t.Errorf("staged in %s, want the executable's directory %s", filepath.Dir(staged), dir)
	}
	if !strings.HasPrefix(filepath.Base(staged), filepath.Base(exe)+stagedInfix) || !strings.HasSuffix(staged, exeSuffix) {
		t.Errorf("staged file name %s", filepath.Base(staged))
	}
	if runtime.GOOS == "windows" && !strings.HasSuffix(staged, ".exe") {
		t.Errorf("staged file %s does not end in .exe", staged)
	}
	assertContent(t, staged, body)
	assertContent(t, exe, []byte("old"))
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(staged); fi.Mode().Perm() != 0o755 {
			t.Errorf("staged mode %v, want 0755", fi.Mode().Perm())
		}
	}
}

func TestDownloadFailures(t *testing.T) {
	t.Parallel()
	body := []byte("the real new executable")
	srv := newExeServer(t, body)
	good := agentproto.Upgrade{Version: "2.0.0", ExeURL: srv.URL + "/exe", ExeSHA256: shaOf(body), ExeSize: int64(len(body))}
	tests := []struct {
		name string
		edit func(*agentproto.Upgrade)
		want string
	}{
		{"wrong sha", func(u *agentproto.Upgrade) { u.ExeSHA256 = shaOf([]byte("other")) },
			"sha256 mismatch: got " + shaOf(body) + ", want " + shaOf([]byte("other"))},
		{"announced size differs", func(u *agentproto.Upgrade) { u.ExeSize++ },
			"size mismatch: the server announces 23 bytes, want 24"},
		{"body too short", func(u *agentproto.Upgrade) { u.ExeURL = srv.URL + "/chunked?n=10" },
			"size mismatch: got 10 bytes, want 23"},
		{"body too long", func(u *agentproto.Upgrade) { u.ExeURL = srv.URL + "/chunked?n=100000" },
			"size mismatch: got more than 23 bytes"},
		{"not found", func(u *agentproto.Upgrade) { u.ExeURL = srv.URL + "/missing" },
			"download: HTTP 404 Not Found from " + srv.URL + "/missing"},
		{"connection dropped", func(u *agentproto.Upgrade) { u.ExeURL = srv.URL + "/cut" },
			"download: " + srv.URL + "/cut: unexpected EOF"},
		{"no server", func(u *agentproto.Upgrade) { u.ExeURL = "http://127.0.0.1:1/exe" },
			"download: http://127.0.0.1:1/exe: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			exe := filepath.Join(dir, exeName("hostgate-agent"))
			writeFile(t, exe, "old")
			u := good
			tt.edit(&u)
			staged, d, err := Download(t.Context(), u, exe)
			if err == nil {
				// Downloaded whole: the digest must not pass.
				err = Verify(u, d)
				_ = os.Remove(staged)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Download+Verify = %q, %v; want an error containing %q", staged, err, tt.want)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(exe)}) {
				t.Errorf("files left: %v, want only the executable", names)
			}
			assertContent(t, exe, []byte("old"))
		})
	}
}

func TestDownloadStopsWithItsContext(t *testing.T) {
	t.Parallel()
	body := []byte("x")
	srv := newExeServer(t, body)
	dir := t.TempDir()
	exe := filepath.Join(dir, exeName("agent"))
	writeFile(t, exe, "old")
	u := agentproto.Upgrade{Version: "2.0.0", ExeURL: srv.URL + "/stall?token=s3cret", ExeSHA256: shaOf(body), ExeSize: 1}

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, _, err := Download(ctx, u, exe)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Download with a stalled body: %v, want a timeout", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error shows the URL's query: %v", err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	if _, _, err := Download(ctx, u, exe); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("Download with a cancelled context: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}

func TestDownloadHidesURLCredentials(t *testing.T) {
	t.Parallel()
	srv := newExeServer(t, []byte("x"))
	dir := t.TempDir()
	exe := filepath.Join(dir, exeName("agent"))
	writeFile(t, exe, "old")
	u := agentproto.Upgrade{Version: "2.0.0", ExeSHA256: shaOf([]byte("x")), ExeSize: 1,
		ExeURL: strings.Replace(srv.URL, "http://", "http://user:pa55@", 1) + "/missing?sig=s3cret"}
	_, _, err := Download(t.Context(), u, exe)
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "pa55") {
		t.Fatalf("Download: %v; want an error without the URL's secrets", err)
	}
}
