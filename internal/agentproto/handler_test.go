package agentproto

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	cases := []struct {
		ctl  int64
		raw  string
		ok   bool
		path string
	}{
		{CtlDirMk, `{"path":"/x"}`, true, "/x"},
		{CtlDirMk, `{}`, false, ""},
		{CtlDirMk, `not json`, false, ""},
		{CtlSystemInfo, ``, true, ""},
		{CtlSystemInfo, `null`, true, ""},
		{CtlExecShell, `{"path":"sh","data":{"args":"-c true","timeout_s":5}}`, true, "sh"},
		{CtlExecShell, `{"path":"sh","data":{"timeout_s":-1}}`, false, ""},
		{CtlExecShell, `{"path":"sh","data":{"extra":1}}`, false, ""},
		{CtlDownFile, `{"path":"/f","data":{"url":"ftp://x"}}`, false, ""},
		{CtlStrRm, `{"path":"/f","data":""}`, false, ""},
		{CtlServiceCtl, `{"data":{"action":"list"}}`, true, ""},
		{CtlServiceCtl, `{"data":{"action":"start"}}`, false, ""},
		{CtlRegistryRW, `{"path":"HKXX\\a","data":{"action":"list"}}`, false, ""},
		{CtlScheduledTaskCtl, `{"path":"\\t","data":{"action":"create"}}`, false, ""},
	}
	for _, tc := range cases {
		a, err := DecodeArgs(tc.ctl, json.RawMessage(tc.raw))
		if (err == nil) != tc.ok {
			t.Errorf("%d %s: err %v, want ok=%v", tc.ctl, tc.raw, err, tc.ok)
			continue
		}
		if err != nil {
			if e, isErr := errors.AsType[*Error](err); !isErr || e.Code != CodeBadArgs {
				t.Errorf("%d %s: %v is not invalid_args", tc.ctl, tc.raw, err)
			}
		} else if a.Path != tc.path {
			t.Errorf("%d %s: path %q", tc.ctl, tc.raw, a.Path)
		}
	}
}

func TestOpNameCoversTheTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Controls {
		if OpName(c.Value) != c.Op || seen[c.Op] {
			t.Errorf("%d: op %q repeated or wrong", c.Value, c.Op)
		}
		seen[c.Op] = true
	}
	defer func() {
		if recover() == nil {
			t.Error("OpName of an unknown value did not panic")
		}
	}()
	OpName(3)
}

func FuzzDecodeArgs(f *testing.F) {
	f.Add(int64(CtlExecShell), `{"path":"sh","data":{"args":"x"}}`)
	f.Add(int64(CtlRegistryRW), `{"path":"HKLM\\x","data":{"action":"write","type":"dword","value":1}}`)
	f.Add(int64(CtlDownFile), `{"path":"/a","data":{"url":"https://h/x","sha256":"00"}}`)
	f.Fuzz(func(t *testing.T, ctl int64, raw string) {
		a, err := DecodeArgs(ctl, json.RawMessage(raw))
		if err == nil {
			// What is accepted validates again after a round trip.
			b, _ := json.Marshal(a)
			if _, err := DecodeArgs(ctl, b); err != nil {
				t.Fatalf("accepted %s, refused its re-encoding %s: %v", raw, b, err)
			}
		}
	})
}

func TestControlHandlers(t *testing.T) {
	calls := 0
	hs := ControlHandlers(map[int64]ControlFunc{
		CtlDirMk: func(_ context.Context, a ControlArgs) (any, error) { calls++; return a.Path, nil },
	})
	h, ok := hs["files.dir_mk"]
	if !ok || len(hs) != 1 {
		t.Fatalf("handlers %v", hs)
	}
	if res, err := h(t.Context(), json.RawMessage(`{"path":"/x"}`)); err != nil || res != "/x" {
		t.Fatalf("%v %v", res, err)
	}
	if _, err := h(t.Context(), json.RawMessage(`{}`)); err == nil {
		t.Error("missing path accepted")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h(ctx, json.RawMessage(`{"path":"/x"}`)); err == nil {
		t.Error("started after its context ended")
	}
	if calls != 1 {
		t.Errorf("the operation ran %d times, want once", calls)
	}
}
