package fileops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"hostgate/internal/agentproto"
)

// httpClient fetches DOWN_FILE URLs. It has no overall timeout of its own:
// each download's context carries timeout_s. Proxies come from the
// environment, redirects are followed (at most ten, Go's default).
var httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// download is DOWN_FILE: fetch data.url into path, atomically.
func download(ctx context.Context, a agentproto.ControlArgs, path string) (any, error) {
	var d agentproto.DownloadData
	if err := agentproto.DecodeData(a.Data, &d); err != nil {
		return nil, err
	}
	d = withDownloadDefaults(d)
	target, old, err := writableTarget(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(d.TimeoutS)*time.Second)
	defer cancel()
	undo, err := mkdirParents(filepath.Dir(target))
	if err != nil {
		return nil, osErr(err, path)
	}
	res, err := fetch(ctx, d, target, old)
	if err != nil {
		undo()
		return nil, osErr(err, path)
	}
	res.Path = path
	return res, nil
}

// withDownloadDefaults fills the limits the caller left out.
func withDownloadDefaults(d agentproto.DownloadData) agentproto.DownloadData {
	if d.MaxBytes == 0 {
		d.MaxBytes = agentproto.DefaultDownloadMaxBytes
	}
	if d.TimeoutS == 0 {
		d.TimeoutS = agentproto.DefaultDownloadTimeoutS
	}
	d.SHA256 = strings.ToLower(d.SHA256)
	return d
}

// fetch GETs d.URL and streams the body into a temporary file beside
// target, hashing it on the way; the file replaces target only when the
// body was complete, within d.MaxBytes and (if asked) of the right hash.
func fetch(ctx context.Context, d agentproto.DownloadData, target string, old fs.FileInfo) (agentproto.DownloadResult, error) {
	var res agentproto.DownloadResult
	shown := redactURL(d.URL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL, nil)
	if err != nil {
		return res, agentproto.ArgsError("data.url: %v", err)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return res, netFail(ctx, d, shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return res, fail(CodeDownloadFailed, "GET %s: HTTP %s", shown, resp.Status)
	}
	if resp.ContentLength > d.MaxBytes {
		return res, tooLargeToDownload(shown, d.MaxBytes)
	}
	h := sha256.New()
	body := &bodyReader{ctx: ctx, d: d, shown: shown, r: io.LimitReader(resp.Body, d.MaxBytes+1)}
	res.Bytes, err = writeAtomic(target, old, func(w io.Writer) error {
		return copyChecked(w, h, body, d, shown)
	})
	res.SHA256 = hex.EncodeToString(h.Sum(nil))
	return res, err
}

// copyChecked copies the body into w and h, then applies the size limit
// and the checksum; an error makes writeAtomic drop the temporary file.
func copyChecked(w io.Writer, h hash.Hash, body io.Reader, d agentproto.DownloadData, shown string) error {
	n, err := io.Copy(io.MultiWriter(w, h), body)
	if err != nil {
		return err
	}
	if n > d.MaxBytes {
		return tooLargeToDownload(shown, d.MaxBytes)
	}
	if got := hex.EncodeToString(h.Sum(nil)); d.SHA256 != "" && got != d.SHA256 {
		return fail(CodeChecksumMismatch, "GET %s: the body's SHA-256 is %s, not %s; nothing was written", shown, got, d.SHA256)
	}
	return nil
}

func tooLargeToDownload(shown string, max int64) error {
	return fail(CodeFileTooLarge, "GET %s: the body is larger than max_bytes (%d); nothing was written", shown, max)
}

// bodyReader reports a failure while reading the body as download_failed
// (not as a file error of the destination).
type bodyReader struct {
	ctx   context.Context
	d     agentproto.DownloadData
	shown string
	r     io.Reader
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = netFail(b.ctx, b.d, b.shown, err)
	}
	return n, err
}

// netFail describes a network failure, naming a timeout as such.
func netFail(ctx context.Context, d agentproto.DownloadData, shown string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fail(CodeDownloadFailed, "GET %s: timed out (timeout_s %d or the command's deadline)", shown, d.TimeoutS)
	}
	if ctx.Err() != nil {
		return fail(CodeDownloadFailed, "GET %s: cancelled", shown)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fail(CodeDownloadFailed, "GET %s: %v", shown, err)
}

// redactURL is u for messages: without user information or query, which
// may carry credentials.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	return p.String()
}
