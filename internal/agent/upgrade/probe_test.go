package upgrade

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agent := selfCopy(t, dir, "hostgate-agent.upgrade-1")
	other := selfCopy(t, dir, "notagent")
	garbage := filepath.Join(dir, exeName("garbage"))
	writeFile(t, garbage, strings.Repeat("\x00not a program", 100))

	tests := []struct {
		name, exe, version string
		want               string // "" for success
	}{
		{"the announced version", agent, helperVersion, ""},
		{"another version", agent, "1.0.0", "the new executable reports version " + helperVersion + ", want 1.0.0"},
		{"a version that is a prefix", agent, "9.9", "reports version " + helperVersion + ", want 9.9"},
		{"not an agent", other, helperVersion, `the new executable is not a hostgate agent: "version" printed "hello from some other program"`},
		{"not a program", garbage, helperVersion, "the new executable does not run: "},
		{"missing", filepath.Join(dir, "missing"), helperVersion, "the new executable does not run: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Probe(t.Context(), tt.exe, tt.version)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Probe: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Probe: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckVersionLine(t *testing.T) {
	tests := []struct {
		out, want, err string
	}{
		{"hostgate-agent 1.2.3 (go1.26.8, linux/amd64)\n", "1.2.3", ""},
		{"hostgate-agent 1.2.3 (go1.26.8, linux/amd64)\n", "1.2", "reports version 1.2.3, want 1.2"},
		{"hostgate-agent 1.2.30 (go)\n", "1.2.3", "reports version 1.2.30, want 1.2.3"},
		{"hostgate-agent 1.2.3\n", "1.2.3", `printed "hostgate-agent 1.2.3"`}, // not the form "version" prints
		{"", "1.2.3", `printed ""`},
		{"usage: something\nhostgate-agent 1.2.3 (x)\n", "1.2.3", `printed "usage: something"`},
	}
	for _, tt := range tests {
		err := checkVersionLine(tt.out, tt.want)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("checkVersionLine(%q, %q) = %v", tt.out, tt.want, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("checkVersionLine(%q, %q) = %v, want an error containing %q", tt.out, tt.want, err, tt.err)
		}
	}
}
