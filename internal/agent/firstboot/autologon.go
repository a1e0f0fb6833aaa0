package firstboot

import "errors"

// AutoLogon configures the machine to log an account on automatically at
// boot, so that the agent's logon worker task runs in a desktop session.
type AutoLogon interface {
	// Configure sets automatic logon of user with password. It must not
	// put the password in any error or output.
	Configure(user, password string) error
}

// ErrAutoLogonUnsupported is NewAutoLogon's error outside Windows.
var ErrAutoLogonUnsupported = errors.New("the self-managed-logon variant (automatic logon) is supported on Windows only")

// Winlogon is the registry key and values of Windows automatic logon.
const (
	WinlogonKey          = `SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon`
	ValueAutoAdminLogon  = "AutoAdminLogon"
	ValueDefaultUserName = "DefaultUserName"
	ValueDefaultPassword = "DefaultPassword"
	ValueDefaultDomain   = "DefaultDomainName"
)

// Registry is the part of HKEY_LOCAL_MACHINE the Windows AutoLogon writes.
type Registry interface {
	// SetStrings sets string (REG_SZ) values under key, creating the key.
	SetStrings(key string, values map[string]string) error
}

// WinlogonAutoLogon is the Windows automatic logon: in HKLM\WinlogonKey,
// AutoAdminLogon "1", DefaultUserName, DefaultPassword and, for a local
// account, DefaultDomainName "." (the machine itself).
type WinlogonAutoLogon struct{ Registry Registry }

// Configure implements AutoLogon.
func (w WinlogonAutoLogon) Configure(user, password string) error {
	v := map[string]string{ValueAutoAdminLogon: "1", ValueDefaultUserName: user, ValueDefaultPassword: password}
	if d, u, ok := cutDomain(user); ok {
		v[ValueDefaultDomain], v[ValueDefaultUserName] = d, u
	} else {
		v[ValueDefaultDomain] = "."
	}
	return w.Registry.SetStrings(WinlogonKey, v)
}

// cutDomain splits DOMAIN\user.
func cutDomain(user string) (domain, name string, ok bool) {
	for i := 0; i < len(user); i++ {
		if user[i] == '\\' {
			return user[:i], user[i+1:], i > 0 && i < len(user)-1
		}
	}
	return "", user, false
}
