package l1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fileCompactMin is the fewest dead lines a FileNonces file carries before
// it is rewritten: below it a rewrite costs more than it saves.
const fileCompactMin = 1024

// FileNonces is a NonceStore for a single receiver, such as the agent's
// local listener, that keeps its nonces in a file, so that a replay sent
// after the receiver restarts is still refused. The file holds one line
// "<expiry-unix> <scope> <nonce>" per nonce, appended and synced before
// AddNonce reports it added; it is rewritten without the expired lines
// when they dominate. Like MemoryNonces it holds at most a fixed number of
// live nonces and refuses (ErrNoncesFull) rather than forgets past it.
// An I/O error refuses the nonce: AddNonce returns it, never added.
type FileNonces struct {
	mu    sync.Mutex
	path  string
	mem   *MemoryNonces
	lines int  // lines in the file
	dirty bool // the file may end in a torn line: rewrite before appending
}

// OpenFileNonces loads the store at path (created, mode 0600, when it does
// not exist) holding at most limit live nonces. Malformed lines, such as
// a last line torn by a crash, are dropped.
func OpenFileNonces(path string, limit int) (*FileNonces, error) {
	f := &FileNonces{path: path, mem: NewMemoryNonces(limit)}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("l1: nonce file: %w", err)
	}
	entries, bad := parseNonceFile(b)
	for _, e := range entries {
		f.mem.load(e.key, e.until)
	}
	f.lines = len(entries)
	if bad > 0 || errors.Is(err, fs.ErrNotExist) {
		f.dirty = true
	}
	return f, nil
}

// parseNonceFile returns the well-formed lines of a nonce file, in order,
// and how many lines it dropped (an unterminated last line counts).
func parseNonceFile(b []byte) (entries []nonceEntry, bad int) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return entries, bad + 1 // torn last line
		}
		line := string(b[:i])
		b = b[i+1:]
		key, until, ok := parseNonceLine(line)
		if !ok {
			bad++
			continue
		}
		entries = append(entries, nonceEntry{key, until})
	}
	return entries, bad
}

func parseNonceLine(line string) (key string, until time.Time, ok bool) {
	exp, rest, ok := strings.Cut(line, " ")
	if !ok {
		return "", time.Time{}, false
	}
	scope, nonce, ok := strings.Cut(rest, " ")
	if !ok || validScope(scope) != nil || validateNonce(nonce) != nil {
		return "", time.Time{}, false
	}
	sec, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || sec < 0 || strconv.FormatInt(sec, 10) != exp {
		return "", time.Time{}, false
	}
	return scope + ":" + nonce, time.Unix(sec, 0), true
}

// validScope: a scope is written as one field of a line.
func validScope(scope string) error {
	if scope == "" || strings.ContainsAny(scope, " \t\r\n") {
		return fmt.Errorf("l1: nonce scope %q is not one word", scope)
	}
	return nil
}

// AddNonce implements NonceStore. It returns added only once the nonce is
// in the file and synced.
func (f *FileNonces) AddNonce(ctx context.Context, scope, nonce string, now, until time.Time) (bool, error) {
	if err := validScope(scope); err != nil {
		return false, err
	}
	if err := validateNonce(nonce); err != nil {
		return false, err
	}
	if until.Unix() < 0 || !until.Equal(time.Unix(until.Unix(), 0)) {
		return false, fmt.Errorf("l1: nonce expiry %v is not a whole second", until)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key := scope + ":" + nonce
	if !f.mem.free(key, now) {
		return false, nil
	}
	live := f.mem.live(now)
	if live >= f.mem.limit {
		return false, ErrNoncesFull
	}
	if f.dirty || f.lines-live >= max(live, fileCompactMin) {
		if err := f.rewrite(now); err != nil {
			return false, err
		}
	}
	if err := f.append(strconv.FormatInt(until.Unix(), 10) + " " + scope + " " + nonce + "\n"); err != nil {
		f.dirty = true // a partial line may be in the file
		return false, err
	}
	f.lines++
	return f.mem.AddNonce(ctx, scope, nonce, now, until)
}

func (f *FileNonces) append(line string) error {
	fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("l1: nonce file: %w", err)
	}
	_, err = io.WriteString(fh, line)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("l1: nonce file: %w", err)
	}
	return nil
}

// rewrite replaces the file with the live nonces: a synced temporary file
// renamed over it, so a crash leaves the old file or the new one.
func (f *FileNonces) rewrite(now time.Time) error {
	dir := filepath.Dir(f.path)
	tmp, err := os.CreateTemp(dir, filepath.Base(f.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("l1: nonce file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	w := bufio.NewWriter(tmp)
	n := 0
	for _, e := range f.mem.entries(now) {
		i := strings.LastIndexByte(e.key, ':') // a nonce has no ':'; a scope may
		fmt.Fprintf(w, "%d %s %s\n", e.until.Unix(), e.key[:i], e.key[i+1:])
		n++
	}
	err = w.Flush()
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		return fmt.Errorf("l1: nonce file: %w", err)
	}
	// Make the rename itself durable where the system allows syncing a
	// directory (not on Windows, where the error is ignored).
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	f.lines, f.dirty = n, false
	return nil
}
