package sysops

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// tcpEstablished is the kernel's TCP_ESTABLISHED state number, as printed
// (hexadecimal) in the st column of /proc/net/tcp and /proc/net/tcp6.
const tcpEstablished = 0x01

// countEstablished counts the sockets in state ESTABLISHED in a
// /proc/net/tcp or /proc/net/tcp6 table:
//
//	sl  local_address rem_address   st tx_queue rx_queue ...
//	 0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 ...
//
// The header and blank lines are skipped. A row whose slot or state
// column is not as above is an error, so that a change of format shows
// instead of being read as zero connections.
func countEstablished(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	var n int64
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || (line == 1 && f[0] == "sl") {
			continue
		}
		st, err := rowState(f)
		if err != nil {
			return 0, fmt.Errorf("line %d: %w", line, err)
		}
		if st == tcpEstablished {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return n, nil
}

// rowState checks a row's slot column ("12:") and returns its state.
func rowState(f []string) (uint64, error) {
	if len(f) < 4 {
		return 0, fmt.Errorf("%d columns, want at least 4", len(f))
	}
	slot, ok := strings.CutSuffix(f[0], ":")
	if _, err := strconv.ParseUint(slot, 10, 32); !ok || err != nil {
		return 0, fmt.Errorf("bad slot %q", f[0])
	}
	if len(f[3]) != 2 {
		return 0, fmt.Errorf("bad state %q", f[3])
	}
	st, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil {
		return 0, fmt.Errorf("bad state %q", f[3])
	}
	return st, nil
}
