package upgrade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"hostgate/internal/agentproto"
)

// DownloadTimeout bounds one download of a new executable, from the
// request to the last byte: at the MaxExeSize limit that is still about
// 600 KB/s, and a stuck transfer does not hold the upgrade forever.
const DownloadTimeout = 15 * time.Minute

// httpClient fetches executables. Its requests are bounded by their
// context; proxies come from the environment and redirects (to a CDN or
// object store) are followed.
var httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// stagedInfix marks a downloaded executable beside the running one:
// "<exe>.upgrade-<random>[.exe]". Cleanup removes what a crash left.
const stagedInfix = ".upgrade-"

// Digest is what a download measured: its size (at most one byte past the
// announced size) and SHA-256 in lowercase hex.
type Digest struct {
	Size   int64
	SHA256 string
}

// Download fetches u.ExeURL into a new file in exe's directory (so that
// Swap is a rename) and returns its path and digest; Verify then checks
// the digest against u. The file is executable; on Windows its name ends
// in .exe so that it can run. On any error the file is removed and nothing
// else has changed. u must have passed Check.
func Download(ctx context.Context, u agentproto.Upgrade, exe string) (string, Digest, error) {
	ctx, cancel := context.WithTimeout(ctx, DownloadTimeout)
	defer cancel()
	f, err := os.CreateTemp(filepath.Dir(exe), filepath.Base(exe)+stagedInfix+"*"+exeSuffix)
	if err != nil {
		return "", Digest{}, fmt.Errorf("download: create a file beside the executable: %w", err)
	}
	staged := f.Name()
	d, err := fetch(ctx, u, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("download: %w", cerr)
	}
	if err == nil {
		if cerr := os.Chmod(staged, 0o755); cerr != nil {
			err = fmt.Errorf("download: make it executable: %w", cerr)
		}
	}
	if err != nil {
		_ = os.Remove(staged)
		return "", Digest{}, err
	}
	return staged, d, nil
}

// Verify checks a download's digest against the size and SHA-256 the hub
// sent.
func Verify(u agentproto.Upgrade, d Digest) error {
	switch {
	case d.Size > u.ExeSize:
		return fmt.Errorf("size mismatch: got more than %d bytes", u.ExeSize)
	case d.Size != u.ExeSize:
		return fmt.Errorf("size mismatch: got %d bytes, want %d", d.Size, u.ExeSize)
	case d.SHA256 != u.ExeSHA256:
		return fmt.Errorf("sha256 mismatch: got %s, want %s", d.SHA256, u.ExeSHA256)
	}
	return nil
}

// fetch streams the body into w through SHA-256, reading at most one byte
// more than announced.
func fetch(ctx context.Context, u agentproto.Upgrade, w *os.File) (Digest, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.ExeURL, nil)
	if err != nil {
		return Digest{}, fmt.Errorf("download: %s: %w", redactURL(u.ExeURL), err)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return Digest{}, netError(ctx, u.ExeURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Digest{}, fmt.Errorf("download: HTTP %s from %s", resp.Status, redactURL(u.ExeURL))
	}
	if resp.ContentLength >= 0 && resp.ContentLength != u.ExeSize {
		return Digest{}, fmt.Errorf("size mismatch: the server announces %d bytes, want %d", resp.ContentLength, u.ExeSize)
	}
	h := sha256.New()
	body := &bodyReader{ctx: ctx, url: u.ExeURL, r: io.LimitReader(resp.Body, u.ExeSize+1)}
	n, err := io.Copy(io.MultiWriter(w, h), body)
	var be *bodyError
	switch {
	case errors.As(err, &be):
		return Digest{}, be.err
	case err != nil:
		return Digest{}, fmt.Errorf("download: write %s: %w", w.Name(), err)
	}
	if err := w.Sync(); err != nil {
		return Digest{}, fmt.Errorf("download: %w", err)
	}
	return Digest{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// bodyReader tells a failure reading the body (the network) from one
// writing the file (the disk) by wrapping it in a bodyError.
type bodyReader struct {
	ctx context.Context
	url string
	r   io.Reader
}

type bodyError struct{ err error }

func (e *bodyError) Error() string { return e.err.Error() }

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = &bodyError{netError(b.ctx, b.url, err)}
	}
	return n, err
}

// netError describes a network failure without the URL's query or user
// information, naming a timeout as such.
func netError(ctx context.Context, rawURL string, err error) error {
	shown := redactURL(rawURL)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("download: %s: timed out", shown)
	case ctx.Err() != nil:
		return fmt.Errorf("download: %s: cancelled (the agent is stopping)", shown)
	}
	// url.Error repeats the full URL, query included.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("download: %s: %w", shown, err)
}
