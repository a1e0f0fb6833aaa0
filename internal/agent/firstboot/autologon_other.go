//go:build !windows

package firstboot

// NewAutoLogon refuses outside Windows.
func NewAutoLogon() (AutoLogon, error) { return nil, ErrAutoLogonUnsupported }
