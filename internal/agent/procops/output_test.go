package procops

import (
	"bytes"
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
