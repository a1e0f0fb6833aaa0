package sysops

import (
	"bytes"
	"strings"
	"testing"
)

const tcpHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

const tcp6Header = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

func TestCountEstablished(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int64
		wantErr string
	}{
		{"empty file", "", 0, ""},
		{"header only", tcpHeader, 0, ""},
		{"listen and established", tcpHeader +
			"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 41234 1 0000000000000000 100 0 0 10 0\n" +
			"   1: 0100007F:1F90 0100007F:D4A2 01 00000000:00000000 00:00000000 00000000  1000        0 41240 1 0000000000000000 20 4 30 10 -1\n" +
			"   2: 0100007F:D4A2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 41239 1 0000000000000000 20 4 30 10 -1\n" +
			"   3: 0100007F:D4A4 0100007F:1F90 06 00000000:00000000 03:00000AF1 00000000     0        0 0 3 0000000000000000\n", 2, ""},
		{"tcp6", tcp6Header +
			"   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000000000000 100 0 0 10 0\n" +
			"   1: 0000000000000000FFFF00000100007F:0016 0000000000000000FFFF00000100007F:E1C2 01 00000000:00000000 02:000A7A1B 00000000     0        0 5678 2 0000000000000000 20 4 31 10 -1\n", 1, ""},
		{"blank lines and CRLF", tcpHeader + "\r\n   0: 0100007F:1F90 0100007F:D4A2 01 0:0\r\n\n", 1, ""},
		{"large slot numbers", tcpHeader + "12345: A:B C:D 01\n", 1, ""},
		{"no header", "   0: 0100007F:1F90 0100007F:D4A2 01\n", 1, ""},
		{"state lower-case hex", tcpHeader + "   0: A:B C:D 0a\n   1: A:B C:D 01\n", 1, ""},
		{"too few columns", tcpHeader + "   0: 0100007F:1F90 01\n", 0, "line 2: 3 columns"},
		{"slot without colon", tcpHeader + "   0 A:B C:D 01\n", 0, `line 2: bad slot "0"`},
		{"slot not a number", tcpHeader + "   x: A:B C:D 01\n", 0, `bad slot "x:"`},
		{"state not hex", tcpHeader + "   0: A:B C:D ZZ\n", 0, `bad state "ZZ"`},
		{"state wrong width", tcpHeader + "   0: A:B C:D 001\n", 0, `bad state "001"`},
		{"header later", tcpHeader + tcpHeader, 0, `line 2: bad slot "sl"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := countEstablished(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %d, %v, want %d", got, err, tt.want)
			}
		})
	}
}

func TestCountEstablishedLongLine(t *testing.T) {
	in := tcpHeader + "   0: A:B C:D 01 " + strings.Repeat("x", 70_000) + "\n"
	if _, err := countEstablished(strings.NewReader(in)); err == nil {
		t.Fatal("a line longer than the scanner's buffer gave no error")
	}
}

// FuzzCountEstablished: any input gives a count no larger than its
// number of lines, or an error, and never a panic.
func FuzzCountEstablished(f *testing.F) {
	f.Add([]byte(tcpHeader + "   0: 0100007F:1F90 0100007F:D4A2 01 00000000:00000000\n"))
	f.Add([]byte(tcp6Header + "   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 0\n"))
	f.Add([]byte(""))
	f.Add([]byte("sl\n0: a b 01\n\n"))
	f.Add([]byte("   0: A:B C:D 1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := countEstablished(bytes.NewReader(in))
		if err != nil {
			if n != 0 {
				t.Fatalf("count %d with error %v", n, err)
			}
			return
		}
		if lines := int64(bytes.Count(in, []byte("\n")) + 1); n < 0 || n > lines {
			t.Fatalf("count %d for %d lines", n, lines)
		}
	})
}
