package paging

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"hostgate/internal/apperr"
)

// Keyset paging (docs/api.md, "Paging"): a page starts after the last
// item of the page before it, found by its sort key and its unique id, so
// that a deep page costs what the first does. The client carries the
// position as an opaque cursor; the store reads the key and reports the
// next one.

// MaxCursor is the longest cursor a client may send, in characters.
const MaxCursor = 512

// CodeInvalidCursor is the error of a cursor that does not decode or was
// made for another list, order or filter.
const CodeInvalidCursor = "invalid_cursor"

// cursorVersion is the first byte of every encoded cursor; a change of
// the encoding takes the next number, and older cursors are refused.
const cursorVersion = 1

// maxKeyValues bounds the values of a key: the sort columns and the id.
const maxKeyValues = 4

// Key is the position of one item in a list's order: the values of its
// sort columns then its unique tie-breaker, each nil, a string, an int64
// or a time.Time.
type Key []any

// Keyset is the cursor side of a page request. The transport sets Bind
// and After; the store reads After and sets Next.
type Keyset struct {
	// Bind identifies the list, order and filter a cursor belongs to: a
	// cursor made under one Bind is refused under another.
	Bind uint64
	// After, when set, is the key the page starts after; Offset is then 0.
	After Key
	// Next is set by the store to the key of the page's last item when
	// items may follow it; nil on the last page.
	Next Key
}

// InvalidCursor is the answer to a cursor that is malformed or that
// belongs to another list, order or filter.
func InvalidCursor(why string) error {
	return apperr.New(CodeInvalidCursor, "invalid cursor: "+why+"; start again without cursor (or with offset) and follow next_cursor")
}

// value tags of the encoding.
const (
	tagNil byte = iota
	tagString
	tagInt
	tagTime
)

// EncodeCursor is the opaque form of the position k under bind: base64url
// of the version, bind and each value.
func EncodeCursor(bind uint64, k Key) string {
	b := []byte{cursorVersion}
	b = binary.BigEndian.AppendUint64(b, bind)
	b = append(b, byte(len(k)))
	for _, v := range k {
		switch v := v.(type) {
		case nil:
			b = append(b, tagNil)
		case string:
			b = append(b, tagString)
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		case int64:
			b = append(b, tagInt)
			b = binary.AppendVarint(b, v)
		case time.Time:
			b = append(b, tagTime)
			b = binary.AppendVarint(b, v.Unix())
			b = binary.AppendUvarint(b, uint64(v.Nanosecond()))
		default:
			panic("paging: key value of unsupported type")
		}
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor returns the position s holds when it was made under bind;
// any other s is an invalid_cursor error (InvalidCursor).
func DecodeCursor(s string, bind uint64) (Key, error) {
	if len(s) > MaxCursor {
		return nil, InvalidCursor("longer than 512 characters")
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, InvalidCursor("not base64url")
	}
	if len(b) < 10 || b[0] != cursorVersion {
		return nil, InvalidCursor("unknown format")
	}
	if binary.BigEndian.Uint64(b[1:9]) != bind {
		return nil, InvalidCursor("it was made for another list, sort or filter")
	}
	n := int(b[9])
	if n == 0 || n > maxKeyValues {
		return nil, InvalidCursor("unknown format")
	}
	k, rest, err := decodeValues(b[10:], n)
	if err != nil || len(rest) != 0 {
		return nil, InvalidCursor("unknown format")
	}
	return k, nil
}

var errFormat = errors.New("bad cursor")

// decodeValues reads n tagged values from b.
func decodeValues(b []byte, n int) (Key, []byte, error) {
	k := make(Key, 0, n)
	for range n {
		if len(b) == 0 {
			return nil, nil, errFormat
		}
		tag := b[0]
		b = b[1:]
		var v any
		var err error
		switch tag {
		case tagNil:
		case tagString:
			v, b, err = decodeString(b)
		case tagInt:
			v, b, err = decodeVarint(b)
		case tagTime:
			v, b, err = decodeTime(b)
		default:
			err = errFormat
		}
		if err != nil {
			return nil, nil, err
		}
		k = append(k, v)
	}
	return k, b, nil
}

// decodeString reads a length-prefixed string: valid UTF-8 without NUL,
// which every engine takes as an argument.
func decodeString(b []byte) (any, []byte, error) {
	l, w := binary.Uvarint(b)
	if w <= 0 || l > uint64(len(b)-w) {
		return nil, nil, errFormat
	}
	s := string(b[w : w+int(l)])
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return nil, nil, errFormat
	}
	return s, b[w+int(l):], nil
}

func decodeVarint(b []byte) (any, []byte, error) {
	v, w := binary.Varint(b)
	if w <= 0 {
		return nil, nil, errFormat
	}
	return v, b[w:], nil
}

// decodeTime reads a time in the years 1 to 9999, the range both engines
// store.
func decodeTime(b []byte) (any, []byte, error) {
	sec, w := binary.Varint(b)
	if w <= 0 {
		return nil, nil, errFormat
	}
	b = b[w:]
	ns, w := binary.Uvarint(b)
	if w <= 0 || ns >= uint64(time.Second) {
		return nil, nil, errFormat
	}
	const minSec, maxSec = -62135596800, 253402300799 // 0001-01-01, 9999-12-31T23:59:59 UTC
	if sec < minSec || sec > maxSec {
		return nil, nil, errFormat
	}
	return time.Unix(sec, int64(ns)).UTC(), b[w:], nil
}

// NextCursor is the cursor of the page after the one the store read, or
// "" on the last page (or when no Keyset was asked for).
func (k *Keyset) NextCursor() string {
	if k == nil || k.Next == nil {
		return ""
	}
	return EncodeCursor(k.Bind, k.Next)
}
