package procops

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestCappedBuffer(t *testing.T) {
	b := newCappedBuffer(10)
	for _, s := range []string{"abc", "defgh", "ijklmn", "op"} {
		n, err := b.Write([]byte(s))
		if err != nil || n != len(s) {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
		}
	}
	got, cut := b.Bytes()
	if string(got) != "abcdefghij" || !cut {
		t.Fatalf("Bytes() = %q, %v; want %q, true", got, cut, "abcdefghij")
	}
	exact := newCappedBuffer(3)
	_, _ = exact.Write([]byte("abc"))
	if got, cut := exact.Bytes(); string(got) != "abc" || cut {
		t.Fatalf("exact fit: Bytes() = %q, %v", got, cut)
	}
}

func TestOutputText(t *testing.T) {
	euro := "€" // 3 bytes
	tests := []struct {
		in        []byte
		truncated bool
		want      string
	}{
		{[]byte("plain"), false, "plain"},
		{[]byte("a" + euro), true, "a" + euro},
		{[]byte("a" + euro)[:2], true, "a"},
		{[]byte("a" + euro)[:3], true, "a"},
		{[]byte("中文"), true, "中文"},
		{[]byte("中文")[:5], true, "中"},
		{[]byte{}, true, ""},
	}
	for _, tt := range tests {
		if got := outputText(tt.in, tt.truncated); got != tt.want {
			t.Errorf("outputText(%q, %v) = %q, want %q", tt.in, tt.truncated, got, tt.want)
		}
	}
	// Invalid bytes are kept for the platform decoder, not dropped.
	if got := outputText([]byte{'x', 0xff, 'y'}, false); !strings.HasPrefix(got, "x") || !strings.HasSuffix(got, "y") {
		t.Errorf("outputText(invalid) = %q", got)
	}
}

func TestTrimPartialRuneKeepsCompleteInput(t *testing.T) {
	for _, s := range []string{"", "a", "ab€", "€", "\xff", "a\xff\xfe"} {
		if got := trimPartialRune([]byte(s)); !bytes.Equal(got, []byte(s)) {
			t.Errorf("trimPartialRune(%q) = %q, want it unchanged", s, got)
		}
	}
}

// chunks is a reader that answers each Read with its next chunk, then
// err (io.EOF when nil).
type chunks struct {
	parts []string
	err   error
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	if c.parts[0] = c.parts[0][n:]; c.parts[0] == "" {
		c.parts = c.parts[1:]
	}
	return n, nil
}

// TestCappedBufferReadFrom: ReadFrom keeps what Write would keep, counts
// everything it read, and says whether the cap cut the output.
func TestCappedBufferReadFrom(t *testing.T) {
	big := strings.Repeat("x", 3000)
	tests := []struct {
		name  string
		max   int
		parts []string
		want  string
		cut   bool
	}{
		{"empty", 10, nil, "", false},
		{"short", 10, []string{"hi\n"}, "hi\n", false},
		{"exact fit", 3, []string{"a", "bc"}, "abc", false},
		{"over the cap", 10, []string{"abc", "defgh", "ijklmn", "op"}, "abcdefghij", true},
		{"grows past 512", 5000, []string{big, big}, (big + big)[:5000], true},
		{"large under the cap", 1 << 20, []string{big, big, big}, big + big + big, false},
	}
	for _, tc := range tests {
		b := newCappedBuffer(tc.max)
		n, err := b.ReadFrom(&chunks{parts: slices.Clone(tc.parts)})
		total := len(strings.Join(tc.parts, ""))
		got, cut := b.Bytes()
		if err != nil || n != int64(total) || string(got) != tc.want || cut != tc.cut {
			t.Errorf("%s: n %d err %v, kept %d bytes (cut %v); want n %d, %d bytes (cut %v)",
				tc.name, n, err, len(got), cut, total, len(tc.want), tc.cut)
		}
	}
	broken := errors.New("broken pipe")
	b := newCappedBuffer(10)
	if n, err := b.ReadFrom(&chunks{parts: []string{"abc"}, err: broken}); n != 3 || !errors.Is(err, broken) {
		t.Errorf("read error: n %d err %v", n, err)
	}
	if got, _ := b.Bytes(); string(got) != "abc" {
		t.Errorf("read error: kept %q", got)
	}
}
