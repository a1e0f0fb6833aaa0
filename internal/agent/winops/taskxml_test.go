package winops

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = []byte{0xff, 0xfe}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

func TestParseTasks(t *testing.T) {
	cases := []struct {
		name, in string
		want     []taskEntry
	}{
		{"empty", "  \r\n", nil},
		{"single without comment", `<Task><RegistrationInfo><URI>\a</URI></RegistrationInfo></Task>`,
			[]taskEntry{{`\a`, true}}},
		{"comment wins over URI", "<Tasks><!-- \\b --><Task><RegistrationInfo><URI>\\old</URI></RegistrationInfo></Task></Tasks>",
			[]taskEntry{{`\b`, true}}},
		{"non-path comment ignored", "<!-- sample --><Task><RegistrationInfo><URI>\\u</URI></RegistrationInfo></Task>",
			[]taskEntry{{`\u`, true}}},
		{"disabled with spaces", "<Task><Settings><Enabled>\n false \n</Enabled></Settings></Task>",
			[]taskEntry{{"", false}}},
		{"disabled as 0", "<Task><Settings><Enabled>0</Enabled></Settings></Task>", []taskEntry{{"", false}}},
		{"trigger Enabled is not the task's", "<Task><Triggers><BootTrigger><Enabled>false</Enabled></BootTrigger></Triggers></Task>",
			[]taskEntry{{"", true}}},
		{"nested Task element is not a task", "<Tasks><!-- \\a --><Task><Data><Task/></Data></Task></Tasks>",
			[]taskEntry{{`\a`, true}}},
		{"UTF-16 declaration on UTF-8 text", "\ufeff<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n<Task><RegistrationInfo><URI>\\中</URI></RegistrationInfo></Task>",
			[]taskEntry{{`\中`, true}}},
		{"concatenated documents", "<?xml version=\"1.0\"?><!-- \\a --><Task/>\r\n<?xml version=\"1.0\"?><!-- \\b --><Task/>",
			[]taskEntry{{`\a`, true}, {`\b`, true}}},
	}
	for _, c := range cases {
		got, err := parseTasks(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []string{"<Task>", "<Task></Tasks>", "<Tasks><Task><Settings></Task></Tasks>", "<<"} {
		if _, err := parseTasks(bad); err == nil {
			t.Errorf("parseTasks(%q) accepted", bad)
		}
	}
}

func TestParseRecordedOutputs(t *testing.T) {
	all, err := parseTasks(fixture(t, "schtasks_query_xml_one.txt"))
	if err != nil || len(all) != 4 {
		t.Fatalf("%d tasks, %v", len(all), err)
	}
	// The same output as UTF-16LE, as it arrives when schtasks writes
	// Unicode, decodes to the same text.
	text := fixture(t, "schtasks_query_xml_one.txt")
	for _, b := range [][]byte{utf16le(text, true), utf16le(text, false), append([]byte{0xef, 0xbb, 0xbf}, text...)} {
		if got := decodeOutput(b, nil); got != text {
			t.Errorf("decoded % x... differently", b[:4])
		}
	}
}

func TestDecodeOutputLegacy(t *testing.T) {
	gbk := []byte{0xb4, 0xed, 0xce, 0xf3} // "错误" in GBK, not UTF-8
	called := false
	got := decodeOutput(gbk, func(b []byte) string { called = true; return "错误" })
	if !called || got != "错误" {
		t.Errorf("legacy decoder: %q, called %v", got, called)
	}
	if got := decodeOutput(gbk, nil); !utf8.ValidString(got) {
		t.Errorf("without a decoder: %q is not UTF-8", got)
	}
	if got := decodeOutput([]byte("plain"), func([]byte) string { return "wrong" }); got != "plain" {
		t.Errorf("UTF-8 went through the legacy decoder: %q", got)
	}
	if got := decodeOutput(nil, nil); got != "" {
		t.Errorf("empty: %q", got)
	}
}

func TestCheckTaskXML(t *testing.T) {
	good := []string{
		`<Task/>`,
		"\ufeff<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n<!-- c --><Task xmlns=\"http://schemas.microsoft.com/windows/2004/02/mit/task\"><Settings/></Task>\r\n",
		fixture(t, "schtasks_query_tn_xml.txt"),
	}
	for _, g := range good {
		if err := checkTaskXML(g); err != nil {
			t.Errorf("checkTaskXML(%.40q): %v", g, err)
		}
	}
	bad := []string{
		``, `   `, `<Job/>`, `<Task/><Task/>`, `<Task>`, `text<Task/>`, `<Task/>text`, "<Task>\x00</Task>",
		"<Task>\xff</Task>", "<Tasks><Task/></Tasks>",
		`<Task>` + strings.Repeat("x", maxTaskXML) + `</Task>`,
	}
	for _, b := range bad {
		if err := checkTaskXML(b); errCode(err) != agentproto.CodeBadArgs {
			t.Errorf("checkTaskXML(%.40q): %v, want invalid_args", b, err)
		}
	}
}

func TestTaskFile(t *testing.T) {
	const decl = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n"
	cases := []struct{ in, want string }{
		{`<Task/>`, decl + `<Task/>`},
		{"\ufeff  <?xml version='1.0' encoding='utf-8' ?>\n<Task/>", decl + `<Task/>`},
		{"<?xml-stylesheet href='x'?><Task/>", decl + "<?xml-stylesheet href='x'?><Task/>"},
		{"<!-- 注释 --><Task>中文</Task>", decl + "<!-- 注释 --><Task>中文</Task>"},
	}
	for _, c := range cases {
		b := taskFile(c.in)
		if b[0] != 0xff || b[1] != 0xfe {
			t.Fatalf("no BOM: % x", b[:2])
		}
		if got := string(utf16.Decode(utf16Units(b[2:]))); got != c.want {
			t.Errorf("taskFile(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzParseTasks: any text parses or fails without panic, and what
// checkTaskXML accepts, taskFile turns into a file that decodes to the
// same tasks.
func FuzzParseTasks(f *testing.F) {
	f.Add(`<Task/>`)
	f.Add("<Tasks><!-- \\a --><Task><Settings><Enabled>false</Enabled></Settings></Task></Tasks>")
	f.Add("<?xml version=\"1.0\" encoding=\"UTF-16\"?><Task><RegistrationInfo><URI>\\x</URI></RegistrationInfo></Task>")
	f.Add("<!DOCTYPE Task [<!ENTITY e \"x\">]><Task>&e;</Task>")
	f.Add("<Task><![CDATA[</Task>]]></Task>")
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := parseTasks(s)
		if err != nil {
			return
		}
		if checkTaskXML(s) != nil {
			return
		}
		b := taskFile(s)
		again, err := parseTasks(decodeOutput(b, nil))
		if err != nil {
			t.Fatalf("taskFile output does not parse: %v", err)
		}
		if len(again) != len(entries) {
			t.Fatalf("%d tasks before, %d after", len(entries), len(again))
		}
		for i := range entries {
			if entries[i].Enabled != again[i].Enabled {
				t.Fatalf("task %d enabled %v, after %v", i, entries[i].Enabled, again[i].Enabled)
			}
		}
	})
}
