package agentproto

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"
)

// TestEveryRowIsComplete: each row of Controls says everything about its
// control — a distinct value, name, op and SDK constant, and, by how the
// client API carries it out, a route, a pricing rule, an argument rule
// and a wait. The operations, billing, agent, OpenAPI and SDK tests check
// that each of those reads the row.
func TestEveryRowIsComplete(t *testing.T) {
	seen := map[string]bool{}
	constName := regexp.MustCompile(`^Ctl[A-Z][A-Za-z]*$`)
	rule := regexp.MustCompile(`^control\.[a-z0-9_]+(\.per_call|\.per_op)?$`)
	prev := int64(0)
	for _, c := range Controls {
		id := fmt.Sprintf("%d (%s)", c.Value, c.Name)
		if c.Value <= prev || c.Value&(c.Value-1) != 0 {
			t.Errorf("%s: values are distinct bits in ascending order", id)
		}
		prev = c.Value
		for _, k := range []string{"value:" + fmt.Sprint(c.Value), "name:" + c.Name, "op:" + c.Op, "const:" + c.Const} {
			if seen[k] {
				t.Errorf("%s: %s repeats another row's", id, k)
			}
			seen[k] = true
		}
		if c.Name == "" || c.Op == "" || !constName.MatchString(c.Const) {
			t.Errorf("%s: name %q, op %q, SDK constant %q", id, c.Name, c.Op, c.Const)
		}
		if c.OS != AnyOS && c.OS != WindowsOnly {
			t.Errorf("%s: OS %d", id, c.OS)
		}
		switch c.Carry {
		case ByValue:
			if !rule.MatchString(c.Rule) || c.Args == nil || c.Timeout(ControlArgs{}) <= 0 {
				t.Errorf("%s: carried by value needs a rule (%q), an argument rule and a wait", id, c.Rule)
			}
		case OwnRoute:
			if !rule.MatchString(c.Rule) || c.Route != "" {
				t.Errorf("%s: an operation with routes of its own names the rule they charge (%q) and no Run route (%q)", id, c.Rule, c.Route)
			}
		case NotImplemented:
			if c.Rule != "" || c.Route == "" || c.Args != nil {
				t.Errorf("%s: not implemented, yet priced or validated, or without the route that answers so", id)
			}
		default:
			t.Errorf("%s: carriage %d", id, c.Carry)
		}
	}
}

// TestValidateArgsAsBefore: the rows' argument rules answer exactly what
// the switch they replaced did (validateArgsBefore, kept here as the
// reference), for every value the table had then and a few outside it,
// over a corpus of paths and data. A row added since has no reference.
func TestValidateArgsAsBefore(t *testing.T) {
	paths := []string{"", "rel", "/abs", `C:\x`, `\\srv\share`, "svc", `HKLM\SOFTWARE\x`, `\t`, "/bad\x00"}
	data := []string{"", "null", `""`, `"text"`, `"out"`, `1`, `{}`, `{"a":1}`, `[]`,
		`{"url":"http://h/x"}`, `{"url":"ftp://h/x"}`, `{"url":"http://h/x","timeout_s":99999}`, `{"url":"http://h/x","sha256":"abc"}`,
		`{"url":"http://h/x","max_bytes":-1}`,
		`{"args":"-c true","timeout_s":5}`, `{"timeout_s":-1}`, `{"timeout_s":99999}`, `{"timeout_s":3}`,
		`{"action":"list"}`, `{"action":"start"}`, `{"action":"restart","timeout_s":20}`, `{"action":"query","timeout_s":400}`,
		`{"action":"create"}`, `{"action":"create","binary_path":"x.exe","start_type":"bogus"}`, `{"action":"bogus"}`,
		`{"action":"read","name":"v"}`, `{"action":"write","name":"v","type":"dword","value":1}`,
		`{"action":"create","xml":"<Task/>"}`, `{"action":"run"}`,
		`{"spawn_delay_ms":-1}`, `{"run_gate_count":0}`, `{"run_gate_count":16,"spawn_delay_ms":100}`,
		`{"ports":{"A.B":70000}}`, `{"ports":{"AB":1}}`, `{"enabled":{"[x]":true}}`, `{"controller_exe":"a/b.exe"}`,
		`{"timeout_override_s":601}`, `{"timeout_override_s":0}`, `{"resolve_game_dir":true}`,
	}
	values := []int64{0, 3, 1 << 40,
		CtlDirMk, CtlDirRm, CtlFileMk, CtlFileRm, CtlStrAd, CtlStrRd, CtlStrRm, CtlZipToDir, CtlDownFile,
		CtlUploadFile, CtlExecProgram, CtlChangeWatchDir, CtlKillProcess, CtlExecShell, CtlOrchestratedStart,
		CtlOrchestratedShutdown, CtlShellOpen, CtlShellWrite, CtlShellRead, CtlShellResize, CtlShellClose,
		CtlProcessList, CtlSystemInfo, CtlSystemMetrics, CtlServiceCtl, CtlRegistryRW, CtlScheduledTaskCtl,
		CtlSettingsUpdate}
	for _, v := range values {
		for _, p := range paths {
			for _, d := range data {
				a := ControlArgs{Path: p}
				if d != "" {
					a.Data = json.RawMessage(d)
				}
				got, want := fmt.Sprint(ValidateArgs(v, a)), fmt.Sprint(validateArgsBefore(v, a))
				if got != want {
					t.Errorf("%d path %q data %s: %s, before %s", v, p, d, got, want)
				}
			}
		}
	}
}

// TestWaitsAsBefore: the hub's wait of every row, from its args, is what
// the table of internal/operations said before it moved here, where the
// orchestration waits were written with the agent's default family as
// literals (22 children, 60+30+30+60+18×20 s of stage-2 waits, 5 s close
// and settle).
func TestWaitsAsBefore(t *testing.T) {
	const slack = 15 * time.Second
	cases := []struct {
		ctl  int64
		data string
		want time.Duration
	}{
		{CtlDirMk, "", 30 * time.Second},
		{CtlStrRd, "", 30 * time.Second},
		{CtlZipToDir, `"out"`, 10 * time.Minute},
		{CtlDownFile, `{"url":"http://h/x"}`, 300*time.Second + slack},
		{CtlDownFile, `{"url":"http://h/x","timeout_s":7}`, 7*time.Second + slack},
		{CtlExecProgram, `"-x"`, 30 * time.Second},
		{CtlChangeWatchDir, "", 30 * time.Second},
		{CtlKillProcess, "", 10*time.Second + slack},
		{CtlKillProcess, `{"timeout_s":100}`, 100*time.Second + slack},
		{CtlExecShell, "", 60*time.Second + slack},
		{CtlExecShell, `{"timeout_s":100}`, 100*time.Second + slack},
		{CtlProcessList, "", 30 * time.Second},
		{CtlSystemInfo, "", 30 * time.Second},
		{CtlSystemMetrics, "", 30 * time.Second},
		{CtlServiceCtl, `{"action":"start"}`, 30*time.Second + slack},
		{CtlServiceCtl, `{"action":"restart"}`, 30*time.Second + slack},
		{CtlServiceCtl, `{"action":"restart","timeout_s":20}`, 40*time.Second + slack},
		{CtlServiceCtl, `{"action":"stop","timeout_s":20}`, 20*time.Second + slack},
		{CtlRegistryRW, `{"action":"list"}`, 30 * time.Second},
		{CtlScheduledTaskCtl, `{"action":"list"}`, 30 * time.Second},
		{CtlOrchestratedStart, "", 30*time.Second + 3000*7*time.Millisecond},
		{CtlOrchestratedStart, `{"run_gate_count":16,"spawn_delay_ms":100}`, 30*time.Second + 100*22*time.Millisecond},
		{CtlOrchestratedStart, `{"spawn_delay_ms":0}`, 30 * time.Second},
		{CtlOrchestratedShutdown, "", (60+30+30+60+18*20)*time.Second + 22*(5*time.Second+5*time.Second) + 5*time.Second + slack},
		{CtlOrchestratedShutdown, `{"timeout_override_s":10}`, 22*(2*10*time.Second+5*time.Second) + 5*time.Second + slack},
		{CtlOrchestratedShutdown, `{"timeout_override_s":0}`, 22*5*time.Second + 5*time.Second + slack},
	}
	for _, tc := range cases {
		c, _ := ControlByValue(tc.ctl)
		a := ControlArgs{Path: "/p"}
		if tc.data != "" {
			a.Data = json.RawMessage(tc.data)
		}
		if got := c.Timeout(a); got != tc.want {
			t.Errorf("%s %s: wait %v, want %v", c.Name, tc.data, got, tc.want)
		}
	}
	if up, _ := ControlByValue(CtlUploadFile); NotImplementedError(up).Code != CodeNotImplemented ||
		NotImplementedError(up).Message != "UPLOAD_FILE (512) is not implemented, like files/upload" {
		t.Errorf("UPLOAD_FILE: %v", NotImplementedError(up))
	}
	if n := DefaultFamilyChildren(MaxRunGateCount); n != 22 {
		t.Errorf("the default family at its largest has %d children, want 22", n)
	}
}

// validateArgsBefore is ValidateArgs as it was before the rows carried
// their rules: the reference of TestValidateArgsAsBefore.
func validateArgsBefore(ctl int64, a ControlArgs) error {
	needPath := func() error {
		if a.Path == "" {
			return ArgsError("path is required")
		}
		return nil
	}
	switch ctl {
	case CtlDirMk, CtlDirRm, CtlFileRm, CtlStrRd:
		return needPath()
	case CtlFileMk, CtlStrAd, CtlExecProgram:
		if _, err := DataString(a.Data); err != nil {
			return err
		}
		return needPath()
	case CtlStrRm, CtlZipToDir:
		s, err := DataString(a.Data)
		if err != nil {
			return err
		}
		if s == "" {
			return ArgsError("data is required")
		}
		return needPath()
	case CtlDownFile:
		var d DownloadData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		return needPath()
	case CtlExecShell:
		var d ShellData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		return needPath()
	case CtlKillProcess:
		var d KillData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		if err := d.Validate(); err != nil {
			return err
		}
		return needPath()
	case CtlProcessList, CtlSystemInfo, CtlSystemMetrics:
		return nil
	case CtlChangeWatchDir:
		// The agent checks that path is absolute on its OS and an
		// existing directory; here it must be absolute on some OS.
		if len(a.Data) != 0 && string(a.Data) != "null" {
			return ArgsError("data is not taken; path is the directory to watch")
		}
		if err := needPath(); err != nil {
			return err
		}
		if !absoluteAnywhere(a.Path) {
			return ArgsError("path must be an absolute directory path (/… or C:\\…), got %q", a.Path)
		}
		return nil
	case CtlServiceCtl:
		var d ServiceData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlRegistryRW:
		var d RegistryData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlOrchestratedStart:
		var d OrchestrateStartData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlOrchestratedShutdown:
		var d OrchestrateShutdownData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	case CtlScheduledTaskCtl:
		var d TaskData
		if err := DecodeData(a.Data, &d); err != nil {
			return err
		}
		return d.Validate(a.Path)
	}
	return nil
}
