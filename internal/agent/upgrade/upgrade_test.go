package upgrade

import (
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

const goodSHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestCheck(t *testing.T) {
	good := agentproto.Upgrade{Version: "1.2.3-rc.1+b7", ExeURL: "https://dl.example/agent", ExeSHA256: goodSHA, ExeSize: 10 << 20}
	tests := []struct {
		name string
		edit func(*agentproto.Upgrade)
		want string // "" for valid; else a substring of the error
	}{
		{"valid", func(*agentproto.Upgrade) {}, ""},
		{"http allowed", func(u *agentproto.Upgrade) { u.ExeURL = "http://127.0.0.1:8080/a" }, ""},
		{"max size", func(u *agentproto.Upgrade) { u.ExeSize = MaxExeSize }, ""},
		{"no version", func(u *agentproto.Upgrade) { u.Version = "" }, "version: required"},
		{"version with space", func(u *agentproto.Upgrade) { u.Version = "1.2 3" }, "version: may only contain"},
		{"long version", func(u *agentproto.Upgrade) { u.Version = strings.Repeat("1", 65) }, "version: longer than 64"},
		{"no url", func(u *agentproto.Upgrade) { u.ExeURL = "" }, "exe_url: required"},
		{"ftp", func(u *agentproto.Upgrade) { u.ExeURL = "ftp://x/a" }, `exe_url: scheme "ftp"`},
		{"relative url", func(u *agentproto.Upgrade) { u.ExeURL = "/agent" }, "exe_url: scheme"},
		{"no host", func(u *agentproto.Upgrade) { u.ExeURL = "https:///agent" }, "exe_url: no host"},
		{"short sha", func(u *agentproto.Upgrade) { u.ExeSHA256 = "abc" }, "exe_sha256: 3 characters"},
		{"non-hex sha", func(u *agentproto.Upgrade) { u.ExeSHA256 = strings.Repeat("g", 64) }, "exe_sha256: not hexadecimal"},
		{"zero size", func(u *agentproto.Upgrade) { u.ExeSize = 0 }, "exe_size_bytes: must be positive"},
		{"negative size", func(u *agentproto.Upgrade) { u.ExeSize = -1 }, "exe_size_bytes: must be positive"},
		{"huge size", func(u *agentproto.Upgrade) { u.ExeSize = MaxExeSize + 1 }, "exe_size_bytes: 536870913 is more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := good
			tt.edit(&u)
			_, err := Check(u)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check: %v, want ok", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckNormalisesAndListsEveryProblem(t *testing.T) {
	u, err := Check(agentproto.Upgrade{Version: "1.0.0", ExeURL: "https://x/a", ExeSHA256: strings.ToUpper(goodSHA), ExeSize: 1})
	if err != nil || u.ExeSHA256 != goodSHA {
		t.Fatalf("Check = %+v, %v; want the sha in lower case", u, err)
	}
	_, err = Check(agentproto.Upgrade{})
	for _, field := range []string{"version", "exe_url", "exe_sha256", "exe_size_bytes"} {
		if err == nil || !strings.Contains(err.Error(), field+":") {
			t.Errorf("Check(empty) = %v, want it to name %s", err, field)
		}
	}
}
