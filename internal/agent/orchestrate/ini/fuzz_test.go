package ini

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FuzzMerge: whatever the content, Merge either refuses it or changes
// only the target key (its value, or an added key line and maybe an added
// section header, and a line end for a last line that had none), and the
// result reads back the value set. The seed corpus is in
// testdata/fuzz/FuzzMerge besides the seeds added here.
func FuzzMerge(f *testing.F) {
	fix, err := os.ReadFile("testdata/Config.ini")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fix, "DBServer", "GatePort", uint16(5101))
	f.Add(fix, "M2Server", "UserPort", uint16(1))
	f.Add(fix, "New", "GetStart", uint16(0))
	f.Add([]byte("[A]\r\nK=1"), "A", "J", uint16(2))
	f.Add([]byte("K=1\r\n[A]\r\n[A]\r\nK=2\r\n"), "a", "k", uint16(3))
	f.Add([]byte{0x81, 0x5d, '[', 'A', ']', '\r', '\n'}, "A", "K", uint16(4))
	f.Fuzz(func(t *testing.T, src []byte, section, key string, value uint16) {
		val := strconv.Itoa(int(value))
		out, changed, err := Merge(src, []Set{{section, key, val}})
		if err != nil {
			if CheckGBK(src) == nil && errors.Is(err, ErrNotGBK) {
				t.Fatalf("valid GBK refused as not GBK: %v", err)
			}
			return
		}
		if len(changed) == 0 {
			if !bytes.Equal(out, src) {
				t.Fatalf("nothing changed, but the content did")
			}
		}
		f2, err := Parse(out)
		if err != nil {
			t.Fatalf("the result does not parse: %v", err)
		}
		if got, ok := f2.Get(section, key); !ok || got != val {
			t.Fatalf("re-read %s.%s = %q, %v; want %q", section, key, got, ok, val)
		}
		checkOnlyTarget(t, src, out, section, key)
	})
}

// checkOnlyTarget fails unless out is src with only the target's lines
// changed or added.
func checkOnlyTarget(t *testing.T, src, out []byte, section, key string) {
	t.Helper()
	so, oo := bytes.Split(src, []byte("\n")), bytes.Split(out, []byte("\n"))
	finalNL := len(src) > 0 && src[len(src)-1] == '\n'
	isTarget := func(l []byte) bool {
		p := parseLine(l)
		return (p.isKey() && strings.EqualFold(p.key, key)) || (p.header && strings.EqualFold(p.section, section))
	}
	edits := 0
	i, j := 0, 0
	for i < len(so) && j < len(oo) {
		switch {
		case bytes.Equal(so[i], oo[j]):
			i, j = i+1, j+1
		case len(src) > 0 && i == len(so)-1 && !finalNL && bytes.Equal(append(bytes.Clone(so[i]), '\r'), oo[j]):
			i, j = i+1, j+1 // the last line got its line end
		case isTarget(so[i]) && isTarget(oo[j]) && parseLine(so[i]).isKey():
			i, j, edits = i+1, j+1, edits+1 // the value replaced
		case isTarget(oo[j]):
			j, edits = j+1, edits+1 // a line added
		default:
			t.Fatalf("line %d %q became %q", i, so[i], oo[j])
		}
	}
	for ; j < len(oo); j++ {
		if len(oo[j]) > 0 && !isTarget(oo[j]) {
			t.Fatalf("line %q added", oo[j])
		}
		if len(oo[j]) > 0 {
			edits++
		}
	}
	if i < len(so) && !(i == len(so)-1 && len(so[i]) == 0) {
		t.Fatalf("lines from %d on (%q) were lost", i, so[i])
	}
	if edits > 2 {
		t.Fatalf("%d lines changed or added, want at most 2", edits)
	}
}
