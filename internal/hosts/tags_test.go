package hosts

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTagKeyAndValueRules(t *testing.T) {
	for _, c := range []struct {
		key string
		ok  bool
	}{
		{"env", true}, {"E", true}, {"9lives", true}, {"a.b-c_d", true}, {strings.Repeat("k", 64), true},
		{"", false}, {strings.Repeat("k", 65), false}, {"-env", false}, {"_env", false}, {".env", false},
		{"en v", false}, {"env=", false}, {"envé", false}, {"a/b", false},
	} {
		if got := TagKeyProblem(c.key) == ""; got != c.ok {
			t.Errorf("key %q: valid %v, want %v", c.key, got, c.ok)
		}
	}
	for _, c := range []struct {
		value string
		ok    bool
	}{
		{"", true}, {"prod", true}, {"a_b.c:d/e@f+g-h", true}, {strings.Repeat("v", 128), true},
		{strings.Repeat("v", 129), false}, {"a b", false}, {"a=b", false}, {"a,b", false}, {"ü", false},
	} {
		if got := TagValueProblem(c.value) == ""; got != c.ok {
			t.Errorf("value %q: valid %v, want %v", c.value, got, c.ok)
		}
	}
}

func TestCheckTagsNamesTheKeyOnly(t *testing.T) {
	if p := CheckTags(Tags{"env": "prod", "role": ""}); p != "" {
		t.Fatalf("valid tags refused: %s", p)
	}
	p := CheckTags(Tags{"env": "prod", "role": "bad value secret"})
	if !strings.Contains(p, `"role"`) || strings.Contains(p, "secret") {
		t.Errorf("message %q must name the key and never echo the value", p)
	}
	long := strings.Repeat("x", 500) + " "
	if p := CheckTags(Tags{long: "v"}); len(p) > 200 {
		t.Errorf("message for a long bad key is %d bytes: it must quote at most the key's length", len(p))
	}
	many := Tags{}
	for i := range MaxTagsPerHost + 1 {
		many[strings.Repeat("k", i+1)] = ""
	}
	if p := CheckTags(many); p == "" {
		t.Errorf("%d tags accepted", len(many))
	}
}

func TestParseTagExpr(t *testing.T) {
	for in, want := range map[string]TagExpr{
		"env=prod":      {Key: "env", Value: "prod", HasValue: true},
		"env":           {Key: "env"},
		"env=":          {Key: "env", HasValue: true},
		"url=a:b/c@d+e": {Key: "url", Value: "a:b/c@d+e", HasValue: true},
	} {
		got, err := ParseTagExpr(in)
		if err != nil || got != want {
			t.Errorf("ParseTagExpr(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("%q prints as %q", in, got.String())
		}
	}
	for _, bad := range []string{"", "=prod", "env=a=b", "e nv", "env=a b", "-x"} {
		if _, err := ParseTagExpr(bad); err == nil {
			t.Errorf("ParseTagExpr(%q) accepted", bad)
		}
	}
}

func TestTagsEncodeAsObject(t *testing.T) {
	b, err := json.Marshal(Host{})
	if err != nil || !strings.Contains(string(b), `"tags":{}`) {
		t.Errorf("a host without tags encodes as %s, want tags {}", b)
	}
}

func TestTagCountAfter(t *testing.T) {
	cur := Tags{"a": "1", "b": "2"}
	for _, c := range []struct {
		add    Tags
		remove []string
		want   int
	}{
		{nil, nil, 2}, {Tags{"a": "9"}, nil, 2}, {Tags{"c": ""}, nil, 3},
		{nil, []string{"a", "zz"}, 1}, {Tags{"a": "x"}, []string{"a"}, 2},
	} {
		if got := tagCountAfter(cur, c.add, c.remove); got != c.want {
			t.Errorf("add %v remove %v: %d tags, want %d", c.add, c.remove, got, c.want)
		}
	}
}

func TestStatusesOf(t *testing.T) {
	on, off := true, false
	if got := statusesOf("", nil); len(got) != len(allStatuses) {
		t.Errorf("no criterion: %v", got)
	}
	if got := statusesOf("", &on); len(got) != 1 || got[0] != StatusOnline {
		t.Errorf("online: %v", got)
	}
	if got := statusesOf(StatusOnline, &off); len(got) != 0 {
		t.Errorf("status online and not online: %v", got)
	}
}

// FuzzParseTagExpr: the parser never panics, accepts exactly what the
// key and value rules allow, round-trips, and its error never echoes
// more than a key's length of the input.
func FuzzParseTagExpr(f *testing.F) {
	for _, s := range []string{"env=prod", "env", "env=", "=", "", "a=b=c", "k=" + strings.Repeat("v", 200), "é=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseTagExpr(s)
		key, value, _ := strings.Cut(s, "=")
		valid := TagKeyProblem(key) == "" && TagValueProblem(value) == ""
		if (err == nil) != valid {
			t.Fatalf("%q: error %v, but the rules say valid=%v", s, err, valid)
		}
		if err != nil {
			if len(err.Error()) > MaxTagKeyLen*6+120 {
				t.Fatalf("%q: error of %d bytes", s, len(err.Error()))
			}
			return
		}
		if e.String() != s {
			t.Fatalf("%q round-trips as %q", s, e.String())
		}
	})
}
