//go:build !windows

package procops

// decodeNonUTF8 returns output that is not valid UTF-8 as it is: Linux
// programs write UTF-8 or bytes with no known encoding, and the JSON
// encoding of the result replaces invalid bytes with U+FFFD.
func decodeNonUTF8(b []byte) string { return string(b) }
