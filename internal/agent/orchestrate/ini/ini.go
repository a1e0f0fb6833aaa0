// Package ini reads and edits a game server's Config.ini in place: a GBK
// file with CRLF line ends, where a merge may change only the values of
// the keys it sets and must leave every other byte as it was (comments,
// blank lines, order, spacing around '=', Chinese text).
//
// The file is kept as raw bytes and split into lines at '\n'. That is safe
// in GBK: a double-byte character's trail byte is 0x40..0xFE, so '\n',
// '\r', '=', ';' and '#' are never part of one; only a section header's
// ']' may be, so a header is decoded before its name is read. Names match
// case-insensitively, as Windows' GetPrivateProfileString matches them,
// and the first occurrence of a section or key is the one read and set.
package ini

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// ErrNotGBK is returned for content that is not valid GBK text: bytes
// that do not decode, or that do not encode back to the same bytes.
var ErrNotGBK = errors.New("not valid GBK text")

// Set is one value to set: the key Key of section Section.
type Set struct {
	Section, Key, Value string
}

// Name is "Section.Key", the form results report.
func (s Set) Name() string { return s.Section + "." + s.Key }

// line is one line of the file, as raw bytes without its '\n' (but with
// a '\r' if it had one).
type line struct {
	raw     []byte
	section string // for a header: its name
	header  bool
	key     string // for a key line: its name
	// valStart, valEnd: the value's byte range in raw, spaces around it
	// excluded.
	valStart, valEnd int
}

func (l line) isKey() bool { return l.key != "" }

// File is a parsed Config.ini.
type File struct {
	lines []line
	// finalNL reports whether the content ended with '\n'.
	finalNL bool
}

// CheckGBK returns ErrNotGBK (wrapped with where) unless b is GBK text
// that survives a decode and encode unchanged. A UTF-8 byte order mark is
// refused too: its bytes would decode as GBK and swallow a '['.
func CheckGBK(b []byte) error {
	if bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}) {
		return fmt.Errorf("%w: the file starts with a UTF-8 byte order mark", ErrNotGBK)
	}
	s, err := simplifiedchinese.GBK.NewDecoder().Bytes(b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotGBK, err)
	}
	back, err := simplifiedchinese.GBK.NewEncoder().Bytes(s)
	if err != nil || !bytes.Equal(back, b) {
		return fmt.Errorf("%w: offset %d does not round-trip", ErrNotGBK, firstDiff(back, b))
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Parse reads GBK content. It fails with ErrNotGBK for anything else.
func Parse(b []byte) (*File, error) {
	if err := CheckGBK(b); err != nil {
		return nil, err
	}
	f := &File{finalNL: len(b) > 0 && b[len(b)-1] == '\n'}
	if len(b) == 0 {
		return f, nil
	}
	body := b
	if f.finalNL {
		body = b[:len(b)-1]
	}
	for raw := range bytes.SplitSeq(body, []byte{'\n'}) {
		f.lines = append(f.lines, parseLine(raw))
	}
	return f, nil
}

func parseLine(raw []byte) line {
	l := line{raw: raw}
	text := bytes.TrimRight(raw, "\r")
	trimmed := bytes.TrimLeft(text, " \t")
	if len(trimmed) == 0 || trimmed[0] == ';' || trimmed[0] == '#' {
		return l
	}
	if trimmed[0] == '[' {
		s := decode(trimmed[1:])
		if end := strings.IndexByte(s, ']'); end >= 0 {
			l.header, l.section = true, strings.TrimSpace(s[:end])
		}
		return l
	}
	eq := bytes.IndexByte(text, '=')
	if eq < 0 {
		return l
	}
	l.key = strings.TrimSpace(decode(text[:eq]))
	if l.key == "" {
		return l
	}
	l.valStart, l.valEnd = eq+1, len(text)
	for l.valStart < l.valEnd && isSpace(text[l.valStart]) {
		l.valStart++
	}
	for l.valEnd > l.valStart && isSpace(text[l.valEnd-1]) {
		l.valEnd--
	}
	return l
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// decode turns GBK bytes the file already passed CheckGBK with into text.
func decode(b []byte) string {
	s, _ := simplifiedchinese.GBK.NewDecoder().Bytes(b)
	return string(s)
}

// Get returns the value of key in section (first occurrences), decoded.
func (f *File) Get(section, key string) (string, bool) {
	if i := f.find(section, key); i >= 0 {
		l := f.lines[i]
		return decode(l.raw[l.valStart:l.valEnd]), true
	}
	return "", false
}

// find returns the index of key's line in section, or -1.
func (f *File) find(section, key string) int {
	start, end := f.sectionRange(section)
	for i := start; i < end; i++ {
		if f.lines[i].isKey() && strings.EqualFold(f.lines[i].key, key) {
			return i
		}
	}
	return -1
}

// sectionRange returns the lines of section's body (after its header, up
// to the next header); start is -1 when there is no such section.
func (f *File) sectionRange(section string) (start, end int) {
	start, end = -1, -1
	for i, l := range f.lines {
		if !l.header {
			continue
		}
		if start >= 0 {
			return start, i
		}
		if strings.EqualFold(l.section, section) {
			start = i + 1
		}
	}
	if start >= 0 {
		end = len(f.lines)
	}
	return start, end
}

// Bytes is the file's content.
func (f *File) Bytes() []byte {
	var b bytes.Buffer
	for i, l := range f.lines {
		b.Write(l.raw)
		if i < len(f.lines)-1 || f.finalNL {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// set sets one value and reports whether the content changed. A key not
// present goes after the last key line of its section (after the header
// if it has none), so comments and blank lines that end a section, which
// usually introduce the next one, stay where they are; a section not
// present goes at the end of the file.
func (f *File) set(s Set) (bool, error) {
	val, err := encode(s.Value)
	if err != nil {
		return false, fmt.Errorf("%s: the value cannot be written in GBK", s.Name())
	}
	if i := f.find(s.Section, s.Key); i >= 0 {
		l := f.lines[i]
		if bytes.Equal(l.raw[l.valStart:l.valEnd], val) {
			return false, nil
		}
		raw := slices.Concat(l.raw[:l.valStart], val, l.raw[l.valEnd:])
		f.lines[i] = parseLine(raw)
		return true, nil
	}
	key, err := encode(s.Key)
	if err != nil {
		return false, fmt.Errorf("%s: the key cannot be written in GBK", s.Name())
	}
	kv := parseLine(slices.Concat(key, []byte("="), val, []byte("\r")))
	start, end := f.sectionRange(s.Section)
	if start < 0 {
		sec, err := encode(s.Section)
		if err != nil {
			return false, fmt.Errorf("%s: the section cannot be written in GBK", s.Name())
		}
		f.terminateLast()
		f.lines = append(f.lines, parseLine(slices.Concat([]byte("["), sec, []byte("]\r"))), kv)
		return true, nil
	}
	at := start
	for i := start; i < end; i++ {
		if f.lines[i].isKey() {
			at = i + 1
		}
	}
	if at == len(f.lines) {
		f.terminateLast()
	}
	f.lines = slices.Insert(f.lines, at, kv)
	return true, nil
}

// terminateLast ends the last line with CRLF before a line is added after
// it: a file without a final line end gets one, and nothing else changes.
func (f *File) terminateLast() {
	if n := len(f.lines); n > 0 && !f.finalNL {
		if last := f.lines[n-1].raw; len(last) == 0 || last[len(last)-1] != '\r' {
			f.lines[n-1].raw = append(slices.Clip(last), '\r')
		}
	}
	f.finalNL = true
}

func encode(s string) ([]byte, error) {
	return simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
}

// Merge applies sets to GBK content src and returns the new content and
// the names ("Section.Key", sorted) of the keys whose value changed or
// that were added. Content that is not GBK is refused with ErrNotGBK.
func Merge(src []byte, sets []Set) ([]byte, []string, error) {
	f, err := Parse(src)
	if err != nil {
		return nil, nil, err
	}
	changed := []string{}
	for _, s := range sets {
		if err := checkSet(s); err != nil {
			return nil, nil, err
		}
		ok, err := f.set(s)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			changed = append(changed, s.Name())
		}
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	if len(changed) == 0 {
		return src, changed, nil
	}
	return f.Bytes(), changed, nil
}

// checkSet refuses a name or value that would not read back as itself.
func checkSet(s Set) error {
	bad := func(v string) bool {
		return v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "\r\n") || strings.ContainsAny(v, "[]=;#")
	}
	if bad(s.Section) || bad(s.Key) {
		return fmt.Errorf("%q: not a section and key name an INI file can hold", s.Name())
	}
	if strings.ContainsAny(s.Value, "\r\n") || strings.TrimSpace(s.Value) != s.Value {
		return fmt.Errorf("%s: the value must be one line without surrounding spaces", s.Name())
	}
	return nil
}
