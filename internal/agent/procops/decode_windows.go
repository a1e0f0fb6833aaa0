package procops

import (
	"unicode/utf16"

	"golang.org/x/sys/windows"
)

// cpOEM is the OEM code page of the system (CP_OEMCP).
const cpOEM = 1

// decodeNonUTF8 decodes output that is not valid UTF-8 from the OEM code
// page, which cmd.exe and most console programs write to a pipe in (936,
// that is GBK, on Chinese Windows). Output it cannot decode is returned
// as it is.
func decodeNonUTF8(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	n, err := windows.MultiByteToWideChar(cpOEM, 0, &b[0], int32(len(b)), nil, 0)
	if err != nil || n <= 0 {
		return string(b)
	}
	w := make([]uint16, n)
	n, err = windows.MultiByteToWideChar(cpOEM, 0, &b[0], int32(len(b)), &w[0], n)
	if err != nil || n <= 0 {
		return string(b)
	}
	return string(utf16.Decode(w[:n])) // not UTF16ToString: output may hold NULs
}
