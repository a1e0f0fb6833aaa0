package winops

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"hostgate/internal/agentproto"
)

func regCall(t *testing.T, path string, d map[string]any) (agentproto.RegistryResult, error) {
	t.Helper()
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	res, err := call(t, agentproto.CtlRegistryRW, path, string(data))
	if err != nil {
		return agentproto.RegistryResult{}, err
	}
	return res.(agentproto.RegistryResult), nil
}

func mustReg(t *testing.T, path string, d map[string]any) agentproto.RegistryResult {
	t.Helper()
	r, err := regCall(t, path, d)
	if err != nil {
		t.Fatalf("%s %v: %v", path, d, err)
	}
	return r
}

// TestRegistryRoundTrip writes, reads, lists and deletes every value type
// under a scratch key of HKCU.
func TestRegistryRoundTrip(t *testing.T) {
	key := fmt.Sprintf(`HKCU\Software\hostgate-test-%d`, rand.Uint64())
	t.Cleanup(func() { _, _ = regCall(t, key, map[string]any{"action": "delete_key", "recursive": true}) })

	if r := mustReg(t, key, map[string]any{"action": "create_key"}); !r.Changed {
		t.Error("create_key of a new key: changed false")
	}
	if r := mustReg(t, key, map[string]any{"action": "create_key"}); r.Changed {
		t.Error("create_key of an existing key: changed true")
	}
	values := []struct {
		name, typ string
		in        any // JSON value written
		want      any // value read back
	}{
		{"", "sz", "default value", "default value"},
		{"greeting", "sz", "hello", "hello"},
		{"服务器名称", "sz", "游戏服务器 一区 ✓", "游戏服务器 一区 ✓"},
		{"empty", "sz", "", ""},
		{"path", "expand_sz", `%SystemRoot%\system32`, `%SystemRoot%\system32`},
		{"list", "multi_sz", []string{"one", "二", "three four"}, []string{"one", "二", "three four"}},
		{"nolist", "multi_sz", []string{}, []string{}},
		{"d", "dword", uint64(4294967295), uint32(4294967295)},
		{"d0", "dword", 0, uint32(0)},
		{"q", "qword", uint64(18446744073709551615), uint64(18446744073709551615)},
		{"qs", "qword", "9007199254740993", uint64(9007199254740993)},
		{"bin", "binary", "AAEC/w==", "AAEC/w=="},
	}
	for _, v := range values {
		r := mustReg(t, key, map[string]any{"action": "write", "name": v.name, "type": v.typ, "value": v.in})
		if !r.Changed {
			t.Errorf("write %q: changed false", v.name)
		}
	}
	for _, v := range values {
		r := mustReg(t, key, map[string]any{"action": "read", "name": v.name})
		if r.Value == nil || r.Value.Name != v.name || r.Value.Type != v.typ || !reflect.DeepEqual(r.Value.Value, v.want) {
			t.Errorf("read %q = %+v, want %s %#v", v.name, r.Value, v.typ, v.want)
		}
	}
	// Overwrite with another type.
	mustReg(t, key, map[string]any{"action": "write", "name": "d", "type": "sz", "value": "now a string"})
	if r := mustReg(t, key, map[string]any{"action": "read", "name": "d"}); r.Value.Type != "sz" || r.Value.Value != "now a string" {
		t.Errorf("overwritten value %+v", r.Value)
	}

	// A write creates missing keys on the way.
	sub := key + `\子键\deeper`
	mustReg(t, sub, map[string]any{"action": "write", "name": "x", "type": "dword", "value": 7})
	list := mustReg(t, key, map[string]any{"action": "list"})
	if !reflect.DeepEqual(list.Subkeys, []string{"子键"}) {
		t.Errorf("subkeys %q", list.Subkeys)
	}
	types := map[string]string{}
	for _, v := range list.Values {
		if v.Value != nil {
			t.Errorf("list returned the data of %q", v.Name)
		}
		types[v.Name] = v.Type
	}
	if len(types) != len(values) || types[""] != "sz" || types["list"] != "multi_sz" || types["bin"] != "binary" || types["q"] != "qword" || types["d"] != "sz" {
		t.Errorf("listed values %v", list.Values)
	}

	if r := mustReg(t, key, map[string]any{"action": "delete_value", "name": "greeting"}); !r.Changed {
		t.Error("delete_value: changed false")
	}
	if r := mustReg(t, key, map[string]any{"action": "delete_value", "name": "greeting"}); r.Changed {
		t.Error("delete_value of a deleted value: changed true")
	}
	if _, err := regCall(t, key, map[string]any{"action": "read", "name": "greeting"}); errCode(err) != CodeNotFound {
		t.Errorf("read of a deleted value: %v", err)
	}

	if _, err := regCall(t, key, map[string]any{"action": "delete_key"}); errCode(err) != CodeKeyNotEmpty {
		t.Errorf("delete_key with subkeys: %v, want key_not_empty", err)
	}
	if r := mustReg(t, sub, map[string]any{"action": "delete_key"}); !r.Changed {
		t.Error("delete_key of a leaf: changed false")
	}
	if r := mustReg(t, key, map[string]any{"action": "delete_key", "recursive": true}); !r.Changed {
		t.Error("recursive delete_key: changed false")
	}
	if _, err := regCall(t, key, map[string]any{"action": "list"}); errCode(err) != CodeNotFound {
		t.Errorf("list of a deleted key: %v", err)
	}
	if r := mustReg(t, key, map[string]any{"action": "delete_key"}); r.Changed {
		t.Error("delete_key of a missing key: changed true")
	}
	if r := mustReg(t, key, map[string]any{"action": "delete_value", "name": "x"}); r.Changed {
		t.Error("delete_value in a missing key: changed true")
	}
}

func TestRegistryReadsSystemKeys(t *testing.T) {
	r := mustReg(t, `HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion`, map[string]any{"action": "read", "name": "CurrentVersion"})
	if r.Value == nil || r.Value.Type != "sz" || r.Value.Value == "" {
		t.Errorf("CurrentVersion = %+v", r.Value)
	}
	if l := mustReg(t, `HKLM`, map[string]any{"action": "list"}); len(l.Subkeys) == 0 {
		t.Error("HKLM has no subkeys")
	}
	if _, err := regCall(t, `HKLM\SOFTWARE\hostgate-no-such-key`, map[string]any{"action": "read"}); errCode(err) != CodeNotFound {
		t.Errorf("missing key: %v", err)
	}
}
