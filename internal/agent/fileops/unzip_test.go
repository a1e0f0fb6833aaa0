package fileops

import (
	"archive/zip"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
)

func TestFileopsUnzipNewTarget(t *testing.T) {
	base := t.TempDir()
	zipPath := filepath.Join(base, "a.zip")
	makeZip(t, zipPath,
		zent{name: "top.txt", body: "top"},
		zent{name: "dir/"},
		zent{name: "dir/sub/deep.txt", body: "deep"},
		zent{name: `win\style.txt`, body: "backslash"},
		zent{name: "empty/"},
		zent{name: "dup.txt", body: "first"},
		zent{name: "./dup.txt", body: "second"},
		zent{name: "./"},
	)
	target := filepath.Join(base, "out", "target")
	res, err := call(t, "files.unzip", zipPath, target)
	if err != nil {
		t.Fatal(err)
	}
	want := agentproto.UnzipResult{Dir: target, Files: 4, Bytes: int64(len("top" + "deep" + "backslash" + "second"))}
	if res != want {
		t.Errorf("result = %+v, want %+v", res, want)
	}
	wantTree := []string{"dir", "dir/sub", "dir/sub/deep.txt", "dup.txt", "empty", "top.txt", "win", "win/style.txt"}
	if got := tree(t, target); !slices.Equal(got, wantTree) {
		t.Errorf("tree = %v, want %v", got, wantTree)
	}
	if got := readFile(t, filepath.Join(target, "dup.txt")); got != "second" {
		t.Errorf("dup.txt = %q, want the later entry", got)
	}
	if got := readFile(t, filepath.Join(target, "win", "style.txt")); got != "backslash" {
		t.Errorf("win/style.txt = %q", got)
	}
	fi, err := os.Stat(filepath.Join(target, "top.txt"))
	if err != nil || fi.ModTime().Year() != 2024 {
		t.Errorf("modification time not kept: %v %v", fi.ModTime(), err)
	}
}

func TestFileopsUnzipIntoExistingTarget(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "game")
	writeFile(t, filepath.Join(target, "keep.cfg"), "mine")
	writeFile(t, filepath.Join(target, "mods", "old.dll"), "old")
	zipPath := filepath.Join(base, "update.zip")
	makeZip(t, zipPath, zent{name: "mods/old.dll", body: "new"}, zent{name: "mods/added.dll", body: "added"})
	if _, err := call(t, "files.unzip", zipPath, target); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"keep.cfg": "mine", "mods/old.dll": "new", "mods/added.dll": "added"} {
		if got := readFile(t, filepath.Join(target, filepath.FromSlash(file))); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if got := tree(t, target); len(got) != 4 {
		t.Errorf("tree = %v: staging directory left behind?", got)
	}
}

func TestFileopsUnzipModes(t *testing.T) {
	base := t.TempDir()
	zipPath := filepath.Join(base, "m.zip")
	makeZip(t, zipPath,
		zent{name: "run.sh", body: "#!/bin/sh\n", mode: 0o755},
		zent{name: "readonly.txt", body: "r", mode: 0o444},
		zent{name: "setuid", body: "s", mode: 0o755 | fs.ModeSetuid},
	)
	target := filepath.Join(base, "t")
	if _, err := call(t, "files.unzip", zipPath, target); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{"run.sh": 0o755, "readonly.txt": 0o644, "setuid": 0o755}
	if runtime.GOOS == "windows" {
		// Windows keeps only the read-only attribute, which is dropped so
		// that a later update can replace the file.
		want = map[string]fs.FileMode{"run.sh": 0o666, "readonly.txt": 0o666, "setuid": 0o666}
	}
	for name, w := range want {
		fi, err := os.Stat(filepath.Join(target, name))
		if err != nil {
			t.Fatal(err)
		}
		// The umask may take bits away, never add them.
		if got := fi.Mode(); got&^w != 0 || got&0o700 != w&0o700 {
			t.Errorf("%s mode = %v, want %v (less the umask)", name, got, w)
		}
	}
}

// TestFileopsUnzipRefusesUnsafeEntries: an archive with one bad entry
// among good ones is refused whole; nothing is written inside the target
// or outside it.
func TestFileopsUnzipRefusesUnsafeEntries(t *testing.T) {
	tests := []struct {
		name string
		bad  zent
	}{
		{"parent", zent{name: "../../escape", body: "x"}},
		{"nested parent", zent{name: "a/../../escape", body: "x"}},
		{"absolute", zent{name: "/abs", body: "x"}},
		{"backslash parent", zent{name: `..\x`, body: "x"}},
		{"backslash absolute", zent{name: `\abs`, body: "x"}},
		{"drive letter", zent{name: `C:\escape`, body: "x"}},
		{"drive relative", zent{name: "C:escape", body: "x"}},
		{"stream", zent{name: "f.txt:hidden", body: "x"}},
		{"device", zent{name: "logs/CON.txt", body: "x"}},
		{"symlink", zent{name: "link", body: "../../etc", mode: fs.ModeSymlink | 0o777}},
		{"named pipe", zent{name: "pipe", mode: fs.ModeNamedPipe | 0o644}},
		{"target itself", zent{name: ".", body: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outer := t.TempDir()
			base := filepath.Join(outer, "a", "b")
			zipPath := filepath.Join(outer, "bad.zip")
			makeZip(t, zipPath, zent{name: "ok.txt", body: "ok"}, zent{name: "d/ok2.txt", body: "ok"}, tt.bad, zent{name: "z.txt", body: "z"})
			for _, existing := range []bool{false, true} {
				target := filepath.Join(base, "target")
				if existing {
					writeFile(t, filepath.Join(target, "keep.txt"), "keep")
				}
				before := tree(t, outer)
				_, err := call(t, "files.unzip", zipPath, target)
				wantCode(t, err, CodeUnsafeZipEntry)
				if after := tree(t, outer); !slices.Equal(after, before) {
					t.Fatalf("existing target %v: files changed: %v, was %v", existing, after, before)
				}
			}
			if _, err := os.Lstat(filepath.Join(outer, "escape")); err == nil {
				t.Fatal("an entry escaped")
			}
		})
	}
	battery.Report(t, "T52", "%d unsafe archive entries (../../escape, a/../../escape, absolute, drive, stream, device, symlink, pipe, the target) → %s, nothing written, into new and existing targets", len(tests), CodeUnsafeZipEntry)
}

// TestFileopsUnzipRefusesBeforeWriting covers the other refusals made
// while planning: nothing is written.
func TestFileopsUnzipRefusesBeforeWriting(t *testing.T) {
	tests := []struct {
		name     string
		ents     []zent
		prepare  func(t *testing.T, target string)
		wantCode string
	}{
		{"encrypted", []zent{{name: "ok", body: "x"}, {name: "e", body: "x", raw: &zip.FileHeader{Method: zip.Store, Flags: 0x1}}}, nil, agentproto.CodeFailed},
		{"unknown method", []zent{{name: "ok", body: "x"}, {name: "m", body: "x", raw: &zip.FileHeader{Method: 99}}}, nil, agentproto.CodeFailed},
		{"file and directory of one name", []zent{{name: "x", body: "1"}, {name: "x/y", body: "2"}}, nil, agentproto.CodeFailed},
		{"directory in the way of a file", []zent{{name: "ok", body: "x"}, {name: "cfg", body: "x"}}, func(t *testing.T, target string) {
			if err := os.MkdirAll(filepath.Join(target, "cfg"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, CodeIsADirectory},
		{"file in the way of a directory", []zent{{name: "ok", body: "x"}, {name: "sub/f", body: "x"}}, func(t *testing.T, target string) {
			writeFile(t, filepath.Join(target, "sub"), "a file")
		}, CodeNotADirectory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outer := t.TempDir()
			zipPath := filepath.Join(outer, "x.zip")
			makeZip(t, zipPath, tt.ents...)
			target := filepath.Join(outer, "target")
			if tt.prepare != nil {
				tt.prepare(t, target)
			}
			before := tree(t, outer)
			_, err := call(t, "files.unzip", zipPath, target)
			wantCode(t, err, tt.wantCode)
			if after := tree(t, outer); !slices.Equal(after, before) {
				t.Fatalf("files changed: %v, was %v", after, before)
			}
		})
	}
}

func TestFileopsUnzipLimits(t *testing.T) {
	outer := t.TempDir()
	zipPath := filepath.Join(outer, "x.zip")
	makeZip(t, zipPath, zent{name: "a", body: strings.Repeat("a", 600)}, zent{name: "b", body: strings.Repeat("b", 600)}, zent{name: "c/"})
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	target := filepath.Join(outer, "target")

	_, err = planZip(&zr.Reader, unzipLimits{bytes: 1 << 20, entries: 2})
	wantCode(t, err, CodeFileTooLarge)
	_, err = planZip(&zr.Reader, unzipLimits{bytes: 1000, entries: 10})
	wantCode(t, err, CodeFileTooLarge)

	// Headers within the limit, the bytes written over it: the count of
	// bytes actually copied decides, and the target is left as it was.
	plan, err := planZip(&zr.Reader, unzipLimits{bytes: 1 << 20, entries: 10})
	if err != nil {
		t.Fatal(err)
	}
	plan.maxBytes = 1000
	_, err = extract(context.Background(), plan, target)
	wantCode(t, err, CodeFileTooLarge)
	if got := tree(t, outer); !slices.Equal(got, []string{"x.zip"}) {
		t.Fatalf("after the refusal: %v", got)
	}

	plan.maxBytes = 1200
	res, err := extract(context.Background(), plan, target)
	if err != nil {
		t.Fatal(err)
	}
	if ur := res.(agentproto.UnzipResult); ur.Bytes != 1200 || ur.Files != 2 {
		t.Errorf("result = %+v", ur)
	}
}

func TestFileopsUnzipBrokenArchive(t *testing.T) {
	outer := t.TempDir()
	target := filepath.Join(outer, "target")
	crc := filepath.Join(outer, "crc.zip")
	makeZip(t, crc, zent{name: "ok.txt", body: "fine"}, zent{name: "bad.txt", body: "corrupt", raw: storedHeader("corrupt", 12345)})
	notZip := filepath.Join(outer, "not.zip")
	writeFile(t, notZip, "this is not an archive")
	tests := []struct{ name, zip, code string }{
		{"bad checksum", crc, agentproto.CodeFailed},
		{"not a zip", notZip, agentproto.CodeFailed},
		{"missing", filepath.Join(outer, "missing.zip"), CodeNotFound},
		{"a directory", outer, CodeIsADirectory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, "files.unzip", tt.zip, target)
			wantCode(t, err, tt.code)
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("target created: %v", tree(t, target))
			}
		})
	}
}

func TestFileopsUnzipCancelled(t *testing.T) {
	outer := t.TempDir()
	zipPath := filepath.Join(outer, "x.zip")
	makeZip(t, zipPath, zent{name: "a", body: "a"})
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	plan, err := planZip(&zr.Reader, defaultUnzipLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = extract(ctx, plan, filepath.Join(outer, "t"))
	wantCode(t, err, agentproto.CodeFailed)
	if got := tree(t, outer); !slices.Equal(got, []string{"x.zip"}) {
		t.Fatalf("after cancelling: %v", got)
	}
}

// TestFileopsUnzipSymlinkInTarget: a link already in the target that
// points outside cannot carry an entry out of it.
func TestFileopsUnzipSymlinkInTarget(t *testing.T) {
	skipSymlinks(t)
	outer := t.TempDir()
	outside := filepath.Join(outer, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outer, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(target, "link")); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(outer, "x.zip")
	makeZip(t, zipPath, zent{name: "link/pwned", body: "x"})
	_, err := call(t, "files.unzip", zipPath, target)
	wantCode(t, err, agentproto.CodeFailed)
	if got := tree(t, outside); len(got) != 0 {
		t.Fatalf("written outside: %v", got)
	}
	if got := tree(t, target); !slices.Equal(got, []string{"link"}) {
		t.Fatalf("target holds %v", got)
	}
}
