package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"語", 2, ""},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"日本語", 3, "日"},                 // each character is 3 bytes
		{"日本語", 4, "日"},                 // inside the second: back to its start
		{"日本語", 5, "日"},                 // still inside it
		{"日本語", 6, "日本"},                // the second ends exactly at 6
		{"a😀b", 2, "a"},                 // a 4-byte character
		{"a😀b", 4, "a"},                 //
		{"a😀b", 5, "a😀"},                //
		{"\xff\xfe\xfd", 2, "\xff\xfe"}, // not UTF-8: cut where asked
	}
	for _, c := range cases {
		if got := String(c.s, c.n); got != c.want {
			t.Errorf("String(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestEllipsis(t *testing.T) {
	if got := Ellipsis("short", 10); got != "short" {
		t.Errorf("unshortened = %q", got)
	}
	if got := Ellipsis("日本語", 4); got != "日…" {
		t.Errorf("shortened = %q", got)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "hello", "日本語", "a😀b", "\xff\xfe", strings.Repeat("é", 600)} {
		f.Add(s, 3)
		f.Add(s, 1000)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := String(s, n)
		if len(got) > max(n, 0) {
			t.Fatalf("String(%q, %d) = %q: %d bytes", s, n, got, len(got))
		}
		if !strings.HasPrefix(s, got) {
			t.Fatalf("String(%q, %d) = %q: not a prefix", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("String(%q, %d) = %q: cut a character", s, n, got)
		}
		// Never more than one character shorter than asked.
		if n > 0 && len(s) > n && n-len(got) >= utf8.UTFMax {
			t.Fatalf("String(%q, %d) = %q: cut %d bytes short", s, n, got, n-len(got))
		}
	})
}
