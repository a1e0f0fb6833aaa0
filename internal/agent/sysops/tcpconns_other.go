//go:build !linux

package sysops

import (
	"context"

	gnet "github.com/shirou/gopsutil/v4/net"
)

// countTCPEstablished counts through gopsutil, which on Windows reads
// GetExtendedTcpTable once per address family (no per-process scan).
func countTCPEstablished(ctx context.Context) (int64, error) {
	cs, err := gnet.ConnectionsWithContext(ctx, "tcp")
	if err != nil {
		return 0, err
	}
	var n int64
	for _, c := range cs {
		if c.Status == "ESTABLISHED" {
			n++
		}
	}
	return n, nil
}
