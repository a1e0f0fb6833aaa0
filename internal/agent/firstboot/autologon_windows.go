package firstboot

import (
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// NewAutoLogon returns the Winlogon automatic logon of this machine.
func NewAutoLogon() (AutoLogon, error) { return WinlogonAutoLogon{Registry: hklm{}}, nil }

type hklm struct{}

// SetStrings implements Registry. Errors name the key and value, never
// the data.
func (hklm) SetStrings(key string, values map[string]string) error {
	k, _, err := registry.CreateKey(registry.LOCAL_MACHINE, key, registry.SET_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return fmt.Errorf(`open HKLM\%s: %w`, key, err)
	}
	defer k.Close()
	for name, v := range values {
		if err := k.SetStringValue(name, v); err != nil {
			return fmt.Errorf(`set HKLM\%s\%s: %w`, key, name, err)
		}
	}
	return nil
}
