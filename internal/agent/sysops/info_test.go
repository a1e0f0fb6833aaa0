package sysops

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"

	"hostgate/internal/agentproto"
)

func TestCollectInfoFromSource(t *testing.T) {
	clock := newFakeClock()
	src := fakeSource(clock, newFakeCounters())
	got := collectInfo(context.Background(), src, "1.2.3")
	want := agentproto.SystemInfo{
		OS: runtime.GOOS, Platform: "debian", PlatformVersion: "12.8", KernelVersion: "6.1.0-28-amd64",
		Arch: "amd64", Hostname: "fakehost", CPUModel: "AMD EPYC 7B13", CPUCores: 2, CPUThreads: 4,
		MemTotalBytes: 1000, MemAvailBytes: 250,
		Disks: []agentproto.DiskInfo{
			{Path: "/", FSType: "ext4", TotalBytes: 100, FreeBytes: 60, UsedPct: 40},
			{Path: "/data", FSType: "xfs", TotalBytes: 100, FreeBytes: 60, UsedPct: 40},
		},
		Interfaces:   []agentproto.NetInterface{{Name: "lo", Addrs: []string{"127.0.0.1/8"}, Up: true}},
		UptimeS:      3600,
		BootTime:     clock.now().Add(-time.Hour),
		AgentVersion: "1.2.3",
	}
	assertInfo(t, got, want)
}

// TestCollectInfoFillsWhatItCan: with every reading failing the answer
// still comes, with the parts that need no reading (OS, arch, threads,
// agent version) and empty lists rather than nulls.
func TestCollectInfoFillsWhatItCan(t *testing.T) {
	clock := newFakeClock()
	src := fakeSource(clock, newFakeCounters())
	src.hostname = func() (string, error) { return "", errFake }
	src.platform = func(context.Context) (string, string, string, error) { return "", "", "", errFake }
	src.kernel = func(context.Context) (string, error) { return "", errFake }
	src.kernelArch = func() (string, error) { return "", errFake }
	src.cpuInfo = func(context.Context) ([]cpu.InfoStat, error) { return nil, errFake }
	src.cpuCounts = func(context.Context, bool) (int, error) { return 0, errFake }
	src.memory = func(context.Context) (*mem.VirtualMemoryStat, error) { return nil, errFake }
	src.uptime = func(context.Context) (uint64, error) { return 0, errFake }
	src.bootTime = func(context.Context) (uint64, error) { return 0, errFake }
	src.partitions = func(context.Context) ([]disk.PartitionStat, error) { return nil, errFake }
	src.interfaces = func() ([]agentproto.NetInterface, error) { return nil, errFake }

	got := collectInfo(context.Background(), src, "1.2.3")
	want := agentproto.SystemInfo{
		OS: runtime.GOOS, Arch: normalizeArch(runtime.GOARCH), CPUThreads: runtime.NumCPU(),
		Disks: []agentproto.DiskInfo{}, Interfaces: []agentproto.NetInterface{}, AgentVersion: "1.2.3",
	}
	assertInfo(t, got, want)
}

// TestCollectInfoSkipsOneBadDisk: a volume that cannot be stat'ed is left
// out and the others stay.
func TestCollectInfoSkipsOneBadDisk(t *testing.T) {
	src := fakeSource(newFakeClock(), newFakeCounters())
	src.usage = func(_ context.Context, p string) (*disk.UsageStat, error) {
		if p == "/data" {
			return nil, errFake
		}
		return &disk.UsageStat{Total: 10, Free: 5, UsedPercent: 50}, nil
	}
	got := collectInfo(context.Background(), src, "v")
	if len(got.Disks) != 1 || got.Disks[0].Path != "/" {
		t.Fatalf("disks = %+v, want only /", got.Disks)
	}
	if got.Hostname != "fakehost" || got.MemTotalBytes != 1000 {
		t.Errorf("other parts lost: %+v", got)
	}
}

func TestFillPlatformVersionFallsBackToBuild(t *testing.T) {
	src := fakeSource(newFakeClock(), newFakeCounters())
	src.platform = func(context.Context) (string, string, string, error) {
		return "Microsoft Windows Server 2016 Standard", "Server", "", nil
	}
	src.kernel = func(context.Context) (string, error) { return "10.0.14393.6452 Build 14393.6452", nil }
	var info agentproto.SystemInfo
	fillPlatform(context.Background(), src, &info)
	if info.PlatformVersion != "10.0.14393.6452" {
		t.Errorf("platform version = %q", info.PlatformVersion)
	}
}

func TestFillUptime(t *testing.T) {
	clock := newFakeClock()
	now := clock.now()
	ok := func(v uint64) func(context.Context) (uint64, error) {
		return func(context.Context) (uint64, error) { return v, nil }
	}
	fail := func(context.Context) (uint64, error) { return 0, errFake }
	boot := uint64(now.Unix()) - 7200
	tests := []struct {
		name     string
		up, bt   func(context.Context) (uint64, error)
		wantUp   uint64
		wantBoot time.Time
	}{
		{"both", ok(7201), ok(boot), 7201, now.Add(-2 * time.Hour)},
		{"uptime only", ok(60), fail, 60, now.Add(-time.Minute)},
		{"boot time only", fail, ok(boot), 7200, now.Add(-2 * time.Hour)},
		{"neither", fail, fail, 0, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := fakeSource(clock, newFakeCounters())
			src.uptime, src.bootTime = tt.up, tt.bt
			var info agentproto.SystemInfo
			fillUptime(context.Background(), src, &info)
			if info.UptimeS != tt.wantUp || !info.BootTime.Equal(tt.wantBoot) {
				t.Errorf("uptime %d boot %v, want %d %v", info.UptimeS, info.BootTime, tt.wantUp, tt.wantBoot)
			}
		})
	}
}

func TestNormalizeArch(t *testing.T) {
	tests := map[string]string{
		"x86_64": "amd64", "AMD64": "amd64", "aarch64": "arm64", "arm64": "arm64",
		"i686": "386", "i386": "386", "armv7l": "arm", "arm": "arm",
		"riscv64": "riscv64", "loongarch64": "loong64", " s390x\n": "s390x", "": "",
	}
	for in, want := range tests {
		if got := normalizeArch(in); got != want {
			t.Errorf("normalizeArch(%q) = %q, want %q", in, got, want)
		}
	}
}

func assertInfo(t *testing.T, got, want agentproto.SystemInfo) {
	t.Helper()
	if !got.BootTime.Equal(want.BootTime) {
		t.Errorf("boot time = %v, want %v", got.BootTime, want.BootTime)
	}
	got.BootTime, want.BootTime = time.Time{}, time.Time{}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("info:\n got %s\nwant %s", g, w)
	}
}
