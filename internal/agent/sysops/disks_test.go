package sysops

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"hostgate/internal/eventually"

	"github.com/shirou/gopsutil/v4/disk"
)

func TestSelectVolumes(t *testing.T) {
	p := func(dev, mnt, fs string) disk.PartitionStat {
		return disk.PartitionStat{Device: dev, Mountpoint: mnt, Fstype: fs}
	}
	tests := []struct {
		name  string
		goos  string
		parts []disk.PartitionStat
		want  []volume
	}{
		{"pseudo file systems dropped", "linux", []disk.PartitionStat{
			p("proc", "/proc", "proc"), p("sysfs", "/sys", "sysfs"), p("tmpfs", "/dev/shm", "tmpfs"),
			p("/dev/vda", "/", "ext4"), p("cgroup2", "/sys/fs/cgroup", "cgroup2"), p("devpts", "/dev/pts", "DEVPTS"),
		}, []volume{{"/", "ext4"}}},
		{"container root kept", "linux", []disk.PartitionStat{
			p("overlay", "/", "overlay"), p("/dev/sda1", "/etc/hosts", "ext4"), p("/dev/sda1", "/etc/resolv.conf", "ext4"),
		}, []volume{{"/", "overlay"}, {"/etc/hosts", "ext4"}}},
		{"device once at shortest path", "linux", []disk.PartitionStat{
			p("/dev/sda2", "/home", "btrfs"), p("/dev/sda2", "/", "btrfs"), p("/dev/sda3", "/var", "xfs"),
		}, []volume{{"/", "btrfs"}, {"/var", "xfs"}}},
		{"empty mount path dropped", "windows", []disk.PartitionStat{
			{}, p("C:", "C:", "NTFS"), p(`D:\mnt`, `D:\mnt`, "NTFS"),
		}, []volume{{`C:\`, "NTFS"}, {`D:\mnt`, "NTFS"}}},
		{"no partitions", "linux", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := selectVolumes(tt.parts, tt.goos); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSelectVolumesCapped(t *testing.T) {
	var parts []disk.PartitionStat
	for i := range MaxDisks + 10 {
		parts = append(parts, disk.PartitionStat{Device: "overlay", Mountpoint: fmt.Sprintf("/m/%d", i), Fstype: "overlay"})
	}
	parts = append(parts, disk.PartitionStat{Device: "/dev/sdz", Mountpoint: "/z", Fstype: "ext4"})
	got := selectVolumes(parts, "linux")
	if len(got) != MaxDisks || got[MaxDisks-1].path != fmt.Sprintf("/m/%d", MaxDisks-1) {
		t.Errorf("got %d volumes, last %v", len(got), got[len(got)-1])
	}
}

func TestNormalizeMount(t *testing.T) {
	tests := []struct{ goos, in, want string }{
		{"windows", "C:", `C:\`},
		{"windows", `C:\`, `C:\`},
		{"windows", `C:\mnt\data`, `C:\mnt\data`},
		{"linux", "/", "/"},
		{"linux", "a:", "a:"},
	}
	for _, tt := range tests {
		if got := normalizeMount(tt.goos, tt.in); got != tt.want {
			t.Errorf("normalizeMount(%q, %q) = %q, want %q", tt.goos, tt.in, got, tt.want)
		}
	}
}

// TestListDisksLeavesOutHungVolume: a volume whose stat does not return
// (a hung network mount) is left out after statTimeout, and the next
// listing skips it at once until the stuck call returns.
func TestListDisksLeavesOutHungVolume(t *testing.T) {
	release := make(chan struct{})
	src := fakeSource(newFakeClock(), newFakeCounters())
	src.usage = func(_ context.Context, p string) (*disk.UsageStat, error) {
		if p == "/data" {
			<-release
		}
		return &disk.UsageStat{Total: 100, Free: 50, UsedPercent: 50}, nil
	}
	g := &guard{}
	start := time.Now()
	got := listDisks(context.Background(), src, g)
	if len(got) != 1 || got[0].Path != "/" {
		t.Fatalf("disks = %+v, want only /", got)
	}
	if d := time.Since(start); d < statTimeout || d > statTimeout+5*time.Second {
		t.Errorf("took %v, want about %v", d, statTimeout)
	}
	start = time.Now()
	if got := listDisks(context.Background(), src, g); len(got) != 1 {
		t.Fatalf("second listing: %+v", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("second listing waited %v for the stuck volume again", d)
	}
	close(release)
	eventually.True(t, 5*time.Second, "volume listed again after its stat returned", func() bool {
		return len(listDisks(context.Background(), src, g)) == 2
	})
}

func TestListDisksKeepsPartialListing(t *testing.T) {
	src := fakeSource(newFakeClock(), newFakeCounters())
	src.partitions = func(context.Context) ([]disk.PartitionStat, error) {
		return []disk.PartitionStat{{Device: "C:", Mountpoint: "C:", Fstype: "NTFS"}}, errors.New("drive D: not ready")
	}
	src.usage = func(_ context.Context, p string) (*disk.UsageStat, error) {
		return &disk.UsageStat{Total: 100, Free: 25, UsedPercent: 75.123}, nil
	}
	got := listDisks(context.Background(), src, &guard{})
	if len(got) != 1 || got[0].UsedPct != 75.12 || got[0].FreeBytes != 25 {
		t.Errorf("disks = %+v", got)
	}
}

func TestListDisksDropsEmptyVolume(t *testing.T) {
	src := fakeSource(newFakeClock(), newFakeCounters())
	src.usage = func(_ context.Context, p string) (*disk.UsageStat, error) {
		if p == "/data" {
			return &disk.UsageStat{}, nil // e.g. a CD drive with no disc
		}
		return &disk.UsageStat{Total: 1, UsedPercent: 100}, nil
	}
	if got := listDisks(context.Background(), src, &guard{}); len(got) != 1 || got[0].Path != "/" {
		t.Errorf("disks = %+v", got)
	}
}
