package winops

import (
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

func TestServiceCommandLine(t *testing.T) {
	cases := []struct{ bin, args, want string }{
		{`C:\svc\svc.exe`, "", `C:\svc\svc.exe`},
		{`C:\Program Files\x\x.exe`, "run --config C:\\x.json", `"C:\Program Files\x\x.exe" run --config C:\x.json`},
		{`C:\a b\`, "", `"C:\a b\\"`},
		{`%SystemRoot%\System32\svchost.exe`, " -k netsvcs ", `%SystemRoot%\System32\svchost.exe -k netsvcs`},
	}
	for _, c := range cases {
		if got := serviceCommandLine(c.bin, c.args); got != c.want {
			t.Errorf("serviceCommandLine(%q, %q) = %q, want %q", c.bin, c.args, got, c.want)
		}
	}
}

func TestIsWindowsAbsPath(t *testing.T) {
	for p, want := range map[string]bool{
		`C:\x.exe`: true, `d:/x.exe`: true, `\\srv\share\x.exe`: true, `%SystemRoot%\x.exe`: true,
		`x.exe`: false, `C:x.exe`: false, `\x.exe`: false, `%%\x`: false, `%A%`: false, ``: false, `\\`: false,
	} {
		if got := isWindowsAbsPath(p); got != want {
			t.Errorf("isWindowsAbsPath(%q) = %v", p, got)
		}
	}
}

func TestCheckServiceData(t *testing.T) {
	ok := []struct {
		name string
		d    agentproto.ServiceData
	}{
		{"", agentproto.ServiceData{Action: "list"}},
		{"Spooler", agentproto.ServiceData{Action: "query"}},
		{"游戏服务", agentproto.ServiceData{Action: "create", BinaryPath: `C:\游戏\server.exe`, DisplayName: "游戏服务", Description: "多行\n描述"}},
	}
	for _, c := range ok {
		if err := checkServiceData(c.name, c.d); err != nil {
			t.Errorf("%q %+v: %v", c.name, c.d, err)
		}
	}
	bad := []struct {
		name string
		d    agentproto.ServiceData
	}{
		{"a/b", agentproto.ServiceData{Action: "query"}},
		{"a\tb", agentproto.ServiceData{Action: "query"}},
		{"svc", agentproto.ServiceData{Action: "create", BinaryPath: `C:\x.exe`, Args: "a\x00b"}},
		{"svc", agentproto.ServiceData{Action: "create", BinaryPath: `C:\x.exe`, Description: "\x00"}},
		{"svc", agentproto.ServiceData{Action: "create", BinaryPath: `C:\x.exe`, DisplayName: "a\nb"}},
		{"svc", agentproto.ServiceData{Action: "create", BinaryPath: `C:\x.exe`, Args: strings.Repeat("a", maxServiceCmdLine)}},
	}
	for _, c := range bad {
		if err := checkServiceData(c.name, c.d); errCode(err) != agentproto.CodeBadArgs {
			t.Errorf("%q %+v: err %v, want invalid_args", c.name, c.d, err)
		}
	}
}

func TestServiceNames(t *testing.T) {
	states := map[uint32]string{1: "stopped", 2: "start_pending", 3: "stop_pending", 4: "running",
		5: "continue_pending", 6: "pause_pending", 7: "paused", 0: "unknown", 8: "unknown"}
	for s, want := range states {
		if got := stateName(s); got != want {
			t.Errorf("stateName(%d) = %q, want %q", s, got, want)
		}
	}
	for _, name := range agentproto.ServiceStartTypes {
		typ, delayed := startTypeValue(name)
		if got := startTypeName(typ, delayed); got != name {
			t.Errorf("start type %q round-trips to %q", name, got)
		}
	}
	if typ, delayed := startTypeValue(""); typ != startDemand || delayed {
		t.Errorf("default start type %d %v, want manual", typ, delayed)
	}
	for typ, want := range map[uint32]string{0: "boot", 1: "system", 9: "unknown"} {
		if got := startTypeName(typ, false); got != want {
			t.Errorf("startTypeName(%d) = %q", typ, got)
		}
	}
	if got := startTypeName(startDemand, true); got != "manual" {
		t.Errorf("delayed flag on a manual service gives %q", got)
	}
}
