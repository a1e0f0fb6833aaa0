//go:build unix

package main

import "golang.org/x/sys/unix"

// raiseFileLimit raises the soft limit on open files to the hard one:
// each simulated agent holds a socket. It returns the limit now in force.
func raiseFileLimit() (uint64, error) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur < r.Max {
		r.Cur = r.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &r); err != nil {
			return 0, err
		}
	}
	return r.Cur, nil
}
