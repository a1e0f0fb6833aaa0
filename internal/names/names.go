// Package names holds the one rule for the names people give things — a
// user's display name, an API key's name, a host's name: they must be
// valid UTF-8 and free of characters that change how text around them is
// shown rather than being shown themselves.
//
// Refused anywhere in a name (leading and trailing included, before any
// trimming):
//   - control characters (Unicode Cc): C0 U+0000–U+001F (NUL, tab,
//     newline, escape…), DEL U+007F and C1 U+0080–U+009F. They break logs,
//     terminals and CSV exports, and PostgreSQL cannot store NUL at all;
//   - bidirectional controls: the embeddings and overrides U+202A–U+202E,
//     the isolates U+2066–U+2069 and the marks U+200E, U+200F and U+061C.
//     They make a name display as something other than what it is
//     ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"). Right-to-left
//     scripts need none of them in a one-line label: Hebrew or Arabic
//     names are accepted and display correctly;
//   - the line and paragraph separators U+2028 and U+2029, which are line
//     breaks in all but name.
//
// Other format characters (zero-width joiners, variation selectors) are
// accepted: emoji and several scripts need them.
package names

import (
	"errors"
	"unicode"
	"unicode/utf8"
)

// The reasons Check refuses a name. Each reads after the field's name:
// "display_name " + err.Error().
var (
	ErrInvalidUTF8 = errors.New("must be valid UTF-8")
	ErrControl     = errors.New("must not contain control characters")
	ErrBidi        = errors.New("must not contain bidirectional control characters")
	ErrLineBreak   = errors.New("must not contain line or paragraph separators")
)

// Check returns nil when s may be used as a name, or one of the errors
// above. It checks content only; length and emptiness are the caller's.
func Check(s string) error {
	if !utf8.ValidString(s) {
		return ErrInvalidUTF8
	}
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return ErrControl
		case isBidiControl(r):
			return ErrBidi
		case r == '\u2028' || r == '\u2029':
			return ErrLineBreak
		}
	}
	return nil
}

// Problem is Check's reason for s prefixed with field ("name must not
// contain control characters"), or "" when s is fine; domain packages
// turn it into their own error code.
func Problem(field, s string) string {
	if err := Check(s); err != nil {
		return field + " " + err.Error()
	}
	return ""
}

func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') ||
		r == '\u200e' || r == '\u200f' || r == '\u061c'
}
