// Package agentdist holds the agent binaries the hub serves at /download/:
// those built into the hub binary by `make build` (embedded from bin/), or
// those in a directory named by HOSTGATE_AGENT_DIR. The hub reads them once
// at start, computes each file's SHA-256, and knows each binary's OS and
// architecture from its name, hostgate-agent-<os>-<arch>[.exe].
package agentdist

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// embedded is what `make build` put in bin/; on a fresh clone only the
// README placeholder, so the hub compiles without any agent.
//
//go:embed bin
var embedded embed.FS

// VersionFile is the manifest beside the binaries that names their
// version; `make build` writes it.
const VersionFile = "VERSION"

// Binary is one agent build the hub serves.
type Binary struct {
	OS, Arch, Name, SHA256 string
	Size                   int64
}

// URL is the binary's download address on a hub whose public base
// address is publicURL.
func (b Binary) URL(publicURL string) string {
	return strings.TrimRight(publicURL, "/") + "/download/" + b.Name
}

// Dist is a set of agent binaries, hashed once.
type Dist struct {
	fsys    fs.FS
	source  string
	version string
	bins    []Binary // by name
	mtimes  map[string]time.Time
}

// ErrChanged means a binary's file is no longer the one hashed at start
// (replaced or rewritten on disk); the hub must restart to serve it.
var ErrChanged = errors.New("agentdist: the file changed since the hub started; restart the hub to serve it")

// nameRE is hostgate-agent-<os>-<arch>, with .exe for windows only.
var nameRE = regexp.MustCompile(`^hostgate-agent-([a-z0-9]+)-([a-z0-9]+)(\.exe)?$`)

// ParseName returns the OS and architecture a binary's file name
// declares; ok is false for any other file (README.md, VERSION).
func ParseName(name string) (goos, goarch string, ok bool) {
	m := nameRE.FindStringSubmatch(name)
	if m == nil || (m[1] == "windows") != (m[3] == ".exe") {
		return "", "", false
	}
	return m[1], m[2], true
}

// FileName is the file name of the agent for goos/goarch.
func FileName(goos, goarch string) string {
	name := "hostgate-agent-" + goos + "-" + goarch
	if goos == "windows" {
		name += ".exe"
	}
	return name
}

// BuiltIn is the Source of the binaries built into the hub.
const BuiltIn = "built in"

// Open reads the agent directory dir, or with dir "" the binaries built
// into the hub.
func Open(dir string) (*Dist, error) {
	if dir == "" {
		sub, err := fs.Sub(embedded, "bin")
		if err != nil {
			return nil, err
		}
		return New(sub, BuiltIn)
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	return New(os.DirFS(dir), dir)
}

// New reads the binaries at the top of fsys, hashing each; source names
// where they come from, for logs.
func New(fsys fs.FS, source string) (*Dist, error) {
	d := &Dist{fsys: fsys, source: source, mtimes: map[string]time.Time{}}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		goos, goarch, ok := ParseName(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		b, mtime, err := hash(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		b.OS, b.Arch = goos, goarch
		d.bins = append(d.bins, b)
		d.mtimes[b.Name] = mtime
	}
	slices.SortFunc(d.bins, func(a, b Binary) int { return cmp.Compare(a.Name, b.Name) })
	if v, err := fs.ReadFile(fsys, VersionFile); err == nil {
		d.version = strings.TrimSpace(string(v))
	}
	return d, nil
}

func hash(fsys fs.FS, name string) (Binary, time.Time, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return Binary{}, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Binary{}, time.Time{}, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Binary{}, time.Time{}, fmt.Errorf("agentdist: read %s: %w", name, err)
	}
	return Binary{Name: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, fi.ModTime(), nil
}

// Source says where the binaries come from: BuiltIn or the directory.
func (d *Dist) Source() string { return d.source }

// Version is the binaries' version from the VERSION manifest; "" when
// there is none.
func (d *Dist) Version() string { return d.version }

// List returns every binary, by name.
func (d *Dist) List() []Binary { return slices.Clone(d.bins) }

// Binary returns the binary for goos/goarch.
func (d *Dist) Binary(goos, goarch string) (Binary, bool) {
	return d.Lookup(FileName(goos, goarch))
}

// Lookup returns the binary of this file name.
func (d *Dist) Lookup(name string) (Binary, bool) {
	i := slices.IndexFunc(d.bins, func(b Binary) bool { return b.Name == name })
	if i < 0 {
		return Binary{}, false
	}
	return d.bins[i], true
}

// File is an open binary.
type File interface {
	io.ReadSeeker
	io.Closer
}

// Open opens the named binary for reading; fs.ErrNotExist for a name
// that is not one of the binaries, ErrChanged when its file is not the one
// hashed at start.
func (d *Dist) Open(name string) (File, Binary, error) {
	b, ok := d.Lookup(name)
	if !ok {
		return nil, Binary{}, fs.ErrNotExist
	}
	f, err := d.fsys.Open(name)
	if err != nil {
		return nil, Binary{}, err
	}
	fi, err := f.Stat()
	rs, seeks := f.(File)
	if err != nil || !seeks || fi.Size() != b.Size || !fi.ModTime().Equal(d.mtimes[name]) {
		f.Close()
		return nil, Binary{}, cmp.Or(err, ErrChanged)
	}
	return rs, b, nil
}

// ReadFile returns the named binary's bytes, checked against its SHA-256.
func (d *Dist) ReadFile(name string) ([]byte, error) {
	f, b, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != b.SHA256 {
		return nil, ErrChanged
	}
	return data, nil
}

// SHA256SUMS is the list of binaries in sha256sum's format, so that
// `sha256sum -c SHA256SUMS` checks downloaded files.
func (d *Dist) SHA256SUMS() []byte {
	var buf bytes.Buffer
	for _, b := range d.bins {
		fmt.Fprintf(&buf, "%s  %s\n", b.SHA256, b.Name)
	}
	return buf.Bytes()
}
