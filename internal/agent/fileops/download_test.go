package fileops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

const dlBody = "the downloaded file\n"

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// dlServer serves dlBody at /ok and the failure cases at other paths.
func dlServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(dlBody))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/error", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "5000")
		_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, _ *http.Request) {
		for range 50 {
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/truncated", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = w.Write([]byte("only part"))
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("start"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFileopsDownload(t *testing.T) {
	srv := dlServer(t)
	base := t.TempDir()
	tests := []struct {
		name, path string
		data       agentproto.DownloadData
	}{
		{"new file, parents created", filepath.Join(base, "a", "b", "f.txt"), agentproto.DownloadData{URL: srv.URL + "/ok"}},
		{"checksum given", filepath.Join(base, "c.txt"), agentproto.DownloadData{URL: srv.URL + "/ok", SHA256: strings.ToUpper(sha(dlBody))}},
		{"redirect followed", filepath.Join(base, "r.txt"), agentproto.DownloadData{URL: srv.URL + "/redirect"}},
		{"exactly max_bytes", filepath.Join(base, "m.txt"), agentproto.DownloadData{URL: srv.URL + "/ok", MaxBytes: int64(len(dlBody))}},
		{"replace", filepath.Join(base, "c.txt"), agentproto.DownloadData{URL: srv.URL + "/ok", TimeoutS: 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, "files.download", tt.path, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			want := agentproto.DownloadResult{Path: tt.path, Bytes: int64(len(dlBody)), SHA256: sha(dlBody)}
			if res != want {
				t.Errorf("result = %+v, want %+v", res, want)
			}
			if got := readFile(t, tt.path); got != dlBody {
				t.Errorf("content = %q", got)
			}
		})
	}
	assertNoTempFiles(t, base)
}

// TestFileopsDownloadFailures: every failure keeps the old file as it was
// and leaves no temporary file or created directory behind.
func TestFileopsDownloadFailures(t *testing.T) {
	srv := dlServer(t)
	tests := []struct {
		name     string
		data     agentproto.DownloadData
		ctx      time.Duration // 0: no deadline of its own
		wantCode string
		wantMsg  string
	}{
		{"404", agentproto.DownloadData{URL: srv.URL + "/missing"}, 0, CodeDownloadFailed, "404"},
		{"500", agentproto.DownloadData{URL: srv.URL + "/error"}, 0, CodeDownloadFailed, "500"},
		{"content-length over max_bytes", agentproto.DownloadData{URL: srv.URL + "/big", MaxBytes: 4999}, 0, CodeFileTooLarge, "4999"},
		{"streamed body over max_bytes", agentproto.DownloadData{URL: srv.URL + "/big-chunked", MaxBytes: 4999}, 0, CodeFileTooLarge, "4999"},
		{"checksum mismatch", agentproto.DownloadData{URL: srv.URL + "/ok", SHA256: sha("other")}, 0, CodeChecksumMismatch, sha(dlBody)},
		{"connection cut", agentproto.DownloadData{URL: srv.URL + "/truncated"}, 0, CodeDownloadFailed, "/truncated"},
		{"timeout through ctx", agentproto.DownloadData{URL: srv.URL + "/hang"}, 300 * time.Millisecond, CodeDownloadFailed, "timed out"},
		{"connection refused", agentproto.DownloadData{URL: "http://127.0.0.1:1/x"}, 0, CodeDownloadFailed, "127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, existing := range []bool{true, false} {
				base := t.TempDir()
				dest := filepath.Join(base, "dest.bin")
				if !existing {
					dest = filepath.Join(base, "new", "dir", "dest.bin")
				} else {
					writeFile(t, dest, "old content")
				}
				before := tree(t, base)
				ctx := context.Background()
				if tt.ctx > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.ctx)
					defer cancel()
				}
				start := time.Now()
				_, err := run(t, ctx, "files.download", dest, tt.data)
				wantCode(t, err, tt.wantCode)
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("message %q lacks %q", err, tt.wantMsg)
				}
				if d := time.Since(start); d > 8*time.Second {
					t.Errorf("took %v", d)
				}
				if after := tree(t, base); !slices.Equal(after, before) {
					t.Errorf("existing %v: left %v, was %v", existing, after, before)
				}
				if existing && readFile(t, dest) != "old content" {
					t.Error("the old file was changed")
				}
			}
		})
	}
}

func TestFileopsDownloadToDirectory(t *testing.T) {
	srv := dlServer(t)
	base := t.TempDir()
	_, err := call(t, "files.download", base, agentproto.DownloadData{URL: srv.URL + "/ok"})
	wantCode(t, err, CodeIsADirectory)
}

func TestFileopsDownloadMessagesHideCredentials(t *testing.T) {
	srv := dlServer(t)
	u := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1) + "/missing?token=s3cret"
	_, err := call(t, "files.download", filepath.Join(t.TempDir(), "f"), agentproto.DownloadData{URL: u})
	wantCode(t, err, CodeDownloadFailed)
	for _, secret := range []string{"hunter2", "s3cret"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("message %q shows %s", err, secret)
		}
	}
}

func TestFileopsDownloadDefaults(t *testing.T) {
	d := withDownloadDefaults(agentproto.DownloadData{URL: "http://h/x", SHA256: "AB"})
	if d.MaxBytes != agentproto.DefaultDownloadMaxBytes || d.TimeoutS != agentproto.DefaultDownloadTimeoutS || d.SHA256 != "ab" {
		t.Errorf("defaults = %+v", d)
	}
	d = withDownloadDefaults(agentproto.DownloadData{MaxBytes: 7, TimeoutS: 9})
	if d.MaxBytes != 7 || d.TimeoutS != 9 {
		t.Errorf("explicit limits changed: %+v", d)
	}
}

func TestFileopsDownloadTimeoutS(t *testing.T) {
	srv := dlServer(t)
	start := time.Now()
	_, err := call(t, "files.download", filepath.Join(t.TempDir(), "f"), agentproto.DownloadData{URL: srv.URL + "/hang", TimeoutS: 1})
	wantCode(t, err, CodeDownloadFailed)
	if d := time.Since(start); d < 900*time.Millisecond || d > 8*time.Second {
		t.Errorf("timeout_s 1 ended after %v", d)
	}
}
