package l1

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Unix(1_800_000_000, 0)

func openNonces(t *testing.T, path string, limit int) *FileNonces {
	t.Helper()
	f, err := OpenFileNonces(path, limit)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustAdd(t *testing.T, s NonceStore, scope, nonce string, now, until time.Time, want bool) {
	t.Helper()
	got, err := s.AddNonce(context.Background(), scope, nonce, now, until)
	if err != nil {
		t.Fatalf("AddNonce(%s): %v", nonce, err)
	}
	if got != want {
		t.Fatalf("AddNonce(%s) = %v, want %v", nonce, got, want)
	}
}

func TestFileNoncesAddDupExpiryReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nonces")
	f := openNonces(t, path, 10)
	until := t0.Add(301 * time.Second)
	mustAdd(t, f, "agent:7", "aaaaaaaaaaaaaaaa", t0, until, true)
	mustAdd(t, f, "agent:7", "aaaaaaaaaaaaaaaa", t0.Add(time.Second), until, false)
	mustAdd(t, f, "agent:8", "aaaaaaaaaaaaaaaa", t0, until, true) // scopes are apart
	if fi, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}

	g := openNonces(t, path, 10) // a restart
	mustAdd(t, g, "agent:7", "aaaaaaaaaaaaaaaa", t0.Add(299*time.Second), until, false)
	mustAdd(t, g, "agent:8", "aaaaaaaaaaaaaaaa", t0.Add(300*time.Second), until, false)
	// At the expiry the nonce may be taken again (Decode refuses its ts by then).
	mustAdd(t, g, "agent:7", "aaaaaaaaaaaaaaaa", until, until.Add(time.Minute), true)
	h := openNonces(t, path, 10)
	mustAdd(t, h, "agent:7", "aaaaaaaaaaaaaaaa", until.Add(59*time.Second), until.Add(time.Minute), false)
}

func TestFileNoncesLimitRefusesRatherThanForgets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nonces")
	f := openNonces(t, path, 2)
	until := t0.Add(time.Minute)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa1", t0, until, true)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa2", t0, until, true)
	if _, err := f.AddNonce(context.Background(), "s", "aaaaaaaaaaaaaaa3", t0, until); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("third nonce: %v, want ErrNoncesFull", err)
	}
	g := openNonces(t, path, 2)
	if _, err := g.AddNonce(context.Background(), "s", "aaaaaaaaaaaaaaa3", t0, until); !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("third nonce after reopen: %v, want ErrNoncesFull", err)
	}
	mustAdd(t, g, "s", "aaaaaaaaaaaaaaa3", until, until.Add(time.Minute), true) // the others expired
}

func TestFileNoncesTornAndMalformedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nonces")
	exp := t0.Add(time.Minute).Unix()
	content := fmt.Sprintf("%d s aaaaaaaaaaaaaaa1\ngarbage\n%d s bad!nonce!!!!!!!!\n%d s aaaaaaaaaaaaaaa2\n%d s aaaaaaa", exp, exp, exp, exp)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f := openNonces(t, path, 10)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa1", t0, t0.Add(time.Minute), false)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa2", t0, t0.Add(time.Minute), false)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa3", t0, t0.Add(time.Minute), true)
	// The torn tail was rewritten away before the append: every line parses.
	b, _ := os.ReadFile(path)
	entries, bad := parseNonceFile(b)
	if bad != 0 || len(entries) != 3 {
		t.Fatalf("file after append: %d entries, %d bad:\n%s", len(entries), bad, b)
	}
	g := openNonces(t, path, 10)
	mustAdd(t, g, "s", "aaaaaaaaaaaaaaa3", t0, t0.Add(time.Minute), false)
}

func TestFileNoncesCompacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nonces")
	f := openNonces(t, path, 100_000)
	now := t0
	for i := range 3 * fileCompactMin {
		now = t0.Add(time.Duration(i) * time.Second)
		mustAdd(t, f, "s", fmt.Sprintf("nonce%011d", i), now, now.Add(10*time.Second), true)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Count(string(b), "\n")
	if lines > fileCompactMin+20 {
		t.Fatalf("file has %d lines for ~10 live nonces: not compacted", lines)
	}
	// The live ones survived the compaction.
	last := fmt.Sprintf("nonce%011d", 3*fileCompactMin-1)
	g := openNonces(t, path, 100_000)
	mustAdd(t, g, "s", last, now, now.Add(10*time.Second), false)
}

func TestFileNoncesConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nonces")
	f := openNonces(t, path, 100_000)
	var added atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				// Every goroutine tries the same 50 nonces and 50 of its own.
				for _, n := range []string{fmt.Sprintf("shared%010d", i), fmt.Sprintf("own%02d%011d", g, i)} {
					ok, err := f.AddNonce(context.Background(), "s", n, t0, t0.Add(time.Minute))
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						added.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	if got := added.Load(); got != 50+8*50 {
		t.Fatalf("%d added, want %d", got, 50+8*50)
	}
	b, _ := os.ReadFile(path)
	if entries, bad := parseNonceFile(b); len(entries) != 450 || bad != 0 {
		t.Fatalf("file: %d entries, %d bad", len(entries), bad)
	}
}

func TestFileNoncesFailsClosed(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a file the process cannot write")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "nonces")
	f := openNonces(t, path, 10)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa1", t0, t0.Add(time.Minute), true)
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	for range 2 {
		ok, err := f.AddNonce(context.Background(), "s", "aaaaaaaaaaaaaaa2", t0, t0.Add(time.Minute))
		if ok || err == nil {
			t.Fatalf("read-only file: added=%v err=%v, want refused with an error", ok, err)
		}
	}
	// The refused nonce was not remembered: once writable it is taken.
	os.Chmod(dir, 0o700)
	os.Chmod(path, 0o600)
	mustAdd(t, f, "s", "aaaaaaaaaaaaaaa2", t0, t0.Add(time.Minute), true)
	mustAdd(t, openNonces(t, path, 10), "s", "aaaaaaaaaaaaaaa1", t0, t0.Add(time.Minute), false)
}

func TestFileNoncesRefusesUnwritableFields(t *testing.T) {
	f := openNonces(t, filepath.Join(t.TempDir(), "nonces"), 10)
	for _, c := range []struct{ scope, nonce string }{{"a b", "aaaaaaaaaaaaaaaa"}, {"", "aaaaaaaaaaaaaaaa"}, {"s", "aaaa aaaaaaaaaaaa"}, {"s\n1", "aaaaaaaaaaaaaaaa"}} {
		if ok, err := f.AddNonce(context.Background(), c.scope, c.nonce, t0, t0.Add(time.Minute)); ok || err == nil {
			t.Errorf("AddNonce(%q, %q) = %v, %v; want an error", c.scope, c.nonce, ok, err)
		}
	}
}

func FuzzParseNonceFile(f *testing.F) {
	f.Add([]byte("1800000060 agent:7 aaaaaaaaaaaaaaaa\n"))
	f.Add([]byte("1800000060 s aaaaaaaaaaaaaaa1\ngarbage\n-1 s x\n01 s aaaaaaaaaaaaaaaa\n1 s aaaa"))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, _ := parseNonceFile(b)
		// Every entry read back is written the same way again.
		for _, e := range entries {
			i := strings.LastIndexByte(e.key, ':')
			line := fmt.Sprintf("%d %s %s", e.until.Unix(), e.key[:i], e.key[i+1:])
			key, until, ok := parseNonceLine(line)
			if !ok || key != e.key || !until.Equal(e.until) {
				t.Fatalf("entry %q %v does not round-trip through %q", e.key, e.until, line)
			}
		}
	})
}
