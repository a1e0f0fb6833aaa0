package sysops

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/disk"

	"hostgate/internal/agentproto"
)

// Disk listing limits.
const (
	// MaxDisks bounds SYSTEM_INFO's disks; a host with more mounts (a
	// container host) reports the first ones in mount order.
	MaxDisks = 256
	// listTimeout bounds listing the mounts, statTimeout stat'ing them
	// (all at once): a volume that does not answer in time is left out.
	listTimeout = 5 * time.Second
	statTimeout = 2 * time.Second
)

// pseudoFS are Linux file systems with no storage behind them (kernel
// interfaces, RAM-backed scratch space); they are not reported as disks.
var pseudoFS = map[string]bool{
	"autofs": true, "binfmt_misc": true, "bpf": true, "cgroup": true, "cgroup2": true,
	"configfs": true, "debugfs": true, "devpts": true, "devtmpfs": true, "efivarfs": true,
	"fusectl": true, "fuse.gvfsd-fuse": true, "fuse.portal": true, "hugetlbfs": true,
	"mqueue": true, "nsfs": true, "proc": true, "pstore": true, "ramfs": true,
	"rpc_pipefs": true, "securityfs": true, "selinuxfs": true, "sysfs": true,
	"tmpfs": true, "tracefs": true,
}

// volume is one mount to report.
type volume struct{ path, fstype string }

// listDisks lists the mounted volumes with their usage. Volumes that
// cannot be stat'ed in time, or report no size, are left out.
func listDisks(ctx context.Context, src *source, g *guard) []agentproto.DiskInfo {
	// A partial list comes with an error (Windows: a drive that is not
	// ready); what was listed is still worth reporting.
	parts, _ := guarded(ctx, g, "partitions", listTimeout, func() ([]disk.PartitionStat, error) {
		return src.partitions(ctx)
	})
	vols := selectVolumes(parts, runtime.GOOS)
	found := make([]*agentproto.DiskInfo, len(vols))
	var wg sync.WaitGroup
	for i, v := range vols {
		wg.Go(func() { found[i] = statVolume(ctx, src, g, v) })
	}
	wg.Wait()
	out := make([]agentproto.DiskInfo, 0, len(vols))
	for _, d := range found {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}

// statVolume reads v's size; nil when it cannot be read or is zero.
func statVolume(ctx context.Context, src *source, g *guard, v volume) *agentproto.DiskInfo {
	u, err := guarded(ctx, g, "usage "+v.path, statTimeout, func() (*disk.UsageStat, error) {
		return src.usage(ctx, v.path)
	})
	if err != nil || u == nil || u.Total == 0 {
		return nil
	}
	return &agentproto.DiskInfo{Path: v.path, FSType: v.fstype, TotalBytes: u.Total, FreeBytes: u.Free, UsedPct: roundPct(u.UsedPercent)}
}

// selectVolumes keeps the mounts worth reporting, in mount order: no
// pseudo file systems, each block device once (at its shortest mount
// path: bind mounts and btrfs subvolumes repeat a device with the same
// usage), at most MaxDisks.
func selectVolumes(parts []disk.PartitionStat, goos string) []volume {
	var out []volume
	byDevice := map[string]int{}
	for _, p := range parts {
		if p.Mountpoint == "" || pseudoFS[strings.ToLower(p.Fstype)] {
			continue
		}
		v := volume{path: normalizeMount(goos, p.Mountpoint), fstype: p.Fstype}
		if i, seen := byDevice[p.Device]; seen {
			if len(v.path) < len(out[i].path) {
				out[i] = v
			}
			continue
		}
		if len(out) == MaxDisks {
			break
		}
		if strings.HasPrefix(p.Device, "/") {
			byDevice[p.Device] = len(out)
		}
		out = append(out, v)
	}
	return out
}

// normalizeMount writes a Windows drive as its root directory ("C:" to
// `C:\`): "C:" alone means the current directory on that drive.
func normalizeMount(goos, p string) string {
	if goos == "windows" && len(p) == 2 && p[1] == ':' {
		return p + `\`
	}
	return p
}
