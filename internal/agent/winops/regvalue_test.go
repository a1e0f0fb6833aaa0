package winops

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"hostgate/internal/agentproto"
)

// stored is how Windows keeps a written value: strings as NUL-terminated
// UTF-16LE, numbers little-endian.
func stored(v regValue) []byte {
	u16 := func(s string) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			b = binary.LittleEndian.AppendUint16(b, u)
		}
		return b
	}
	switch v.typ {
	case regSz, regExpandSz:
		return append(u16(v.str), 0, 0)
	case regMultiSz:
		var b []byte
		for _, s := range v.strs {
			b = append(append(b, u16(s)...), 0, 0)
		}
		return append(b, 0, 0)
	case regDword:
		return binary.LittleEndian.AppendUint32(nil, uint32(v.num))
	case regQword:
		return binary.LittleEndian.AppendUint64(nil, v.num)
	}
	return v.bin
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	cases := []struct {
		typ   string
		in    string // JSON
		want  any    // what read returns
		regTy uint32
	}{
		{"sz", `"hello"`, "hello", regSz},
		{"sz", `""`, "", regSz},
		{"sz", `"服务器名称 ✓ 𝄞"`, "服务器名称 ✓ 𝄞", regSz},
		{"expand_sz", `"%SystemRoot%\\system32"`, `%SystemRoot%\system32`, regExpandSz},
		{"multi_sz", `["a","中文","c d"]`, []string{"a", "中文", "c d"}, regMultiSz},
		{"multi_sz", `[]`, []string{}, regMultiSz},
		{"dword", `0`, uint32(0), regDword},
		{"dword", `4294967295`, uint32(4294967295), regDword},
		{"dword", `"123"`, uint32(123), regDword},
		{"qword", `18446744073709551615`, uint64(18446744073709551615), regQword},
		{"qword", `9007199254740993`, uint64(9007199254740993), regQword},
		{"binary", `"AAEC/w=="`, "AAEC/w==", regBinary},
		{"binary", `""`, "", regBinary},
	}
	for _, c := range cases {
		dec := json.NewDecoder(strings.NewReader(c.in))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		rv, err := encodeValue(c.typ, v)
		if err != nil {
			t.Errorf("%s %s: %v", c.typ, c.in, err)
			continue
		}
		if rv.typ != c.regTy {
			t.Errorf("%s: REG type %d, want %d", c.typ, rv.typ, c.regTy)
		}
		got := decodeValue("v", rv.typ, stored(rv))
		if got.Type != c.typ || !reflect.DeepEqual(got.Value, c.want) {
			t.Errorf("%s %s: read back %s %#v, want %#v", c.typ, c.in, got.Type, got.Value, c.want)
		}
	}
}

func TestEncodeValueRefusesMismatches(t *testing.T) {
	cases := []struct {
		typ string
		v   any
	}{
		{"sz", json.Number("1")},
		{"sz", []any{"a"}},
		{"expand_sz", nil},
		{"multi_sz", "a"},
		{"multi_sz", []any{"a", json.Number("1")}},
		{"multi_sz", []any{"a\x00b"}},
		{"dword", json.Number("4294967296")},
		{"dword", json.Number("-1")},
		{"dword", json.Number("1e3")},
		{"dword", "0x10"},
		{"dword", true},
		{"dword", 1.5},
		{"qword", json.Number("18446744073709551616")},
		{"qword", -1.0},
		{"binary", json.Number("1")},
		{"binary", "AAE"},
		{"link", "x"},
	}
	for _, c := range cases {
		if _, err := encodeValue(c.typ, c.v); errCode(err) != agentproto.CodeBadArgs {
			t.Errorf("%s %#v: err %v, want invalid_args", c.typ, c.v, err)
		}
	}
}

func TestEncodeValueSizeLimit(t *testing.T) {
	big := strings.Repeat("x", maxValueBytes/2)
	if _, err := encodeValue("sz", big); errCode(err) != CodeValueTooLarge {
		t.Errorf("sz of %d chars: err %v, want value_too_large", len(big), err)
	}
	if _, err := encodeValue("sz", big[:maxValueBytes/2-1]); err != nil {
		t.Errorf("sz just under the limit: %v", err)
	}
	if _, err := encodeValue("multi_sz", []string{big[:maxValueBytes/4], big[:maxValueBytes/4]}); errCode(err) != CodeValueTooLarge {
		t.Errorf("multi_sz over the limit: err %v", err)
	}
}

func TestDecodeValue(t *testing.T) {
	cases := []struct {
		typ      uint32
		data     []byte
		wantType string
		want     any
	}{
		{regSz, []byte{'a', 0, 'b', 0}, "sz", "ab"},      // no terminator stored
		{regSz, []byte{'a', 0, 0, 0, 'z', 0}, "sz", "a"}, // stops at NUL
		{regSz, []byte{'a', 0, 'b'}, "sz", "a"},          // odd byte dropped
		{regSz, nil, "sz", ""},                           // empty
		{regMultiSz, []byte{'a', 0, 0, 0, 'b', 0, 0, 0, 0, 0}, "multi_sz", []string{"a", "b"}},
		{regMultiSz, []byte{'a', 0, 0, 0, 0, 0, 'b', 0, 0, 0}, "multi_sz", []string{"a"}}, // ends at the empty string
		{regMultiSz, []byte{'a', 0}, "multi_sz", []string{"a"}},
		{regDword, []byte{1, 2, 0, 0}, "dword", uint32(0x201)},
		{regDwordBigEndian, []byte{0, 0, 2, 1}, "dword_big_endian", uint32(0x201)},
		{regQword, []byte{1, 0, 0, 0, 0, 0, 0, 0x80}, "qword", uint64(0x8000000000000001)},
		{regDword, []byte{1, 2}, "binary", "AQI="},    // wrong length
		{regQword, []byte{1, 2, 3}, "binary", "AQID"}, // wrong length
		{regNone, []byte{9}, "none", "CQ=="},
		{regLink, []byte{'a', 0}, "link", "YQA="},
		{regResourceList, nil, "resource_list", ""},
		{99, []byte{1}, "type_99", "AQ=="},
	}
	for _, c := range cases {
		got := decodeValue("n", c.typ, c.data)
		if got.Name != "n" || got.Type != c.wantType || !reflect.DeepEqual(got.Value, c.want) {
			t.Errorf("decode(%d, %v) = %s %#v, want %s %#v", c.typ, c.data, got.Type, got.Value, c.wantType, c.want)
		}
	}
}

// A read's JSON keeps empty strings, empty lists and zero numbers.
func TestDecodedValueJSON(t *testing.T) {
	for _, c := range []struct {
		v    agentproto.RegistryValue
		want string
	}{
		{decodeValue("", regSz, nil), `{"name":"","type":"sz","value":""}`},
		{decodeValue("m", regMultiSz, nil), `{"name":"m","type":"multi_sz","value":[]}`},
		{decodeValue("d", regDword, []byte{0, 0, 0, 0}), `{"name":"d","type":"dword","value":0}`},
		{decodeValue("q", regQword, []byte{255, 255, 255, 255, 255, 255, 255, 255}), `{"name":"q","type":"qword","value":18446744073709551615}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("json %s (%v), want %s", b, err, c.want)
		}
	}
}

// FuzzDecodeValue: any stored bytes of any type decode without panic into
// JSON-encodable values of the documented shape.
func FuzzDecodeValue(f *testing.F) {
	f.Add(uint32(regSz), []byte("a\x00b\x00\x00\x00"))
	f.Add(uint32(regMultiSz), []byte("a\x00\x00\x00b\x00\x00\x00\x00\x00"))
	f.Add(uint32(regDword), []byte{1, 2, 3, 4})
	f.Add(uint32(regQword), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint32(regBinary), []byte{0xff})
	f.Add(uint32(regSz), []byte{0x00, 0xd8, 0x41, 0x00}) // lone surrogate
	f.Fuzz(func(t *testing.T, typ uint32, data []byte) {
		v := decodeValue("x", typ, data)
		if _, err := json.Marshal(v); err != nil {
			t.Fatalf("marshal %#v: %v", v, err)
		}
		switch v.Value.(type) {
		case string, []string, uint32, uint64:
		default:
			t.Fatalf("value of type %T", v.Value)
		}
	})
}
