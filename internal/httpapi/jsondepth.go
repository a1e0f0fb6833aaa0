package httpapi

import "fmt"

// maxJSONDepth bounds how deeply a request body's JSON may nest: no body
// the hub takes nests more than a few levels, and a deeper one is refused
// (400 invalid_body) by a scan of its bytes before any of it is decoded.
const maxJSONDepth = 64

// checkJSONDepth reports an error when b nests objects and arrays deeper
// than maxJSONDepth. It only counts brackets outside strings; whether b is
// JSON at all is the decoder's to say.
func checkJSONDepth(b []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxJSONDepth {
				return fmt.Errorf("the body's JSON nests deeper than %d levels", maxJSONDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
