package fileops

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"io/fs"
	"os"
	"testing"
	"time"
)

// zent is one entry of a test archive.
type zent struct {
	name string
	body string
	mode fs.FileMode // 0: a regular 0644 file, or a directory for names ending in "/"
	// raw writes the entry with this header unchanged (method, sizes,
	// CRC, flags) and body as the stored bytes.
	raw *zip.FileHeader
}

// makeZip writes an archive of ents to path.
func makeZip(t *testing.T, path string, ents ...zent) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		if e.raw != nil {
			e.raw.Name = e.name
			w, err := zw.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
		switch {
		case e.mode != 0:
			h.SetMode(e.mode)
		case len(e.name) > 0 && e.name[len(e.name)-1] == '/':
			h.SetMode(fs.ModeDir | 0o755)
		default:
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// storedHeader is a raw header for body stored as is, with a correct CRC
// unless crc is given.
func storedHeader(body string, crc ...uint32) *zip.FileHeader {
	h := &zip.FileHeader{
		Method:             zip.Store,
		CRC32:              crc32.ChecksumIEEE([]byte(body)),
		CompressedSize64:   uint64(len(body)),
		UncompressedSize64: uint64(len(body)),
	}
	if len(crc) > 0 {
		h.CRC32 = crc[0]
	}
	return h
}
