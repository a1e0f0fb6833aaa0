package fileops

import (
	"archive/zip"
	"io/fs"
	"path"
	"runtime"
	"strings"

	"hostgate/internal/agentproto"
)

// Unpacking limits of ZIP_2_DIR.
const (
	// MaxUnzipBytes bounds the bytes an archive unpacks to, counted as
	// they are written (the sizes in the archive's headers are checked
	// first but not trusted).
	MaxUnzipBytes int64 = 4 << 30
	// MaxUnzipEntries bounds the entries of an archive.
	MaxUnzipEntries = 100_000
)

// unzipLimits bound one archive; tests lower them.
type unzipLimits struct {
	bytes   int64
	entries int
}

// defaultUnzipLimits are the limits of ZIP_2_DIR.
var defaultUnzipLimits = unzipLimits{bytes: MaxUnzipBytes, entries: MaxUnzipEntries}

// zipPlan is what an archive will write, worked out and checked before
// anything is written.
type zipPlan struct {
	// maxBytes bounds the bytes written.
	maxBytes int64
	// dirs are the directory entries, in archive order.
	dirs []planDir
	// files are the file entries, one per path: a later entry of the same
	// name replaces an earlier one, as unpacking in order would.
	files []planFile
}

type planDir struct {
	rel  string // slash-separated, relative to the target
	perm fs.FileMode
}

type planFile struct {
	rel string
	f   *zip.File
}

// planZip checks every entry of r (names, types, methods, counts and
// declared sizes) and returns the plan, or the first reason to refuse the
// whole archive.
func planZip(r *zip.Reader, lim unzipLimits) (*zipPlan, error) {
	if len(r.File) > lim.entries {
		return nil, fail(CodeFileTooLarge, "the archive has %d entries, more than the limit of %d; nothing was unpacked", len(r.File), lim.entries)
	}
	p := &zipPlan{maxBytes: lim.bytes}
	index := map[string]int{}
	for _, f := range r.File {
		if err := p.add(f, index); err != nil {
			return nil, err
		}
	}
	if err := p.checkShape(); err != nil {
		return nil, err
	}
	return p, nil
}

// add checks one entry and records it.
func (p *zipPlan) add(f *zip.File, index map[string]int) error {
	rel, err := entryPath(f.Name)
	if err != nil {
		return fail(CodeUnsafeZipEntry, "entry %q: %v; nothing was unpacked", f.Name, err)
	}
	mode := f.Mode()
	isDir := mode.IsDir() || strings.HasSuffix(f.Name, `\`)
	switch {
	case mode&fs.ModeSymlink != 0:
		return fail(CodeUnsafeZipEntry, "entry %q is a symbolic link; links are not unpacked, nothing was unpacked", f.Name)
	case !isDir && !mode.IsRegular():
		return fail(CodeUnsafeZipEntry, "entry %q is a special file (%v); nothing was unpacked", f.Name, mode.Type())
	case isDir:
		if rel != "" {
			p.dirs = append(p.dirs, planDir{rel, dirPerm(mode)})
		}
		return nil
	case rel == "":
		return fail(CodeUnsafeZipEntry, "entry %q names the target directory itself; nothing was unpacked", f.Name)
	}
	if err := readableEntry(f); err != nil {
		return err
	}
	if i, dup := index[entryKey(rel)]; dup {
		p.files[i] = planFile{rel, f}
		return nil
	}
	index[entryKey(rel)] = len(p.files)
	p.files = append(p.files, planFile{rel, f})
	return nil
}

// readableEntry refuses entries archive/zip cannot decode, before any
// other entry is written.
func readableEntry(f *zip.File) error {
	if f.Flags&0x1 != 0 {
		return fail(agentproto.CodeFailed, "entry %q is encrypted; encrypted archives are not supported", f.Name)
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return fail(agentproto.CodeFailed, "entry %q uses compression method %d; only stored and deflated entries are supported", f.Name, f.Method)
	}
	return nil
}

// checkShape refuses an archive whose declared sizes pass the limit or in
// which one name is both a file and a directory.
func (p *zipPlan) checkShape() error {
	var declared uint64
	for _, pf := range p.files {
		declared += pf.f.UncompressedSize64
		if declared > uint64(p.maxBytes) {
			return tooLargeToUnpack(p.maxBytes)
		}
	}
	dirs := map[string]bool{}
	for _, d := range p.allDirs() {
		dirs[entryKey(d)] = true
	}
	for _, pf := range p.files {
		if dirs[entryKey(pf.rel)] {
			return fail(agentproto.CodeFailed, "the archive has both a file and a directory named %q; nothing was unpacked", pf.rel)
		}
	}
	return nil
}

// allDirs lists every directory the archive needs: its directory entries
// and the parents of every entry, parents first.
func (p *zipPlan) allDirs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(dirs ...string) {
		for _, d := range dirs {
			if !seen[entryKey(d)] {
				seen[entryKey(d)] = true
				out = append(out, d)
			}
		}
	}
	for _, d := range p.dirs {
		add(parents(d.rel)...)
		add(d.rel)
	}
	for _, f := range p.files {
		add(parents(f.rel)...)
	}
	return out
}

// parents lists the directories above rel, outermost first: "a/b/c" gives
// "a", "a/b".
func parents(rel string) []string {
	var out []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		out = append(out, d)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// entryKey is how the host's filesystem compares names: Windows folds
// case, so "A.txt" and "a.txt" are one file there.
func entryKey(rel string) string {
	if runtime.GOOS == "windows" {
		return strings.ToLower(rel)
	}
	return rel
}

// dirPerm is the mode of a directory entry: its own permission bits, with
// the owner always allowed in, or dirMode when the archive has none (made
// on Windows). The umask applies.
func dirPerm(m fs.FileMode) fs.FileMode {
	if m.Perm() == 0 {
		return dirMode
	}
	return m.Perm() | 0o700
}

// filePerm is the mode of a file entry: its permission bits (execute bits
// kept, set-id bits dropped), always readable and writable by the owner,
// or newFileMode when the archive has none. The umask applies.
func filePerm(m fs.FileMode) fs.FileMode {
	if m.Perm() == 0 {
		return newFileMode
	}
	return m.Perm() | 0o600
}

func tooLargeToUnpack(max int64) error {
	return fail(CodeFileTooLarge, "the archive unpacks to more than %d bytes, the limit; nothing was unpacked", max)
}
