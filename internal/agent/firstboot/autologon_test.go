package firstboot

import (
	"errors"
	"maps"
	"testing"
)

type fakeRegistry struct {
	key    string
	values map[string]string
	err    error
}

func (f *fakeRegistry) SetStrings(key string, values map[string]string) error {
	f.key, f.values = key, maps.Clone(values)
	return f.err
}

func TestWinlogonAutoLogon(t *testing.T) {
	for _, tc := range []struct {
		user string
		want map[string]string
	}{
		{"Administrator", map[string]string{"AutoAdminLogon": "1", "DefaultUserName": "Administrator", "DefaultPassword": testLogon, "DefaultDomainName": "."}},
		{`CORP\ops`, map[string]string{"AutoAdminLogon": "1", "DefaultUserName": "ops", "DefaultPassword": testLogon, "DefaultDomainName": "CORP"}},
	} {
		reg := &fakeRegistry{}
		if err := (WinlogonAutoLogon{Registry: reg}).Configure(tc.user, testLogon); err != nil {
			t.Fatal(err)
		}
		if reg.key != `SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon` || !maps.Equal(reg.values, tc.want) {
			t.Errorf("%s: wrote %s %v\nwant %v", tc.user, reg.key, reg.values, tc.want)
		}
	}
	reg := &fakeRegistry{err: errors.New("access denied")}
	if err := (WinlogonAutoLogon{Registry: reg}).Configure("Administrator", testLogon); err == nil {
		t.Error("a registry failure was not reported")
	}
}
