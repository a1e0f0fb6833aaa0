package sysops

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandlersCoverTheOps(t *testing.T) {
	h := Handlers("1.0.0")
	for _, op := range []string{"system.info", "system.metrics"} {
		if h[op] == nil {
			t.Errorf("no handler for %s", op)
		}
	}
	if len(h) != 2 {
		t.Errorf("%d handlers, want 2", len(h))
	}
}

func TestHandlersRefuseBadArgs(t *testing.T) {
	h := handlers("v", fakeSource(newFakeClock(), newFakeCounters()), newSampler(fakeSource(newFakeClock(), newFakeCounters())))
	for op, fn := range h {
		for _, args := range []string{`[1]`, `"x"`, `{"path":`} {
			_, err := fn(context.Background(), json.RawMessage(args))
			var pe *agentproto.Error
			if !errors.As(err, &pe) || pe.Code != agentproto.CodeBadArgs {
				t.Errorf("%s %s: err = %v, want %s", op, args, err, agentproto.CodeBadArgs)
			}
		}
		for _, args := range []string{``, `null`, `{}`, `{"path":"ignored","data":{"x":1}}`} {
			if _, err := fn(context.Background(), json.RawMessage(args)); err != nil {
				t.Errorf("%s %q: %v", op, args, err)
			}
		}
	}
}

func TestMetricsHandlerFailure(t *testing.T) {
	src := fakeSource(newFakeClock(), newFakeCounters())
	h := handlers("v", src, newSampler(src))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := h["system.metrics"](ctx, nil)
	var pe *agentproto.Error
	if !errors.As(err, &pe) || pe.Code != agentproto.CodeFailed {
		t.Fatalf("err = %v, want code %s", err, agentproto.CodeFailed)
	}
}

// TestSystemInfoOnThisHost reads the real host through the operation.
func TestSystemInfoOnThisHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Handlers("9.9.9")["system.info"](ctx, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	info := res.(agentproto.SystemInfo)
	t.Logf("info: %s", mustJSON(t, info))
	want, _ := os.Hostname()
	if info.Hostname != want || info.OS != runtime.GOOS || info.AgentVersion != "9.9.9" {
		t.Errorf("hostname %q os %q version %q", info.Hostname, info.OS, info.AgentVersion)
	}
	if info.Arch == "" || info.CPUThreads <= 0 || info.MemTotalBytes == 0 || info.MemAvailBytes > info.MemTotalBytes {
		t.Errorf("arch %q threads %d mem %d/%d", info.Arch, info.CPUThreads, info.MemAvailBytes, info.MemTotalBytes)
	}
	if info.UptimeS == 0 || info.BootTime.IsZero() || info.BootTime.After(time.Now()) {
		t.Errorf("uptime %d boot %v", info.UptimeS, info.BootTime)
	}
	checkDisks(t, info.Disks)
	checkLoopback(t, info.Interfaces)
	for _, f := range []struct{ name, v string }{{"platform", info.Platform}, {"kernel_version", info.KernelVersion}, {"cpu_model", info.CPUModel}} {
		if f.v == "" {
			notUnderWine(t, "%s is empty", f.name)
		}
	}
	if info.CPUCores <= 0 || info.CPUCores > info.CPUThreads {
		notUnderWine(t, "cores %d threads %d", info.CPUCores, info.CPUThreads)
	}
}

func checkDisks(t *testing.T, disks []agentproto.DiskInfo) {
	t.Helper()
	if len(disks) == 0 {
		t.Fatal("no disks")
	}
	for _, d := range disks {
		if d.Path == "" || d.TotalBytes == 0 || d.FreeBytes > d.TotalBytes || d.UsedPct < 0 || d.UsedPct > 100 {
			t.Errorf("disk %+v", d)
		}
		if pseudoFS[d.FSType] {
			t.Errorf("pseudo file system listed: %+v", d)
		}
	}
	if !slices.ContainsFunc(disks, func(d agentproto.DiskInfo) bool { return strings.EqualFold(d.Path, systemVolume()) }) {
		t.Errorf("system volume %s not among %+v", systemVolume(), disks)
	}
}

func checkLoopback(t *testing.T, ifs []agentproto.NetInterface) {
	t.Helper()
	found := slices.ContainsFunc(ifs, func(n agentproto.NetInterface) bool {
		return slices.ContainsFunc(n.Addrs, func(a string) bool {
			ip, _, err := net.ParseCIDR(a)
			return err == nil && ip.IsLoopback()
		})
	})
	if !found {
		t.Errorf("no loopback interface among %+v", ifs)
	}
}

// notUnderWine fails the test, except under Wine, which does not
// implement every call gopsutil makes (SMBIOS tables, processor
// power information, parts of the registry a real Windows has).
func notUnderWine(t *testing.T, format string, a ...any) {
	t.Helper()
	if underWine() {
		t.Logf("Wine limitation, not checked: "+format, a...)
		return
	}
	t.Errorf(format, a...)
}

// TestSystemMetricsOnThisHost samples the real host through the
// operation, twice (the second from the first's reading).
func TestSystemMetricsOnThisHost(t *testing.T) {
	h := handlers("v", systemSource(), NewSampler())["system.metrics"]
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := h(ctx, nil)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		m := res.(agentproto.Metrics)
		t.Logf("sample %d: %+v", i, m)
		checkMetrics(t, m)
	}
}

func checkMetrics(t *testing.T, m agentproto.Metrics) {
	t.Helper()
	for name, pct := range map[string]float64{"cpu_pct": m.CPUPct, "mem_pct": m.MemPct, "disk_pct": m.DiskPct} {
		if pct < 0 || pct > 100 {
			t.Errorf("%s = %v", name, pct)
		}
	}
	if m.MemPct == 0 || m.DiskPct == 0 || m.UptimeS <= 0 {
		t.Errorf("mem %v disk %v uptime %d", m.MemPct, m.DiskPct, m.UptimeS)
	}
	if m.NetRxBps < 0 || m.NetTxBps < 0 || m.TCPConns < 0 {
		t.Errorf("rx %v tx %v tcp %d", m.NetRxBps, m.NetTxBps, m.TCPConns)
	}
}

// TestSamplerConcurrentUse: samples from many goroutines at once (run
// with -race) all come back sane.
func TestSamplerConcurrentUse(t *testing.T) {
	s := NewSampler()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			// Only a guard against a hang: under Wine on a loaded machine one
			// reading can take seconds.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			for range 2 {
				m, err := s.Sample(ctx)
				if err != nil {
					errs <- err
					return
				}
				if m.CPUPct < 0 || m.CPUPct > 100 || m.NetRxBps < 0 || m.NetTxBps < 0 {
					errs <- errors.New("insane sample")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTCPConnsCountsLoopbackConnection: opening established loopback
// connections raises tcp_conns. The count is the whole machine's, so other
// processes' connections come and go meanwhile: the test opens
// loopbackConns connections (twice as many established entries, one per
// end) and asks for a rise of at least loopbackConns, which other traffic
// closing fewer than that many connections cannot hide.
func TestTCPConnsCountsLoopbackConnection(t *testing.T) {
	const loopbackConns = 25
	ctx := context.Background()
	before, err := countTCPEstablished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for range loopbackConns {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
	}
	after, err := countTCPEstablished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("established before %d, after %d", before, after)
	if after < before+loopbackConns {
		if underWine() && after == 0 {
			t.Skip("Wine limitation: GetExtendedTcpTable returned no connections")
		}
		t.Errorf("established connections %d -> %d with %d loopback connections opened, want a rise of at least %d", before, after, loopbackConns, loopbackConns)
	}
}
