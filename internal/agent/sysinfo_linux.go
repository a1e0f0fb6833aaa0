package agent

import "golang.org/x/sys/unix"

// osDescription is "linux <kernel release>".
func osDescription() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "linux"
	}
	return "linux " + unix.ByteSliceToString(u.Release[:])
}
