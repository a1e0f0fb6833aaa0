package sysops

import (
	"context"
	"runtime"
	"strings"
	"time"

	"hostgate/internal/agentproto"
)

// collectInfo answers SYSTEM_INFO. It never fails: a part the host does
// not tell is left empty (zero, "" or an empty list) and the rest is
// still reported.
func collectInfo(ctx context.Context, src *source, agentVersion string) agentproto.SystemInfo {
	info := agentproto.SystemInfo{OS: runtime.GOOS, AgentVersion: agentVersion}
	info.Hostname, _ = src.hostname()
	fillPlatform(ctx, src, &info)
	fillCPU(ctx, src, &info)
	if vm, err := src.memory(ctx); err == nil && vm != nil {
		info.MemTotalBytes, info.MemAvailBytes = vm.Total, vm.Available
	}
	fillUptime(ctx, src, &info)
	info.Disks = listDisks(ctx, src, diskGuard)
	info.Interfaces = listInterfaces(src)
	return info
}

// fillPlatform sets the OS release, kernel and architecture fields.
func fillPlatform(ctx context.Context, src *source, info *agentproto.SystemInfo) {
	info.Platform, _, info.PlatformVersion, _ = src.platform(ctx)
	info.KernelVersion, _ = src.kernel(ctx)
	if info.PlatformVersion == "" && info.KernelVersion != "" {
		// Windows before 20H2 has no DisplayVersion ("22H2"); its build
		// number is the next best version a person can look up.
		info.PlatformVersion = strings.Fields(info.KernelVersion)[0]
	}
	arch, err := src.kernelArch()
	if err != nil || arch == "" {
		arch = runtime.GOARCH
	}
	info.Arch = normalizeArch(arch)
}

// fillCPU sets the processor model and counts. Cores is the number of
// physical cores, threads the number of logical processors.
func fillCPU(ctx context.Context, src *source, info *agentproto.SystemInfo) {
	if cs, err := src.cpuInfo(ctx); err == nil {
		for _, c := range cs {
			if m := strings.TrimSpace(c.ModelName); m != "" {
				info.CPUModel = m
				break
			}
		}
	}
	if n, err := src.cpuCounts(ctx, false); err == nil {
		info.CPUCores = n
	}
	if n, err := src.cpuCounts(ctx, true); err == nil && n > 0 {
		info.CPUThreads = n
	} else {
		info.CPUThreads = runtime.NumCPU()
	}
}

// fillUptime sets uptime and boot time; when only one of them can be
// read, the other is derived from it and the clock.
func fillUptime(ctx context.Context, src *source, info *agentproto.SystemInfo) {
	up, upErr := src.uptime(ctx)
	boot, bootErr := src.bootTime(ctx)
	now := src.now()
	switch {
	case upErr == nil && bootErr == nil && boot > 0:
		info.UptimeS, info.BootTime = up, time.Unix(int64(boot), 0).UTC()
	case upErr == nil:
		info.UptimeS = up
		info.BootTime = now.Add(-time.Duration(up) * time.Second).Truncate(time.Second).UTC()
	case bootErr == nil && boot > 0:
		info.BootTime = time.Unix(int64(boot), 0).UTC()
		if d := now.Sub(info.BootTime); d > 0 {
			info.UptimeS = uint64(d / time.Second)
		}
	}
}

// normalizeArch maps the kernel's machine name (uname's "x86_64",
// "aarch64", Windows' "i686") to Go's names (amd64, arm64, 386), so that
// the same hardware reads the same on Linux and Windows. Unknown names
// pass through.
func normalizeArch(machine string) string {
	m := strings.ToLower(strings.TrimSpace(machine))
	switch m {
	case "x86_64", "amd64", "x64":
		return "amd64"
	case "aarch64", "arm64", "armv8l", "armv8b":
		return "arm64"
	case "i386", "i486", "i586", "i686", "x86":
		return "386"
	case "loongarch64":
		return "loong64"
	}
	if strings.HasPrefix(m, "armv") || m == "arm" {
		return "arm"
	}
	return m
}
