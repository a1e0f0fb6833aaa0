package winops

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"hostgate/internal/agentproto"
)

// maxValueBytes bounds one registry value read or written (its stored
// size), keeping results well inside the 4 MiB message limit after base64.
const maxValueBytes = 1 << 20

// Registry value types (REG_*), fixed by the Windows API.
const (
	regNone            uint32 = 0
	regSz              uint32 = 1
	regExpandSz        uint32 = 2
	regBinary          uint32 = 3
	regDword           uint32 = 4
	regDwordBigEndian  uint32 = 5
	regLink            uint32 = 6
	regMultiSz         uint32 = 7
	regResourceList    uint32 = 8
	regFullResource    uint32 = 9
	regResourceReqList uint32 = 10
	regQword           uint32 = 11
)

var regTypeNames = map[uint32]string{
	regNone:            "none",
	regSz:              "sz",
	regExpandSz:        "expand_sz",
	regBinary:          "binary",
	regDword:           "dword",
	regDwordBigEndian:  "dword_big_endian",
	regLink:            "link",
	regMultiSz:         "multi_sz",
	regResourceList:    "resource_list",
	regFullResource:    "full_resource_descriptor",
	regResourceReqList: "resource_requirements_list",
	regQword:           "qword",
}

// typeName names a REG_* type; unknown numbers read "type_<n>".
func typeName(t uint32) string {
	if n, ok := regTypeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type_%d", t)
}

// regValue is a value ready to write: its REG_* type and the Go value of
// the field that type uses.
type regValue struct {
	typ  uint32
	str  string   // sz, expand_sz
	strs []string // multi_sz
	num  uint64   // dword, qword
	bin  []byte   // binary
}

// encodeValue converts a write's JSON value to its registry type,
// refusing a value of the wrong shape or out of range with invalid_args.
func encodeValue(typ string, v any) (regValue, error) {
	switch typ {
	case "sz", "expand_sz":
		s, ok := v.(string)
		if !ok {
			return regValue{}, agentproto.ArgsError("value of a %s must be a string", typ)
		}
		if err := checkString(s, 2); err != nil {
			return regValue{}, err
		}
		t := regSz
		if typ == "expand_sz" {
			t = regExpandSz
		}
		return regValue{typ: t, str: s}, nil
	case "multi_sz":
		strs, err := stringList(v)
		if err != nil {
			return regValue{}, err
		}
		return regValue{typ: regMultiSz, strs: strs}, nil
	case "dword", "qword":
		bits, t, most := 32, regDword, uint64(math.MaxUint32)
		if typ == "qword" {
			bits, t, most = 64, regQword, math.MaxUint64
		}
		n, err := parseUint(v, bits)
		if err != nil {
			return regValue{}, agentproto.ArgsError("value of a %s must be an integer 0..%d", typ, most)
		}
		return regValue{typ: t, num: n}, nil
	case "binary":
		s, ok := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if !ok || err != nil {
			return regValue{}, agentproto.ArgsError("value of a binary must be a base64 string")
		}
		if len(b) > maxValueBytes {
			return regValue{}, codeError(CodeValueTooLarge, "value is larger than %d bytes", maxValueBytes)
		}
		return regValue{typ: regBinary, bin: b}, nil
	}
	return regValue{}, agentproto.ArgsError("type must be one of %s", strings.Join(agentproto.RegistryTypes, ", "))
}

// checkString refuses NUL, which would cut a registry string, and strings
// over the size limit once stored as UTF-16 (extra: bytes of terminators).
func checkString(s string, extra int) error {
	if strings.ContainsRune(s, 0) {
		return agentproto.ArgsError("registry strings must not contain NUL")
	}
	if utf16Len(s)*2+extra > maxValueBytes {
		return codeError(CodeValueTooLarge, "value is larger than %d bytes", maxValueBytes)
	}
	return nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// stringList reads a multi_sz value: a list of non-empty strings (an
// empty string would end the list early when Windows reads it).
func stringList(v any) ([]string, error) {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case []string:
		for _, s := range x {
			items = append(items, s)
		}
	default:
		return nil, agentproto.ArgsError("value of a multi_sz must be a list of strings")
	}
	out := make([]string, 0, len(items))
	size := 2
	for _, it := range items {
		s, ok := it.(string)
		if !ok || s == "" {
			return nil, agentproto.ArgsError("value of a multi_sz must be a list of non-empty strings")
		}
		size += utf16Len(s)*2 + 2
		if err := checkString(s, 0); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if size > maxValueBytes {
		return nil, codeError(CodeValueTooLarge, "value is larger than %d bytes", maxValueBytes)
	}
	return out, nil
}

// parseUint reads an unsigned integer of the given bits from a JSON
// number, or from a string of decimal digits (for clients whose numbers
// cannot hold 64 bits).
func parseUint(v any, bits int) (uint64, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	case float64:
		if x != math.Trunc(x) || x < 0 || x >= math.Ldexp(1, bits) {
			return 0, fmt.Errorf("%v out of range", x)
		}
		return uint64(x), nil
	default:
		return 0, fmt.Errorf("not a number")
	}
	return strconv.ParseUint(s, 10, bits)
}

// decodeValue turns a value's stored bytes into its JSON form: a string
// (sz, expand_sz, unexpanded), a list of strings (multi_sz), a number
// (dword, dword_big_endian, qword) or base64 (binary and the rare
// types). A dword or qword whose data has the wrong length is reported as
// binary.
func decodeValue(name string, t uint32, data []byte) agentproto.RegistryValue {
	v := agentproto.RegistryValue{Name: name, Type: typeName(t)}
	switch {
	case t == regSz || t == regExpandSz:
		v.Value = utf16String(data)
	case t == regMultiSz:
		v.Value = utf16Strings(data)
	case t == regDword && len(data) == 4:
		v.Value = binary.LittleEndian.Uint32(data)
	case t == regDwordBigEndian && len(data) == 4:
		v.Value = binary.BigEndian.Uint32(data)
	case t == regQword && len(data) == 8:
		v.Value = binary.LittleEndian.Uint64(data)
	default:
		if t == regDword || t == regDwordBigEndian || t == regQword {
			v.Type = "binary"
		}
		v.Value = base64.StdEncoding.EncodeToString(data)
	}
	return v
}

// utf16Units reads little-endian UTF-16 code units; an odd last byte is
// dropped.
func utf16Units(b []byte) []uint16 {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return u
}

// utf16String decodes a stored string up to its first NUL (Windows does
// not require the terminator to be stored).
func utf16String(b []byte) string {
	u := utf16Units(b)
	for i, c := range u {
		if c == 0 {
			u = u[:i]
			break
		}
	}
	return string(utf16.Decode(u))
}

// utf16Strings decodes a multi-string: NUL-separated strings ending at
// the first empty one.
func utf16Strings(b []byte) []string {
	out := []string{}
	u := utf16Units(b)
	for len(u) > 0 {
		end := len(u)
		for i, c := range u {
			if c == 0 {
				end = i
				break
			}
		}
		if end == 0 {
			break
		}
		out = append(out, string(utf16.Decode(u[:end])))
		if end == len(u) {
			break
		}
		u = u[end+1:]
	}
	return out
}
