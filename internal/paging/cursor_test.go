package paging_test

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/paging"
)

var t0 = time.Date(2026, 11, 28, 5, 30, 0, 123456000, time.UTC)

// TestCursorRoundTrip: every kind of key value comes back as it went, under
// the bind it was made with.
func TestCursorRoundTrip(t *testing.T) {
	for _, k := range []paging.Key{
		{"0b7a0c8e-1d2f-4c3b-9a8e-000000000001"},
		{int64(42)},
		{int64(-1 << 62)},
		{"node-1", "id-1"},
		{t0, "id"},
		{nil, "id"},
		{"名前 with spaces", "id"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "id"},
		{time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), int64(7)},
	} {
		s := paging.EncodeCursor(99, k)
		if len(s) > paging.MaxCursor || strings.ContainsAny(s, "+/=") {
			t.Errorf("%v: cursor %q is not short base64url", k, s)
		}
		got, err := paging.DecodeCursor(s, 99)
		if err != nil || !reflect.DeepEqual(got, k) {
			t.Errorf("%v: decoded %v, %v", k, got, err)
		}
	}
}

// TestCursorRefused: a cursor of another bind, of another version, cut
// short, padded, or holding what no engine takes is invalid_cursor.
func TestCursorRefused(t *testing.T) {
	good := paging.EncodeCursor(1, paging.Key{"name", "id"})
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	enc := base64.RawURLEncoding.EncodeToString
	withValue := func(tag byte, payload ...byte) string {
		b := append([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 1, tag}, payload...)
		return enc(b)
	}
	for name, s := range map[string]string{
		"another bind":      paging.EncodeCursor(2, paging.Key{"name", "id"}),
		"empty":             "",
		"not base64":        "***",
		"standard base64":   base64.StdEncoding.EncodeToString(raw) + "+/",
		"another version":   enc(append([]byte{2}, raw[1:]...)),
		"cut short":         enc(raw[:len(raw)-1]),
		"trailing bytes":    enc(append(raw, 0)),
		"no values":         enc(append(raw[:9:9], 0)),
		"too many values":   enc(append(append([]byte{}, raw[:9]...), 9)),
		"unknown tag":       withValue(9),
		"invalid UTF-8":     withValue(1, 2, 0xff, 0xfe),
		"NUL in a string":   withValue(1, 1, 0),
		"string past end":   withValue(1, 50, 'a'),
		"time out of range": withValue(3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0),
		"nanoseconds >= 1s": withValue(3, 0, 0x80, 0x94, 0xeb, 0xdc, 0x03),
		"too long":          strings.Repeat("A", paging.MaxCursor+1),
	} {
		if _, err := paging.DecodeCursor(s, 1); !apperr.Is(err, paging.CodeInvalidCursor) {
			t.Errorf("%s: error %v, want invalid_cursor", name, err)
		}
	}
}

// TestNextCursor: a result carries the store's next key as a cursor of its
// bind, and none without one.
func TestNextCursor(t *testing.T) {
	ks := &paging.Keyset{Bind: 5}
	p := paging.Page{Limit: 2, Keyset: ks}
	if r := paging.NewResult([]int{1, 2}, 3, p); r.NextCursor != "" {
		t.Errorf("no next key: next_cursor %q", r.NextCursor)
	}
	p.SetNext(paging.Key{int64(2)})
	r := paging.NewResult([]int{1, 2}, 3, p)
	k, err := paging.DecodeCursor(r.NextCursor, 5)
	if err != nil || !reflect.DeepEqual(k, paging.Key{int64(2)}) {
		t.Errorf("next_cursor %q decodes to %v, %v", r.NextCursor, k, err)
	}
	if m := paging.Map(r, func(i int) string { return "x" }); m.NextCursor != r.NextCursor {
		t.Errorf("Map drops next_cursor")
	}
	paging.Page{Limit: 1}.SetNext(paging.Key{int64(1)}) // no Keyset: nothing to set, no panic
	if got := paging.NewResult([]int{1}, 1, paging.Page{Limit: 1}).NextCursor; got != "" {
		t.Errorf("an offset page without a keyset: next_cursor %q", got)
	}
}

// FuzzDecodeCursor: no input makes the decoder panic, and whatever it
// accepts encodes back to a cursor that decodes to the same key, with
// only values every engine takes.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(paging.EncodeCursor(1, paging.Key{"node-1", "id"}))
	f.Add(paging.EncodeCursor(1, paging.Key{t0, "id"}))
	f.Add(paging.EncodeCursor(1, paging.Key{nil, "id"}))
	f.Add(paging.EncodeCursor(1, paging.Key{int64(9)}))
	f.Add("")
	f.Add("AQAAAAAAAAABAQ")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := paging.DecodeCursor(s, 1)
		if err != nil {
			if !apperr.Is(err, paging.CodeInvalidCursor) {
				t.Fatalf("error %v, want invalid_cursor", err)
			}
			return
		}
		if len(k) == 0 || len(k) > 4 {
			t.Fatalf("accepted a key of %d values", len(k))
		}
		back, err := paging.DecodeCursor(paging.EncodeCursor(1, k), 1)
		if err != nil || !reflect.DeepEqual(back, k) {
			t.Fatalf("%v: re-encoded decodes to %v, %v", k, back, err)
		}
	})
}
