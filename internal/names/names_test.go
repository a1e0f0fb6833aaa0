package names

import (
	"errors"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		give string
		want error
	}{
		{"web-1", nil},
		{"  box  ", nil}, // spaces are the caller's to trim
		{"", nil},        // emptiness is the caller's
		{"שרת-1", nil},
		{"خادم ١", nil},
		{"サーバー", nil},
		{"web 🚀", nil},
		{"👩‍💻 desk", nil}, // zero-width joiner inside an emoji sequence
		{"café", nil},
		{"web\x00", ErrControl},
		{"\x00", ErrControl},
		{"we\tb", ErrControl},
		{"web\n", ErrControl},
		{"\rweb", ErrControl},
		{"\x1b[31mred", ErrControl},
		{"\x1f", ErrControl},
		{"web\x7f", ErrControl},
		{"web\u0080", ErrControl},
		{"web\u0085", ErrControl},
		{"\u009b31m", ErrControl},
		{"web\u009f", ErrControl},
		{"invoice\u202efdp.exe", ErrBidi},
		{"\u202aweb", ErrBidi},
		{"\u202bweb", ErrBidi},
		{"web\u202c", ErrBidi},
		{"\u202dweb", ErrBidi},
		{"\u2066web", ErrBidi},
		{"\u2067web", ErrBidi},
		{"\u2068web", ErrBidi},
		{"web\u2069", ErrBidi},
		{"web\u200e", ErrBidi},
		{"web\u200f", ErrBidi},
		{"\u061cweb", ErrBidi},
		{"web\u2028x", ErrLineBreak},
		{"web\u2029", ErrLineBreak},
		{"web\xff", ErrInvalidUTF8},
		{"\xc3", ErrInvalidUTF8},                 // truncated sequence
		{"\xed\xa0\x80", ErrInvalidUTF8},         // a surrogate
		{"\xc0\x80", ErrInvalidUTF8},             // overlong NUL
		{"ok\xe2\x80\xaeok\xff", ErrInvalidUTF8}, // invalid wins: it is checked first
	}
	for _, tt := range tests {
		if got := Check(tt.give); !errors.Is(got, tt.want) {
			t.Errorf("Check(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

func TestProblem(t *testing.T) {
	if got, want := Problem("display_name", "a\x00"), "display_name must not contain control characters"; got != want {
		t.Errorf("Problem = %q, want %q", got, want)
	}
	if got := Problem("name", "web-1"); got != "" {
		t.Errorf("Problem of a good name = %q, want \"\"", got)
	}
}

// FuzzCheck: Check never panics, refuses every string with a control or
// bidirectional character or invalid UTF-8, and accepts the rest.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"web-1", "web\x00", "invoice\u202efdp.exe", "שרת", "web\xff", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check(s)
		bad := false
		for _, r := range s {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) || isBidiControl(r) || r == 0x2028 || r == 0x2029 {
				bad = true
			}
		}
		if (err != nil) != (bad || !utf8.ValidString(s)) {
			t.Fatalf("Check(%q) = %v", s, err)
		}
	})
}
