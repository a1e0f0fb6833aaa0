package procops

import "testing"

func TestNameMatcher(t *testing.T) {
	tests := []struct {
		windows   bool
		want      string
		name, exe string
		match     bool
	}{
		// Linux: exact, by process name or executable base name.
		{false, "nginx", "nginx", "/usr/sbin/nginx", true},
		{false, "nginx", "", "/usr/sbin/nginx", true},
		{false, "nginx", "nginx", "", true},
		{false, "nginx", "Nginx", "/usr/sbin/Nginx", false},
		{false, "nginx", "nginx-worker", "/usr/sbin/nginx-worker", false},
		{false, "python3.11", "python3", "/usr/bin/python3.11", true},
		{false, "srv", "srv", "/opt/srv (deleted)", true},
		{false, "/opt/srv", "x", "/opt/srv (deleted)", true},
		// Linux: a path is compared with the whole executable path.
		{false, "/opt/a/server", "server", "/opt/a/server", true},
		{false, "/opt/a/server", "server", "/opt/b/server", false},
		{false, "/opt/a/../a/server", "server", "/opt/a/server", true},
		{false, "/opt/a/server", "server", "", false},
		{false, "", "x", "/x", false},
		// Windows: case-insensitive, \ and / alike.
		{true, "notepad.exe", "notepad.exe", `C:\Windows\notepad.exe`, true},
		{true, "NOTEPAD.EXE", "notepad.exe", "", true},
		{true, "notepad.exe", "", `C:\Windows\NotePad.exe`, true},
		{true, "notepad", "notepad.exe", `C:\Windows\notepad.exe`, false},
		{true, `C:\Game1\M2Server.exe`, "M2Server.exe", `c:\game1\m2server.exe`, true},
		{true, `C:/Game1/M2Server.exe`, "M2Server.exe", `C:\Game1\M2Server.exe`, true},
		{true, `C:\Game1\M2Server.exe`, "M2Server.exe", `C:\Game2\M2Server.exe`, false},
	}
	for _, tt := range tests {
		m := newMatcher(tt.want, tt.windows)
		if got := m.matches(tt.name, tt.exe); got != tt.match {
			t.Errorf("windows=%v %q matches(%q, %q) = %v, want %v", tt.windows, tt.want, tt.name, tt.exe, got, tt.match)
		}
	}
}

func TestAgentSelfIsNeverAVictim(t *testing.T) {
	self := agentSelf{pid: 100, exe: "/opt/hostgate/hostgate-agent"}
	m := newMatcher("hostgate-agent", false)
	tests := []struct {
		p    procEntry
		want bool
	}{
		{procEntry{PID: 100, Name: "x"}, true},
		{procEntry{PID: 101, Name: "hostgate-agent", Exe: "/opt/hostgate/hostgate-agent"}, true},
		{procEntry{PID: 102, Name: "hostgate-agent", Exe: "/tmp/other/hostgate-agent"}, false},
		{procEntry{PID: 103, Name: "hostgate-agent"}, false},
	}
	for _, tt := range tests {
		if got := self.is(tt.p, m); got != tt.want {
			t.Errorf("is(%+v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	win := agentSelf{pid: 1, exe: `C:\Program Files\Hostgate\hostgate-agent.exe`}
	p := procEntry{PID: 7, Exe: `c:\program files\hostgate\HOSTGATE-AGENT.EXE`}
	if !win.is(p, newMatcher("hostgate-agent.exe", true)) {
		t.Error("windows: the agent's executable in another case is not recognised")
	}
}
