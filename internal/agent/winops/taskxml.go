package winops

import (
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

// Task definitions are read and written as Task Scheduler XML, whose
// element names and values are the same in every Windows language, unlike
// schtasks' LIST and CSV output.

// maxTaskXML bounds a task definition given to create.
const maxTaskXML = 1 << 20

// taskEntry is what list and query read from a task's XML.
type taskEntry struct {
	Name    string
	Enabled bool
}

// taskDef holds the elements of a <Task> this package reads; the
// namespace is left open since schtasks always uses the task namespace.
type taskDef struct {
	URI     string `xml:"RegistrationInfo>URI"`
	Enabled string `xml:"Settings>Enabled"`
}

// parseTasks reads the tasks of schtasks' XML output: one <Task>
// document (/Query /TN x /XML) or a <Tasks> root holding one <Task> per
// task, each preceded by a comment with its path (/Query /XML ONE). A
// task's name is that comment, or else its RegistrationInfo/URI. Empty
// output is no tasks.
func parseTasks(text string) ([]taskEntry, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	dec := newXMLDecoder(text)
	var out []taskEntry
	comment, depth := "", 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("task XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.Comment:
			if depth <= 1 {
				comment = strings.TrimSpace(string(t))
			}
		case xml.StartElement:
			if t.Name.Local != "Task" || depth > 1 {
				depth++
				continue
			}
			var def taskDef
			if err := dec.DecodeElement(&def, &t); err != nil {
				return nil, fmt.Errorf("task XML: %w", err)
			}
			out = append(out, def.entry(comment))
			comment = ""
		case xml.EndElement:
			depth--
		}
	}
}

// newXMLDecoder reads text that is already UTF-8 whatever its declaration
// says (schtasks declares UTF-16 on output it wrote in another encoding).
func newXMLDecoder(text string) *xml.Decoder {
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return dec
}

func (d taskDef) entry(comment string) taskEntry {
	name := strings.TrimSpace(d.URI)
	if strings.HasPrefix(comment, `\`) {
		name = comment
	}
	// xs:boolean; Task Scheduler's default is enabled.
	enabled := true
	switch strings.TrimSpace(d.Enabled) {
	case "false", "0":
		enabled = false
	}
	return taskEntry{Name: name, Enabled: enabled}
}

// checkTaskXML accepts a well-formed document whose single root element
// is <Task>, so that a mistake is invalid_args rather than a schtasks
// error in the host's language.
func checkTaskXML(text string) error {
	if len(text) > maxTaskXML {
		return agentproto.ArgsError("xml must be at most %d bytes", maxTaskXML)
	}
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return agentproto.ArgsError("xml must be valid UTF-8 text")
	}
	dec := newXMLDecoder(strings.TrimPrefix(text, "\ufeff"))
	roots := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return agentproto.ArgsError("xml: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			roots++
			if roots > 1 || t.Name.Local != "Task" {
				return agentproto.ArgsError("xml must have one root element, <Task>")
			}
			if err := dec.Skip(); err != nil {
				return agentproto.ArgsError("xml: %v", err)
			}
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				return agentproto.ArgsError("xml has text outside its root element")
			}
		}
	}
	if roots == 0 {
		return agentproto.ArgsError("xml must have one root element, <Task>")
	}
	return nil
}

// taskFile is the file given to schtasks /Create /XML: the definition
// with its XML declaration replaced by one saying UTF-16, encoded
// UTF-16LE with a byte order mark. schtasks reads a file without a BOM in
// the ANSI code page, which would garble any non-ASCII text.
func taskFile(text string) []byte {
	text = strings.TrimLeft(strings.TrimPrefix(text, "\ufeff"), " \t\r\n")
	if strings.HasPrefix(text, "<?xml") && len(text) > 5 && strings.ContainsRune(" \t\r\n?", rune(text[5])) {
		if end := strings.Index(text, "?>"); end >= 0 {
			text = strings.TrimLeft(text[end+2:], " \t\r\n")
		}
	}
	units := utf16.Encode([]rune("\ufeff<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n" + text))
	out := make([]byte, 2*len(units))
	for i, u := range units {
		binary.LittleEndian.PutUint16(out[2*i:], u)
	}
	return out
}

// decodeOutput turns a console program's output into text: UTF-16LE when
// it has a BOM or starts like UTF-16 ASCII, UTF-8 when valid, otherwise
// legacy, the console code page's decoder (nil: replace invalid bytes).
func decodeOutput(b []byte, legacy func([]byte) string) string {
	switch {
	case len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe:
		return string(utf16.Decode(utf16Units(b[2:])))
	case len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf:
		b = b[3:]
	case len(b) >= 2 && b[0] != 0 && b[1] == 0:
		return string(utf16.Decode(utf16Units(b)))
	}
	if utf8.Valid(b) {
		return string(b)
	}
	if legacy != nil {
		return legacy(b)
	}
	return strings.ToValidUTF8(string(b), "\ufffd")
}
