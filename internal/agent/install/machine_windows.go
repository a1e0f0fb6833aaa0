package install

import "errors"

// NewMachine reports that the Linux install does not run on Windows
// (--install-template is the Windows install).
func NewMachine() (Machine, error) {
	return nil, errors.New("hostgate-agent install is the Linux install; on Windows use --install-template")
}
