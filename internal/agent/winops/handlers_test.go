package winops

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

// call runs the handler of ctl with args {path, data}.
func call(t *testing.T, ctl int64, path, data string) (any, error) {
	t.Helper()
	args, err := json.Marshal(agentproto.ControlArgs{Path: path, Data: json.RawMessage(data)})
	if data == "" {
		args, err = json.Marshal(agentproto.ControlArgs{Path: path})
	}
	if err != nil {
		t.Fatal(err)
	}
	h, ok := Handlers()[agentproto.OpName(ctl)]
	if !ok {
		t.Fatalf("no handler for %s", agentproto.OpName(ctl))
	}
	return h(context.Background(), args)
}

// errCode is the code of an *agentproto.Error, or "" for nil, or
// "failed" for any other error (as the agent reports it).
func errCode(err error) string {
	if err == nil {
		return ""
	}
	var e *agentproto.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return agentproto.CodeFailed
}

func TestHandlersCoverTheWindowsOps(t *testing.T) {
	h := Handlers()
	for _, op := range []string{"system.service", "system.registry", "system.scheduled_task"} {
		if h[op] == nil {
			t.Errorf("no handler for %s", op)
		}
	}
	if len(h) != 3 {
		t.Errorf("%d handlers, want 3", len(h))
	}
}

// Invalid arguments are refused the same way on every platform, before
// any Windows call.
func TestInvalidArgs(t *testing.T) {
	long := strings.Repeat("x", 300)
	cases := []struct {
		name       string
		ctl        int64
		path, data string
	}{
		{"service no data", agentproto.CtlServiceCtl, "spooler", ""},
		{"service bad action", agentproto.CtlServiceCtl, "spooler", `{"action":"pause"}`},
		{"service unknown field", agentproto.CtlServiceCtl, "spooler", `{"action":"query","bogus":1}`},
		{"service no name", agentproto.CtlServiceCtl, "", `{"action":"start"}`},
		{"service name with slash", agentproto.CtlServiceCtl, `a\b`, `{"action":"query"}`},
		{"service name too long", agentproto.CtlServiceCtl, long, `{"action":"query"}`},
		{"service timeout", agentproto.CtlServiceCtl, "spooler", `{"action":"start","timeout_s":301}`},
		{"service start type", agentproto.CtlServiceCtl, "spooler", `{"action":"set_start_type","start_type":"boot"}`},
		{"create without binary", agentproto.CtlServiceCtl, "svc", `{"action":"create"}`},
		{"create relative binary", agentproto.CtlServiceCtl, "svc", `{"action":"create","binary_path":"svc.exe"}`},
		{"create quoted binary", agentproto.CtlServiceCtl, "svc", `{"action":"create","binary_path":"\"C:\\a b\\svc.exe\""}`},
		{"create long display", agentproto.CtlServiceCtl, "svc", `{"action":"create","binary_path":"C:\\svc.exe","display_name":"` + long + `"}`},
		{"data not an object", agentproto.CtlServiceCtl, "svc", `"start"`},
		{"registry bad hive", agentproto.CtlRegistryRW, `HKXX\Software`, `{"action":"list"}`},
		{"registry empty key part", agentproto.CtlRegistryRW, `HKCU\Software\\x`, `{"action":"list"}`},
		{"registry long key part", agentproto.CtlRegistryRW, `HKCU\Software\` + long, `{"action":"list"}`},
		{"registry delete hive", agentproto.CtlRegistryRW, `HKCU`, `{"action":"delete_key"}`},
		{"registry write no type", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","value":"v"}`},
		{"registry write no value", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"sz"}`},
		{"registry dword too big", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"dword","value":4294967296}`},
		{"registry dword negative", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"dword","value":-1}`},
		{"registry qword fraction", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"qword","value":1.5}`},
		{"registry sz not string", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"sz","value":5}`},
		{"registry multi_sz empty item", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"multi_sz","value":["a",""]}`},
		{"registry binary not base64", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"binary","value":"!!"}`},
		{"registry NUL in string", agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"sz","value":"a\u0000b"}`},
		{"task bad action", agentproto.CtlScheduledTaskCtl, `\t`, `{"action":"pause"}`},
		{"task no name", agentproto.CtlScheduledTaskCtl, ``, `{"action":"run"}`},
		{"task name switch", agentproto.CtlScheduledTaskCtl, `-F`, `{"action":"run"}`},
		{"task name slash", agentproto.CtlScheduledTaskCtl, `/Delete`, `{"action":"run"}`},
		{"task name quote", agentproto.CtlScheduledTaskCtl, `\a"b`, `{"action":"run"}`},
		{"task name empty part", agentproto.CtlScheduledTaskCtl, `\a\\b`, `{"action":"run"}`},
		{"task name trailing backslash", agentproto.CtlScheduledTaskCtl, `\a\`, `{"action":"run"}`},
		{"task create no xml", agentproto.CtlScheduledTaskCtl, `\t`, `{"action":"create"}`},
		{"task create broken xml", agentproto.CtlScheduledTaskCtl, `\t`, `{"action":"create","xml":"<Task><Settings></Task>"}`},
		{"task create wrong root", agentproto.CtlScheduledTaskCtl, `\t`, `{"action":"create","xml":"<Job/>"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := call(t, c.ctl, c.path, c.data)
			if errCode(err) != agentproto.CodeBadArgs {
				t.Fatalf("result %v, err %v; want invalid_args", res, err)
			}
		})
	}
}

func TestMalformedArgs(t *testing.T) {
	for _, op := range []string{"system.service", "system.registry", "system.scheduled_task"} {
		_, err := Handlers()[op](context.Background(), json.RawMessage(`{"path":`))
		if errCode(err) != agentproto.CodeBadArgs {
			t.Errorf("%s: err %v, want invalid_args", op, err)
		}
	}
}
