//go:build !windows

package watchdog

// NewServices reports ErrUnsupported: only Windows has the agent service.
func NewServices() (Services, error) { return nil, ErrUnsupported }
