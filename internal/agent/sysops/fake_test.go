package sysops

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"

	"hostgate/internal/agentproto"
)

// fakeClock is a clock whose sleeps advance it at once.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	return nil
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// fakeCounters are rate counters a test moves forward.
type fakeCounters struct {
	mu   sync.Mutex
	cpu  cpu.TimesStat
	nics map[string]nicBytes
}

func (f *fakeCounters) times(context.Context) (cpu.TimesStat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cpu, nil
}

func (f *fakeCounters) net(context.Context) (map[string]nicBytes, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]nicBytes, len(f.nics))
	for k, v := range f.nics {
		out[k] = v
	}
	return out, nil
}

// add moves the counters: busy and idle CPU seconds, bytes on eth0.
func (f *fakeCounters) add(busy, idle float64, rx, tx uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cpu.User += busy
	f.cpu.Idle += idle
	n := f.nics["eth0"]
	n.rx += rx
	n.tx += tx
	f.nics["eth0"] = n
}

var errFake = errors.New("fake failure")

// fakeSource is a host with fixed answers and a fake clock.
func fakeSource(clock *fakeClock, counters *fakeCounters) *source {
	return &source{
		hostname: func() (string, error) { return "fakehost", nil },
		platform: func(context.Context) (string, string, string, error) {
			return "debian", "debian", "12.8", nil
		},
		kernel:     func(context.Context) (string, error) { return "6.1.0-28-amd64", nil },
		kernelArch: func() (string, error) { return "x86_64", nil },
		cpuInfo: func(context.Context) ([]cpu.InfoStat, error) {
			return []cpu.InfoStat{{ModelName: " AMD EPYC 7B13 "}, {ModelName: "AMD EPYC 7B13"}}, nil
		},
		cpuCounts: func(_ context.Context, logical bool) (int, error) {
			if logical {
				return 4, nil
			}
			return 2, nil
		},
		memory: func(context.Context) (*mem.VirtualMemoryStat, error) {
			return &mem.VirtualMemoryStat{Total: 1000, Available: 250}, nil
		},
		uptime:   func(context.Context) (uint64, error) { return 3600, nil },
		bootTime: func(context.Context) (uint64, error) { return uint64(clock.now().Unix()) - 3600, nil },
		partitions: func(context.Context) ([]disk.PartitionStat, error) {
			return []disk.PartitionStat{
				{Device: "/dev/vda1", Mountpoint: "/", Fstype: "ext4"},
				{Device: "proc", Mountpoint: "/proc", Fstype: "proc"},
				{Device: "/dev/vdb", Mountpoint: "/data", Fstype: "xfs"},
			}, nil
		},
		usage: func(_ context.Context, p string) (*disk.UsageStat, error) {
			return &disk.UsageStat{Path: p, Total: 100, Free: 60, Used: 40, UsedPercent: 40}, nil
		},
		systemVolume: func() string { return "/" },
		interfaces: func() ([]agentproto.NetInterface, error) {
			return []agentproto.NetInterface{{Name: "lo", Addrs: []string{"127.0.0.1/8"}, Up: true}}, nil
		},
		cpuTimes:    counters.times,
		netCounters: counters.net,
		tcpConns:    func(context.Context) (int64, error) { return 7, nil },
		now:         clock.now,
		sleep:       clock.sleep,
	}
}

func newFakeCounters() *fakeCounters {
	return &fakeCounters{cpu: cpu.TimesStat{User: 100, Idle: 900}, nics: map[string]nicBytes{"eth0": {rx: 1000, tx: 500}}}
}
