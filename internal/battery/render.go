package battery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Doc markers: Render rewrites the table between them.
const (
	beginMarker = "<!-- battery:begin -->"
	endMarker   = "<!-- battery:end -->"
)

// ReadFigures reads the JSON lines Report appended.
func ReadFigures(r io.Reader) ([]Figure, error) {
	var out []Figure
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var f Figure
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if !idRE.MatchString(f.ID) {
			return nil, fmt.Errorf("line %d: %q is not a battery id", n, f.ID)
		}
		out = append(out, f)
	}
	return out, sc.Err()
}

// Row is one line of the doc's battery table.
type Row struct {
	ID, Entry, Tests, Figures string
}

// ParseTable returns the battery table's rows, in document order.
func ParseTable(doc []byte) ([]Row, error) {
	_, table, _, err := split(doc)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, line := range strings.Split(table, "\n") {
		cells, ok := cellsOf(line)
		if !ok || !idRE.MatchString(cells[0]) {
			continue
		}
		if len(cells) != 4 {
			return nil, fmt.Errorf("row %s has %d cells, want 4 (id, entry, tests, figure)", cells[0], len(cells))
		}
		rows = append(rows, Row{cells[0], cells[1], cells[2], cells[3]})
	}
	return rows, nil
}

// Render rewrites the tests and figure cells of every row that figs
// report on; the other rows stay as they are. Figures of one id are joined
// in test-name order, so the output does not depend on the order the
// tests ran in.
func Render(doc []byte, figs []Figure) ([]byte, error) {
	head, table, tail, err := split(doc)
	if err != nil {
		return nil, err
	}
	byID := map[string][]Figure{}
	for _, f := range figs {
		byID[f.ID] = append(byID[f.ID], f)
	}
	var b strings.Builder
	for i, line := range strings.Split(table, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		cells, ok := cellsOf(line)
		got := byID[firstOr(cells)]
		if !ok || len(cells) != 4 || len(got) == 0 {
			b.WriteString(line)
			continue
		}
		slices.SortStableFunc(got, func(x, y Figure) int { return strings.Compare(x.Test, y.Test) })
		var tests, values []string
		for _, f := range got {
			if !slices.Contains(tests, "`"+f.Test+"`") {
				tests = append(tests, "`"+f.Test+"`")
			}
			values = append(values, escape(f.Figure))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", cells[0], cells[1], strings.Join(tests, ", "), strings.Join(values, "; "))
	}
	return []byte(head + b.String() + tail), nil
}

func firstOr(cells []string) string {
	if len(cells) == 0 {
		return ""
	}
	return cells[0]
}

func split(doc []byte) (head, table, tail string, err error) {
	s := string(doc)
	i := strings.Index(s, beginMarker)
	j := strings.Index(s, endMarker)
	if i < 0 || j < i {
		return "", "", "", fmt.Errorf("the battery table must sit between %s and %s", beginMarker, endMarker)
	}
	i += len(beginMarker)
	return s[:i], s[i:j], s[j:], nil
}

func cellsOf(line string) ([]string, bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil, false
	}
	// Split on the pipes that are not escaped (`\|` stays inside a cell).
	var parts []string
	var cell strings.Builder
	inner := line[1 : len(line)-1]
	for i := 0; i < len(inner); i++ {
		switch {
		case inner[i] == '\\' && i+1 < len(inner) && inner[i+1] == '|':
			cell.WriteString(`\|`)
			i++
		case inner[i] == '|':
			parts = append(parts, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(inner[i])
		}
	}
	return append(parts, strings.TrimSpace(cell.String())), true
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
