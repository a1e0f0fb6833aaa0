package sysops

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"

	"hostgate/internal/agentproto"
)

// setCPU sets cpu_pct: the busy share of all CPU time between the readings.
func setCPU(m *agentproto.Metrics, base, cur reading) error {
	if err := errors.Join(base.cpuErr, cur.cpuErr); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	m.CPUPct = cpuPercent(base.cpu, cur.cpu)
	return nil
}

// cpuPercent is the busy share of the CPU time that passed from a to b.
// Idle and I/O wait count as idle; guest time is left out because Linux
// counts it in user time already (elsewhere it is zero).
func cpuPercent(a, b cpu.TimesStat) float64 {
	busyA, totalA := busyTotal(a)
	busyB, totalB := busyTotal(b)
	dBusy, dTotal := busyB-busyA, totalB-totalA
	if dTotal <= 0 || dBusy <= 0 {
		return 0
	}
	return roundPct(dBusy / dTotal * 100)
}

func busyTotal(t cpu.TimesStat) (busy, total float64) {
	idle := t.Idle + t.Iowait
	total = t.User + t.Nice + t.System + t.Irq + t.Softirq + t.Steal + idle
	return total - idle, total
}

// setNet sets the receive and send rates, in bytes per second, summed
// over the interfaces present in both readings. A counter that went back
// (the interface was reset or replaced) adds nothing.
func setNet(m *agentproto.Metrics, base, cur reading) error {
	if err := errors.Join(base.nicsErr, cur.nicsErr); err != nil {
		return fmt.Errorf("network counters: %w", err)
	}
	secs := cur.at.Sub(base.at).Seconds()
	if secs <= 0 {
		return errors.New("network counters: no time between readings")
	}
	var rx, tx uint64
	for name, c := range cur.nics {
		p, ok := base.nics[name]
		if !ok {
			continue
		}
		if c.rx >= p.rx {
			rx += c.rx - p.rx
		}
		if c.tx >= p.tx {
			tx += c.tx - p.tx
		}
	}
	m.NetRxBps, m.NetTxBps = round2(float64(rx)/secs), round2(float64(tx)/secs)
	return nil
}

// setMem sets mem_pct: the share of physical memory not available to new
// programs ((total - available) / total), the same rule on every OS.
func (s *Sampler) setMem(ctx context.Context, m *agentproto.Metrics) error {
	vm, err := s.src.memory(ctx)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if vm == nil || vm.Total == 0 {
		return errors.New("memory: no total reported")
	}
	used := vm.Total - min(vm.Available, vm.Total)
	m.MemPct = roundPct(float64(used) / float64(vm.Total) * 100)
	return nil
}

// setDisk sets disk_pct, the used share of the system volume.
func (s *Sampler) setDisk(ctx context.Context, m *agentproto.Metrics) error {
	vol := s.src.systemVolume()
	u, err := guarded(ctx, diskGuard, "usage "+vol, statTimeout, func() (*disk.UsageStat, error) {
		return s.src.usage(ctx, vol)
	})
	if err == nil && u == nil {
		err = errors.New("no usage reported")
	}
	if err != nil {
		return fmt.Errorf("disk %s: %w", vol, err)
	}
	m.DiskPct = roundPct(u.UsedPercent)
	return nil
}

func (s *Sampler) setTCP(ctx context.Context, m *agentproto.Metrics) error {
	n, err := s.src.tcpConns(ctx)
	if err != nil {
		return fmt.Errorf("tcp connections: %w", err)
	}
	m.TCPConns = n
	return nil
}

func (s *Sampler) setUptime(ctx context.Context, m *agentproto.Metrics) error {
	up, err := s.src.uptime(ctx)
	if err != nil {
		return fmt.Errorf("uptime: %w", err)
	}
	m.UptimeS = int64(min(up, math.MaxInt64))
	return nil
}

// roundPct rounds a percentage to two decimals, clamped to 0..100.
func roundPct(pct float64) float64 {
	if math.IsNaN(pct) || pct < 0 {
		return 0
	}
	return round2(min(pct, 100))
}

// round2 rounds to two decimals.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
