package telemetry

import (
	"context"
	"strings"

	"github.com/shirou/gopsutil/v4/disk"

	"github.com/corrosion/corrosion/agent/wire"
)

// mount is one filesystem Host reports.
type mount struct {
	path, device, fstype string
}

// skipFSTypes are filesystems that are not local storage: memory and
// kernel pseudo-filesystems, container layers, package images and network
// filesystems. (On Linux gopsutil already drops "nodev" types and bind
// mounts; this list also covers other systems and odd kernels.)
var skipFSTypes = map[string]bool{
	"tmpfs": true, "devtmpfs": true, "ramfs": true, "proc": true, "sysfs": true,
	"devpts": true, "devfs": true, "cgroup": true, "cgroup2": true, "overlay": true,
	"overlayfs": true, "aufs": true, "squashfs": true, "iso9660": true, "udf": true,
	"autofs": true, "nsfs": true, "tracefs": true, "debugfs": true, "securityfs": true,
	"pstore": true, "bpf": true, "configfs": true, "mqueue": true, "hugetlbfs": true,
	"fusectl": true, "binfmt_misc": true, "efivarfs": true, "rpc_pipefs": true,
	"nfsd": true, "nullfs": true, "none": true, "nfs": true, "nfs4": true,
	"cifs": true, "smbfs": true, "smb3": true, "9p": true, "afs": true,
	"ceph": true, "glusterfs": true, "lustre": true, "davfs": true,
}

// skip reports whether a partition is not real local storage.
func skip(p disk.PartitionStat) bool {
	fs := strings.ToLower(p.Fstype)
	switch {
	case skipFSTypes[fs]:
		return true
	case strings.HasPrefix(fs, "fuse.") || fs == "fuse": // sshfs, lxcfs, gvfs… (fuseblk is a local disk)
		return true
	case strings.HasPrefix(p.Mountpoint, "/System/Volumes/"), strings.HasPrefix(p.Mountpoint, "/private/var/vm"):
		return true // macOS: APFS system volumes sharing the root's container
	}
	return false
}

// listMounts reads the mount table: real local filesystems, one mount per
// device (the shortest mount path, so "/" wins over a bind mount below it).
func listMounts(ctx context.Context) ([]mount, error) {
	parts, err := disk.PartitionsWithContext(ctx, false)
	if err != nil && len(parts) == 0 {
		return nil, err
	}
	return pickMounts(parts), nil
}

func pickMounts(parts []disk.PartitionStat) []mount {
	var out []mount
	byDevice := map[string]int{}
	for _, p := range parts {
		if p.Mountpoint == "" || skip(p) || !localDrive(p.Mountpoint) {
			continue
		}
		dev := p.Device
		if dev == "" {
			dev = p.Mountpoint
		}
		if i, ok := byDevice[dev]; ok {
			if len(p.Mountpoint) < len(out[i].path) {
				out[i].path = p.Mountpoint
			}
			continue
		}
		byDevice[dev] = len(out)
		out = append(out, mount{path: p.Mountpoint, device: dev, fstype: p.Fstype})
	}
	return out
}

// disks measures each mount; one that cannot be measured (unmounted since
// the list was read) is left out.
func (c *Collector) disks(ctx context.Context, mounts []mount) []wire.Disk {
	out := make([]wire.Disk, 0, len(mounts))
	for _, m := range mounts {
		u, err := disk.UsageWithContext(ctx, m.path)
		if err != nil || u.Total == 0 {
			c.fail("disk "+m.path, err)
			continue
		}
		out = append(out, wire.Disk{Mount: m.path, TotalMB: u.Total >> 20, FreeMB: u.Free >> 20})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// DiskFreeMB is the free space, in MiB, of the filesystem holding path: the
// space an unprivileged user may still use (statfs f_bavail; on Windows
// the caller's free bytes). Nil when it cannot be measured, e.g. path does
// not exist.
func DiskFreeMB(path string) *uint64 {
	if path == "" {
		return nil
	}
	u, err := disk.UsageWithContext(context.Background(), path)
	if err != nil || u.Total == 0 {
		return nil
	}
	return new(u.Free >> 20)
}
