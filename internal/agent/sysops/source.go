package sysops

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"
	gnet "github.com/shirou/gopsutil/v4/net"

	"hostgate/internal/agentproto"
)

// source is where every reading comes from. systemSource reads the real
// host; tests replace single parts to check how the answers are put
// together and that one failing part leaves the rest intact.
type source struct {
	hostname   func() (string, error)
	platform   func(context.Context) (platform, family, version string, err error)
	kernel     func(context.Context) (string, error)
	kernelArch func() (string, error)
	cpuInfo    func(context.Context) ([]cpu.InfoStat, error)
	cpuCounts  func(ctx context.Context, logical bool) (int, error)
	memory     func(context.Context) (*mem.VirtualMemoryStat, error)
	uptime     func(context.Context) (uint64, error)
	bootTime   func(context.Context) (uint64, error)

	// partitions lists mounted volumes, pseudo file systems included; a
	// partial list comes with an error.
	partitions func(context.Context) ([]disk.PartitionStat, error)
	usage      func(ctx context.Context, path string) (*disk.UsageStat, error)
	// systemVolume is the volume of disk_pct: / or the Windows system drive.
	systemVolume func() string
	// interfaces lists network interfaces with their addresses.
	interfaces func() ([]agentproto.NetInterface, error)

	// cpuTimes is the CPU time of all CPUs together since boot.
	cpuTimes func(context.Context) (cpu.TimesStat, error)
	// netCounters are the byte counters of the non-loopback interfaces.
	netCounters func(context.Context) (map[string]nicBytes, error)
	// tcpConns counts established TCP connections (IPv4 and IPv6).
	tcpConns func(context.Context) (int64, error)

	now   func() time.Time
	sleep func(context.Context, time.Duration) error
}

// systemSource reads the host this agent runs on.
func systemSource() *source {
	return &source{
		hostname:     os.Hostname,
		platform:     host.PlatformInformationWithContext,
		kernel:       host.KernelVersionWithContext,
		kernelArch:   host.KernelArch,
		cpuInfo:      cpu.InfoWithContext,
		cpuCounts:    cpu.CountsWithContext,
		memory:       mem.VirtualMemoryWithContext,
		uptime:       host.UptimeWithContext,
		bootTime:     host.BootTimeWithContext,
		partitions:   func(ctx context.Context) ([]disk.PartitionStat, error) { return disk.PartitionsWithContext(ctx, true) },
		usage:        disk.UsageWithContext,
		systemVolume: systemVolume,
		interfaces:   readInterfaces,
		cpuTimes:     totalCPUTimes,
		netCounters:  readNetCounters,
		tcpConns:     countTCPEstablished,
		now:          time.Now,
		sleep:        sleepCtx,
	}
}

// totalCPUTimes is cpu.Times summed over all CPUs.
func totalCPUTimes(ctx context.Context) (cpu.TimesStat, error) {
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return cpu.TimesStat{}, err
	}
	if len(ts) == 0 {
		return cpu.TimesStat{}, errors.New("cpu times: none reported")
	}
	return ts[0], nil
}

// readNetCounters reads the per-interface byte counters and drops the
// loopback ones: traffic the host sends to itself is not network load.
func readNetCounters(ctx context.Context) (map[string]nicBytes, error) {
	cs, err := gnet.IOCountersWithContext(ctx, true)
	if err != nil {
		return nil, err
	}
	return nonLoopback(cs, loopbackNames()), nil
}

// sleepCtx waits d or until ctx ends, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
