//go:build !windows

package firstboot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"hostgate/internal/agent/install"
)

// DefaultInstaller installs as `hostgate-agent install` does (the Linux
// one-line installer's path): the setup file, the systemd unit (or a
// detached agent without systemd), the agent started; then it writes
// install.done, which the Linux install itself does not.
func DefaultInstaller(in Install, stdout, stderr io.Writer) int {
	return linuxInstall(in, install.LinuxMain, stdout, stderr)
}

// linuxMain is install.LinuxMain's signature.
type linuxMain func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

func linuxInstall(in Install, main linuxMain, stdout, stderr io.Writer) int {
	setup, err := json.Marshal(in.Hub) // the install credentials' keys
	if err != nil {
		(&Failure{Code: "internal", Exit: ExitOther, Msg: "encode the setup: " + err.Error()}).report(stderr)
		return ExitOther
	}
	args := []string{"--config", "-", "--state-dir", in.StateDir}
	if in.Prefix != "" {
		args = append(args, "--prefix", in.Prefix)
	}
	if in.Service != "" {
		args = append(args, "--service", in.Service)
	}
	if code := main(args, bytes.NewReader(setup), stdout, stderr); code != install.ExitOK {
		return code
	}
	if err := writeMarker(in.StateDir, in.Hub.HostID, time.Now()); err != nil {
		(&Failure{Code: "internal", Exit: ExitOther, Msg: fmt.Sprintf("the agent is installed, but %s was not written: %v",
			install.MarkerFileName, err), Hint: "check that the state directory is writable"}).report(stderr)
		return ExitOther
	}
	return install.ExitOK
}
