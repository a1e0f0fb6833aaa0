package procops

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSplitPOSIX(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  error
	}{
		{"", nil, nil},
		{"   \t\n ", nil, nil},
		{"a b  c", []string{"a", "b", "c"}, nil},
		{"  lead trail  ", []string{"lead", "trail"}, nil},
		{`"b c" 'd e'`, []string{"b c", "d e"}, nil},
		{`f\ g`, []string{"f g"}, nil},
		{`a"b"'c'd`, []string{"abcd"}, nil},
		{`'' ""`, []string{"", ""}, nil},
		{`x '' y`, []string{"x", "", "y"}, nil},
		{`'$HOME' "$HOME" $HOME ~ *.go`, []string{"$HOME", "$HOME", "$HOME", "~", "*.go"}, nil},
		{`a|b;c&d>e<f #g`, []string{"a|b;c&d>e<f", "#g"}, nil},
		{`'it''s'`, []string{"its"}, nil},
		{`'don'\''t'`, []string{"don't"}, nil},
		{`'back\slash'`, []string{`back\slash`}, nil},
		{`"a\"b" "c\\d" "e\$f" "g\h" "i\` + "`" + `j"`, []string{`a"b`, `c\d`, `e$f`, `g\h`, "i`j"}, nil},
		{"\"line\\\ncont\"", []string{"linecont"}, nil},
		{"one\\\ntwo", []string{"onetwo"}, nil},
		{"one \\\n two", []string{"one", "two"}, nil},
		{`\'\"\\`, []string{`'"\`}, nil},
		{"tab\\\tx", []string{"tab\tx"}, nil},
		{"中文 'ü ß'", []string{"中文", "ü ß"}, nil},
		{"-c 'echo hi | tr a-z A-Z'", []string{"-c", "echo hi | tr a-z A-Z"}, nil},
		{`'open`, nil, errOpenSingle},
		{`"open`, nil, errOpenDouble},
		{`"open\"`, nil, errOpenDouble},
		{`"open\`, nil, errOpenDouble},
		{`trailing\`, nil, errTrailingBS},
	}
	for _, tt := range tests {
		got, err := splitPOSIX(tt.in)
		if !errors.Is(err, tt.err) {
			t.Errorf("splitPOSIX(%q) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitPOSIX(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// quotePOSIX quotes words so that a POSIX shell (and splitPOSIX) gives
// them back.
func quotePOSIX(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func FuzzSplitPOSIX(f *testing.F) {
	for _, s := range []string{
		"", "a b", `"b c" 'd e'`, `f\ g`, `'don'\''t'`, `"a\"b\\c\$d"`, "x\\\ny",
		`'open`, `"open`, `bs\`, `a|b;c #d`, "中文 'ü'", `"\`, `''""`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitPOSIX(s)
		if err != nil {
			return
		}
		// Quoting the words and splitting again gives them back.
		again, err := splitPOSIX(quotePOSIX(words))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("round trip of %q: %q -> %q (%v)", s, words, again, err)
		}
		// Without quotes and backslashes, splitting is splitting at blanks.
		if !strings.ContainsAny(s, `'"\`) {
			want := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
			if !slices.Equal(words, want) && !(len(words) == 0 && len(want) == 0) {
				t.Fatalf("splitPOSIX(%q) = %q, want %q", s, words, want)
			}
		}
	})
}
