package sysops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"

	"hostgate/internal/agentproto"
)

// TestSamplerFirstSampleMeasuresWindow: with no earlier reading the
// sampler waits firstWindow and takes the rates over it.
func TestSamplerFirstSampleMeasuresWindow(t *testing.T) {
	clock, counters := newFakeClock(), newFakeCounters()
	src := fakeSource(clock, counters)
	src.sleep = func(ctx context.Context, d time.Duration) error {
		counters.add(1, 3, 500, 250) // during the window: 25% busy
		return clock.sleep(ctx, d)
	}
	got, err := newSampler(src).Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := agentproto.Metrics{CPUPct: 25, MemPct: 75, DiskPct: 40, NetRxBps: 1000, NetTxBps: 500, TCPConns: 7, UptimeS: 3600}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if s := clock.sleeps(); len(s) != 1 || s[0] != firstWindow {
		t.Errorf("slept %v, want one %v", s, firstWindow)
	}
}

// TestSamplerRatesOverCallerInterval: a periodic caller gets the rates
// over its own interval, with no extra wait.
func TestSamplerRatesOverCallerInterval(t *testing.T) {
	clock, counters := newFakeClock(), newFakeCounters()
	s := newSampler(fakeSource(clock, counters))
	if _, err := s.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		busy, idle float64
		rx, tx     uint64
		wantCPU    float64
		wantRx     float64
	}{
		{30, 90, 60_000, 6_000, 25, 1000},
		{120, 0, 0, 0, 100, 0},
		{0, 120, 120_000_000, 0, 0, 2_000_000},
	} {
		clock.advance(time.Minute)
		counters.add(step.busy, step.idle, step.rx, step.tx)
		got, err := s.Sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got.CPUPct != step.wantCPU || got.NetRxBps != step.wantRx || got.NetTxBps != float64(step.tx)/60 {
			t.Errorf("step %+v: got %+v", step, got)
		}
	}
	if n := len(clock.sleeps()); n != 1 {
		t.Errorf("slept %d times, want only for the first sample", n)
	}
}

// TestSamplerRecentReadingWaits: a sample right after another waits until
// firstWindow after that one, rather than dividing by a few milliseconds.
func TestSamplerRecentReadingWaits(t *testing.T) {
	clock, counters := newFakeClock(), newFakeCounters()
	s := newSampler(fakeSource(clock, counters))
	if _, err := s.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock.advance(100 * time.Millisecond)
	if _, err := s.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{firstWindow, firstWindow - 100*time.Millisecond}
	if got := clock.sleeps(); len(got) != 2 || got[1] != want[1] {
		t.Errorf("slept %v, want %v", got, want)
	}
}

func TestSamplerWindowEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newSampler(fakeSource(newFakeClock(), newFakeCounters())).Sample(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestWaitForKeepsWithinDeadline(t *testing.T) {
	if got := waitFor(context.Background(), time.Second); got != time.Second {
		t.Errorf("no deadline: %v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if got := waitFor(ctx, time.Second); got > 100*time.Millisecond || got <= 0 {
		t.Errorf("200 ms left: waits %v, want at most half", got)
	}
	if got := waitFor(context.Background(), -time.Second); got != 0 {
		t.Errorf("negative: %v", got)
	}
}

// TestSamplerReportsWhatItCan: failing parts stay zero, the rest comes,
// and only a sample with no part at all is an error.
func TestSamplerReportsWhatItCan(t *testing.T) {
	clock, counters := newFakeClock(), newFakeCounters()
	src := fakeSource(clock, counters)
	src.netCounters = func(context.Context) (map[string]nicBytes, error) { return nil, errFake }
	src.tcpConns = func(context.Context) (int64, error) { return 0, errFake }
	src.usage = func(context.Context, string) (*disk.UsageStat, error) { return nil, errFake }
	got, err := newSampler(src).Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.MemPct != 75 || got.UptimeS != 3600 || got.NetRxBps != 0 || got.TCPConns != 0 || got.DiskPct != 0 {
		t.Errorf("got %+v", got)
	}

	src.cpuTimes = func(context.Context) (cpu.TimesStat, error) { return cpu.TimesStat{}, errFake }
	src.memory = func(context.Context) (*mem.VirtualMemoryStat, error) { return nil, errFake }
	src.uptime = func(context.Context) (uint64, error) { return 0, errFake }
	_, err = newSampler(src).Sample(context.Background())
	if err == nil || !errors.Is(err, errFake) || !strings.Contains(err.Error(), "tcp connections") {
		t.Fatalf("err = %v, want every part's error", err)
	}
}

func TestCPUPercent(t *testing.T) {
	base := cpu.TimesStat{User: 100, System: 50, Idle: 800, Iowait: 50}
	tests := []struct {
		name string
		next cpu.TimesStat
		want float64
	}{
		{"no time passed", base, 0},
		{"half busy", cpu.TimesStat{User: 110, System: 55, Idle: 810, Iowait: 55}, 50},
		{"iowait is idle", cpu.TimesStat{User: 100, System: 50, Idle: 800, Iowait: 60}, 0},
		{"steal and irq are busy", cpu.TimesStat{User: 100, System: 50, Idle: 810, Iowait: 50, Steal: 5, Irq: 3, Softirq: 2}, 50},
		{"guest not counted twice", cpu.TimesStat{User: 110, System: 50, Idle: 810, Iowait: 50, Guest: 10}, 50},
		{"one third", cpu.TimesStat{User: 101, System: 50, Idle: 802, Iowait: 50}, 33.33},
		{"counters went back", cpu.TimesStat{User: 10, Idle: 10}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpuPercent(base, tt.next); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSetNet(t *testing.T) {
	at := time.Unix(1000, 0)
	base := reading{at: at, nics: map[string]nicBytes{"eth0": {rx: 1000, tx: 1000}, "eth1": {rx: 5000, tx: 5000}, "gone": {rx: 1}}}
	cur := reading{at: at.Add(2 * time.Second), nics: map[string]nicBytes{
		"eth0": {rx: 3000, tx: 1001},  // +2000, +1
		"eth1": {rx: 10, tx: 5400},    // reset: rx adds nothing, +400
		"new":  {rx: 99999, tx: 9999}, // no base: nothing
	}}
	var m agentproto.Metrics
	if err := setNet(&m, base, cur); err != nil {
		t.Fatal(err)
	}
	if m.NetRxBps != 1000 || m.NetTxBps != 200.5 {
		t.Errorf("rx %v tx %v, want 1000 200.5", m.NetRxBps, m.NetTxBps)
	}
	if err := setNet(&m, base, base); err == nil {
		t.Error("no time between readings gave no error")
	}
}

func TestSetMem(t *testing.T) {
	tests := []struct {
		vm      *mem.VirtualMemoryStat
		want    float64
		wantErr bool
	}{
		{&mem.VirtualMemoryStat{Total: 8, Available: 2}, 75, false},
		{&mem.VirtualMemoryStat{Total: 8, Available: 9}, 0, false},
		{&mem.VirtualMemoryStat{Total: 3, Available: 0}, 100, false},
		{&mem.VirtualMemoryStat{}, 0, true},
		{nil, 0, true},
	}
	for _, tt := range tests {
		src := fakeSource(newFakeClock(), newFakeCounters())
		src.memory = func(context.Context) (*mem.VirtualMemoryStat, error) { return tt.vm, nil }
		var m agentproto.Metrics
		err := newSampler(src).setMem(context.Background(), &m)
		if (err != nil) != tt.wantErr || m.MemPct != tt.want {
			t.Errorf("%+v: got %v, %v", tt.vm, m.MemPct, err)
		}
	}
}

func TestRoundPct(t *testing.T) {
	for in, want := range map[float64]float64{-1: 0, 0: 0, 12.345: 12.35, 99.994: 99.99, 100: 100, 150: 100} {
		if got := roundPct(in); got != want {
			t.Errorf("roundPct(%v) = %v, want %v", in, got, want)
		}
	}
}
