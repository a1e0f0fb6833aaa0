// Package clip shortens text to a length in bytes without cutting a
// character in two: a message kept in a bounded column, a log field, an
// error quoted back.
package clip

import "unicode/utf8"

// String is the longest prefix of s that is at most n bytes long and
// does not end inside a UTF-8 sequence. Bytes of s that are not valid
// UTF-8 are kept as they are.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	cut := n
	// Back off over continuation bytes to the start of the character
	// that the cut falls in, unless that character ends exactly at n.
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if i == 0 || utf8.RuneStart(s[i]) {
			cut = i
			break
		}
	}
	return s[:cut]
}

// Ellipsis is String with "…" appended when s was shortened; the result
// is then at most n+3 bytes.
func Ellipsis(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return String(s, n) + "…"
}
