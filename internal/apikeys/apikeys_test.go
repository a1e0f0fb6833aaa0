package apikeys

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := "ak_0123456789abcdef." + strings.Repeat("A", 43)
	if id, secret, ok := Parse(good); !ok || id != "0123456789abcdef" || len(secret) != 43 {
		t.Fatalf("Parse(good) = %q %q %v", id, secret, ok)
	}
	for _, bad := range []string{"", "ak_", "ak_0123456789abcdef", "ak_0123456789abcdef.", "bk_0123456789abcdef." + strings.Repeat("A", 43),
		"ak_0123456789abcdeg." + strings.Repeat("A", 43), "ak_0123." + strings.Repeat("A", 43), good + "A", strings.Repeat("a", 10000)} {
		if _, _, ok := Parse(bad); ok {
			t.Errorf("Parse(%.30q) accepted", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("ak_0123456789abcdef." + strings.Repeat("A", 43))
	f.Add("ak_.")
	f.Fuzz(func(t *testing.T, raw string) {
		id, secret, ok := Parse(raw)
		if ok && (raw != "ak_"+id+"."+secret || len(id) != 16 || len(secret) != 43) {
			t.Fatalf("Parse(%q) = %q %q, not a split of the input", raw, id, secret)
		}
	})
}
