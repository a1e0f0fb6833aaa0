//go:build !windows

package install

// NewSystem returns ErrUnsupported: the installer only targets Windows.
func NewSystem() (System, error) { return nil, ErrUnsupported }

// DefaultInstallPath is where a Linux build would install itself; it is
// only used with a System supplied by the caller (tests).
func DefaultInstallPath() string { return "/usr/local/bin/hostgate-agent" }
