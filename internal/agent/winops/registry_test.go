package winops

import (
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

func TestParseRegPath(t *testing.T) {
	cases := []struct {
		in, hive, sub string
		ok            bool
	}{
		{`HKLM`, "HKLM", "", true},
		{`hklm\`, "HKLM", "", true},
		{`HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft`, "HKLM", `SOFTWARE\Microsoft`, true},
		{`HKCU\Software\hostgate\`, "HKCU", `Software\hostgate`, true},
		{`HKEY_USERS\S-1-5-18`, "HKU", `S-1-5-18`, true},
		{`HKCR\.txt`, "HKCR", `.txt`, true},
		{`HKCC\System`, "HKCC", `System`, true},
		{`HKCU\Software\a/b`, "HKCU", `Software\a/b`, true}, // "/" is a legal key-name character
		{`HKCU\Software\中文`, "HKCU", `Software\中文`, true},
		{`HKPD\x`, "", "", false},
		{`Software\x`, "", "", false},
		{``, "", "", false},
		{`HKCU\a\\b`, "", "", false},
		{`HKCU\a` + "\x00", "", "", false},
		{`HKCU\` + strings.Repeat("k", 256), "", "", false},
	}
	for _, c := range cases {
		hive, sub, err := parseRegPath(c.in)
		if (err == nil) != c.ok || hive != c.hive || sub != c.sub {
			t.Errorf("parseRegPath(%q) = %q, %q, %v", c.in, hive, sub, err)
		}
	}
}

func TestNewRegRequest(t *testing.T) {
	req, err := newRegRequest(`HKCU\Software\x`, agentproto.RegistryData{Action: "write", Name: "n", Type: "dword", Value: "7"})
	if err != nil || req.value.typ != regDword || req.value.num != 7 || req.displayPath() != `HKCU\Software\x` {
		t.Errorf("write request %+v, %v", req, err)
	}
	if req, _ := newRegRequest(`HKEY_CURRENT_USER`, agentproto.RegistryData{Action: "list"}); req.displayPath() != "HKCU" {
		t.Errorf("display path %q", req.displayPath())
	}
	_, err = newRegRequest(`HKCU\x`, agentproto.RegistryData{Action: "read", Name: strings.Repeat("n", maxValueNameChars+1)})
	if errCode(err) != agentproto.CodeBadArgs {
		t.Errorf("long value name: %v", err)
	}
}
