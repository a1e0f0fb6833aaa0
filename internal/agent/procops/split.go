package procops

import (
	"errors"
	"strings"
)

// Errors of splitPOSIX; the handlers report them as invalid_args.
var (
	errOpenSingle = errors.New("unterminated single quote")
	errOpenDouble = errors.New("unterminated double quote")
	errTrailingBS = errors.New("backslash at the end of the arguments")
)

// splitPOSIX splits s into words the way a POSIX shell does, but with
// quoting only: blanks (space, tab, newline) separate words; single
// quotes keep everything literally; double quotes keep everything but a
// backslash before $ ` " \ or a newline; an unquoted backslash keeps the
// next character; a backslash-newline pair is removed. Nothing is
// expanded ($VAR, globs, ~), and operators (| ; & < > #) are plain
// characters, so the arguments reach the program exactly as written.
// An empty quoted string (” or "") is a word of its own.
func splitPOSIX(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has started, possibly empty ('')
	)
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case ' ', '\t', '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
			i++
			continue
		case '\\':
			if i+1 >= len(s) {
				return nil, errTrailingBS
			}
			if s[i+1] != '\n' {
				cur.WriteByte(s[i+1])
				in = true
			}
			i += 2
			continue
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errOpenSingle
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case '"':
			n, err := readDoubleQuoted(s[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n + 1
		default:
			cur.WriteByte(c)
			i++
		}
		in = true
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// readDoubleQuoted copies the inside of a double-quoted string (s starts
// just after the opening quote) to w and returns how many bytes of s it
// used, closing quote included.
func readDoubleQuoted(s string, w *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return 0, errOpenDouble
			}
			switch s[i+1] {
			case '$', '`', '"', '\\':
				w.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		w.WriteByte(s[i])
	}
	return 0, errOpenDouble
}
