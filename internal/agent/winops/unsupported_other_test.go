//go:build !windows

package winops

import (
	"runtime"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

// Off Windows, every valid request answers unsupported_platform.
func TestUnsupportedPlatform(t *testing.T) {
	cases := []struct {
		ctl        int64
		path, data string
	}{
		{agentproto.CtlServiceCtl, "", `{"action":"list"}`},
		{agentproto.CtlServiceCtl, "spooler", `{"action":"query"}`},
		{agentproto.CtlServiceCtl, "spooler", `{"action":"start","timeout_s":5}`},
		{agentproto.CtlServiceCtl, "spooler", `{"action":"stop"}`},
		{agentproto.CtlServiceCtl, "spooler", `{"action":"restart"}`},
		{agentproto.CtlServiceCtl, "spooler", `{"action":"set_start_type","start_type":"delayed_auto"}`},
		{agentproto.CtlServiceCtl, "svc", `{"action":"create","binary_path":"C:\\Program Files\\x\\x.exe","args":"run"}`},
		{agentproto.CtlServiceCtl, "svc", `{"action":"delete"}`},
		{agentproto.CtlRegistryRW, `HKLM\SOFTWARE\x`, `{"action":"read","name":"v"}`},
		{agentproto.CtlRegistryRW, `HKEY_CURRENT_USER\Software\x`, `{"action":"write","name":"v","type":"qword","value":18446744073709551615}`},
		{agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"write","type":"multi_sz","value":["a","b"]}`},
		{agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"delete_value","name":"v"}`},
		{agentproto.CtlRegistryRW, `HKCU`, `{"action":"list"}`},
		{agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"create_key"}`},
		{agentproto.CtlRegistryRW, `HKCU\Software\x`, `{"action":"delete_key","recursive":true}`},
		{agentproto.CtlScheduledTaskCtl, "", `{"action":"list"}`},
		{agentproto.CtlScheduledTaskCtl, `\hostgate\backup`, `{"action":"query"}`},
		{agentproto.CtlScheduledTaskCtl, `\hostgate\backup`, `{"action":"create","xml":"<Task/>"}`},
		{agentproto.CtlScheduledTaskCtl, `backup`, `{"action":"run"}`},
		{agentproto.CtlScheduledTaskCtl, `backup`, `{"action":"end"}`},
		{agentproto.CtlScheduledTaskCtl, `backup`, `{"action":"enable"}`},
		{agentproto.CtlScheduledTaskCtl, `backup`, `{"action":"disable"}`},
		{agentproto.CtlScheduledTaskCtl, `backup`, `{"action":"delete"}`},
	}
	for _, c := range cases {
		res, err := call(t, c.ctl, c.path, c.data)
		if errCode(err) != agentproto.CodeUnsupportedOS || res != nil {
			t.Errorf("%s %s: result %v, err %v; want unsupported_platform", agentproto.OpName(c.ctl), c.data, res, err)
			continue
		}
		if !strings.Contains(err.Error(), runtime.GOOS) || !strings.Contains(err.Error(), agentproto.OpName(c.ctl)) {
			t.Errorf("message %q should name the op and %s", err.Error(), runtime.GOOS)
		}
	}
}
