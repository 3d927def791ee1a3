// Package vfatfs mounts FAT16 and FAT32 volumes (kernel/fat's format)
// into kernel/fs's tree as a backed file system, read-only: the
// Raspberry Pi's boot partition at /boot. A directory's entries are read
// the first time it is looked in, a file's pages the first time they are
// read, through the buffer cache; writing is not built (a read-write
// mount is EROFS with a line in the log). It owns the volume table; all
// of it runs under the kernel lock. Builds on the host: go test
// ./kernel/vfatfs (against dosfstools' and mtools' images).
package vfatfs

import (
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/fat"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// MaxVolumes bounds the FAT instances at once.
const MaxVolumes = 4

// superMagic is MSDOS_SUPER_MAGIC, statfs's f_type.
const superMagic = 0x4d44

// rootNum is the FAT16 root directory's number in the tree (cluster 1
// is never a data cluster); FAT32's root is its first cluster.
const rootNum = 1

// emptyBase numbers files with no cluster (empty ones): above every
// cluster number.
const emptyBase = 0x80000000

// Modes as Linux's vfat shows them with its default umask 022: every
// file and directory 0755, 0555 for a read-only one.
const (
	dirMode  = unix.S_IFDIR | 0o755
	fileMode = unix.S_IFREG | 0o755
	roBits   = 0o222
)

type volume struct {
	used    bool
	v       fat.Volume
	disk    int
	start   uint64 // the partition's first sector
	super   uint8
	empties uint32 // numbers given to empty files
	// where the last read left a file's chain: file number, cluster
	// index, cluster (sequential reads walk on from there).
	lastNum, lastIdx, lastCl uint32
}

var (
	vols    [MaxVolumes]volume
	bySuper [fs.MaxSupers]int8
	store   vfatStore
	reader  fat.DirReader
	entry   fat.Entry
	nameBuf [4 * 260]byte
	msgBuf  [120]byte
)

// Say writes a line to the kernel log; the kernel sets it.
var Say func(level uint8, line []byte)

func say(what string) {
	if Say != nil {
		n := copy(msgBuf[:], "vfat: ")
		n += copy(msgBuf[n:], what)
		Say(3, msgBuf[:n])
	}
}

// sector is sector n of v's partition, through the buffer cache.
func (v *volume) sector(n uint32) ([]byte, unix.Errno) {
	if n >= v.v.TotalSectors {
		return nil, unix.EUCLEAN
	}
	return bcache.Get(v.disk, v.start+uint64(n), fat.SectorSize)
}

// Is reports whether block device major:minor holds a FAT this package
// reads (a boot mount's probe).
func Is(major, minor uint32) bool {
	d, part := block.Find(major, minor)
	if d == nil {
		return false
	}
	start, sectors := d.Extent(part)
	if sectors == 0 {
		return false
	}
	b, e := bcache.Get(d.Index(), start, fat.SectorSize)
	var v fat.Volume
	return e == 0 && fat.Parse(b, &v) == fat.OK
}

// Mount makes (or finds) the instance on block device major:minor:
// ENXIO for no such device, EINVAL for no FAT this package reads, EROFS
// for a read-write mount.
func Mount(major, minor uint32, readOnly bool) (uint8, unix.Errno) {
	d, part := block.Find(major, minor)
	if d == nil {
		return 0, unix.ENXIO
	}
	disk := d.Index()
	start, sectors := d.Extent(part)
	if !readOnly {
		say("writing is not supported: mount it read-only (-o ro)")
		return 0, unix.EROFS
	}
	for j := range vols {
		if w := &vols[j]; w.used && w.disk == disk && w.start == start {
			return w.super, 0
		}
	}
	k := -1
	for i := range vols {
		if !vols[i].used {
			k = i
			break
		}
	}
	if k < 0 {
		return 0, unix.ENOMEM
	}
	v := &vols[k]
	*v = volume{disk: disk, start: start}
	b, e := bcache.Get(disk, start, fat.SectorSize)
	if e != 0 {
		return 0, e
	}
	if fat.Parse(b, &v.v) != fat.OK || uint64(v.v.TotalSectors) > sectors {
		say("can't find a FAT16 or FAT32 file system")
		return 0, unix.EINVAL
	}
	root := fs.Stored{Num: rootNum, Mode: dirMode, Links: 2}
	if v.v.Is32 {
		root.Num = v.v.RootCluster
	}
	s, fe := fs.NewStoredSuper(fs.TypeVfat, unix.Mkdev(major, minor), &root)
	if fe != 0 {
		return 0, fe
	}
	fs.Stores[fs.TypeVfat] = &store
	fs.Supers[s].ReadOnly = true
	// A FAT file's size is 32 bits (fs/fat/inode.c: s_maxbytes).
	fs.Supers[s].MaxBytes = 1<<32 - 1
	v.used, v.super = true, s
	bySuper[s] = int8(k + 1)
	return s, 0
}

func volOf(s uint8) *volume { return &vols[bySuper[s]-1] }

type vfatStore struct{}

// Fill makes directory dir's entries from its slots: the FAT16 root's
// fixed sectors, or its cluster chain.
func (*vfatStore) Fill(dir int32) unix.Errno {
	v := volOf(fs.Inodes[dir].Super)
	num := fs.Inodes[dir].Store
	reader = fat.DirReader{}
	if num == rootNum && !v.v.Is32 {
		for k := uint32(0); k < v.v.RootSectors; k++ {
			done, e := v.fillSector(dir, v.v.RootStart+k)
			if e != 0 || done {
				return e
			}
		}
		return 0
	}
	c := num
	for steps := uint32(0); c != 0; steps++ {
		if steps > v.v.Clusters || c >= emptyBase {
			return unix.EUCLEAN // a chain that loops
		}
		for k := uint32(0); k < v.v.SectorsPerCluster; k++ {
			done, e := v.fillSector(dir, v.v.ClusterSector(c)+k)
			if e != 0 || done {
				return e
			}
		}
		var e unix.Errno
		if c, e = v.next(c); e != 0 {
			return e
		}
	}
	return 0
}

// fillSector makes the entries of one directory sector.
func (v *volume) fillSector(dir int32, n uint32) (bool, unix.Errno) {
	b, e := v.sector(n)
	if e != 0 {
		return false, e
	}
	for off := 0; off < fat.SectorSize; off += fat.DirEntrySize {
		ok, done := reader.Slot(b[off:off+fat.DirEntrySize], &entry)
		if done {
			return true, 0
		}
		if !ok || string(entry.Name) == "." || string(entry.Name) == ".." || len(entry.Name) == 0 {
			continue
		}
		st := fs.Stored{Num: entry.Cluster, Mode: fileMode, Links: 1, Size: int64(entry.Size),
			Mtime: entry.Mtime * 1e9, Atime: entry.Atime * 1e9, Ctime: entry.Ctime * 1e9,
			BlocksUsed: (int64(entry.Size) + 511) / 512}
		if entry.Dir {
			st.Mode, st.Links, st.Size = dirMode, 2, int64(v.v.ClusterBytes())
		}
		if entry.RO {
			st.Mode &^= roBits
		}
		if st.Num == 0 || st.Num >= emptyBase {
			if entry.Dir {
				continue // a directory with no cluster is corrupt
			}
			v.empties++
			st.Num, st.Size = emptyBase+v.empties, 0
		}
		nm := nameBuf[:copy(nameBuf[:], entry.Name)]
		if _, e := fs.MakeStored(dir, nm, &st); e != 0 && e != unix.EEXIST {
			return false, e
		}
	}
	return false, 0
}

// next is the cluster after c in its chain, 0 at the end.
func (v *volume) next(c uint32) (uint32, unix.Errno) {
	sec, off := v.v.EntryAt(c)
	b, e := v.sector(sec)
	if e != 0 {
		return 0, e
	}
	n, fe := v.v.Next(c, b, off)
	if fe != fat.OK {
		return 0, unix.EUCLEAN
	}
	return n, 0
}

// StartPages: FAT is the Pi's, whose SD card is read by PIO (fs.Store).
func (*vfatStore) StartPages(int32, int64, *[fs.StoreRun]uintptr, int) (int32, int, unix.Errno) {
	return -1, 0, 0
}

// ReadPages fills pages from off of file i from its clusters: the
// whole pages the chain keeps on consecutive clusters go from the disk
// straight into the pages in one request (bcache.ReadRun: a file copied
// onto a fresh FAT lies in one run); a page whose clusters are apart is
// copied sector by sector. Zeros past the end.
func (*vfatStore) ReadPages(i int32, off int64, pas *[fs.StoreRun]uintptr, n int) (int, unix.Errno) {
	v := volOf(fs.Inodes[i].Super)
	num := fs.Inodes[i].Store
	size := fs.Inodes[i].Size
	if num >= emptyBase {
		clear(mm.PageBytes(pas[0])[:])
		return 1, 0
	}
	cb := int64(v.v.ClusterBytes())
	idx := uint32(off / cb)
	c, e := v.seek(num, idx)
	if e != 0 {
		return 0, e
	}
	in := off % cb
	if in%fat.SectorSize == 0 {
		// How far the clusters from c on are consecutive.
		run, last := int64(cb-in), c
		for run < int64(n)*mm.PageSize {
			nx, e := v.next(last)
			if e != 0 || nx != last+1 {
				break
			}
			last = nx
			run += cb
		}
		k := min(int(run/mm.PageSize), n, int((size-off+mm.PageSize-1)/mm.PageSize))
		if k > 0 {
			sec := uint64(v.v.ClusterSector(c)) + uint64(in/fat.SectorSize)
			copy(runBuf[:k], pas[:k])
			if e := bcache.ReadRun(v.disk, v.start+sec, &runBuf, k); e != 0 {
				return 0, e
			}
			if rest := size - off - int64(k-1)*mm.PageSize; rest < mm.PageSize {
				clear(mm.PageBytes(pas[k-1])[rest:])
			}
			return k, 0
		}
	}
	pb := mm.PageBytes(pas[0])[:]
	clear(pb)
	for done := int64(0); done < mm.PageSize && off+done < size && c != 0; {
		in := (off + done) % cb // where in the cluster
		for in < cb && done < mm.PageSize && off+done < size {
			sec := v.v.ClusterSector(c) + uint32(in/fat.SectorSize)
			b, e := v.sector(sec)
			if e != 0 {
				return 0, e
			}
			k := copy(pb[done:], b[in%fat.SectorSize:])
			done += int64(k)
			in += int64(k)
		}
		if in == cb {
			idx++
			if c, e = v.next(c); e != 0 {
				return 0, e
			}
			v.lastNum, v.lastIdx, v.lastCl = num, idx, c
		}
	}
	if rest := size - off; rest < mm.PageSize && rest >= 0 {
		clear(pb[rest:])
	}
	return 1, 0
}

// runBuf is a run's pages as bcache.ReadRun takes them.
var runBuf [bcache.MaxRun]uintptr

var _ [bcache.MaxRun - fs.StoreRun]struct{}

// seek is cluster idx of the chain starting at first: from where the
// last read of the same file left off when it can.
func (v *volume) seek(first, idx uint32) (uint32, unix.Errno) {
	c, at := first, uint32(0)
	if v.lastNum == first && v.lastIdx <= idx && v.lastCl != 0 {
		c, at = v.lastCl, v.lastIdx
	}
	for ; at < idx; at++ {
		if at > v.v.Clusters {
			return 0, unix.EUCLEAN
		}
		var e unix.Errno
		if c, e = v.next(c); e != 0 {
			return 0, e
		}
		if c == 0 {
			return 0, unix.EUCLEAN // shorter than its size
		}
	}
	v.lastNum, v.lastIdx, v.lastCl = first, idx, c
	return c, 0
}

// Statfs answers as Linux's fat_statfs: the clusters (free ones not
// counted: a read-only mount changes none).
func (*vfatStore) Statfs(s uint8, st *unix.Statfs_t) {
	v := volOf(s)
	st.Type = superMagic
	st.Bsize, st.Frsize = int64(v.v.ClusterBytes()), int64(v.v.ClusterBytes())
	st.Blocks = uint64(v.v.Clusters)
	st.Namelen = 1530 // FAT_LFN_LEN * NLS_MAX_CHARSET_SIZE, as Linux says
}

// Release frees instance s's volume and its buffers.
func (*vfatStore) Release(s uint8) {
	k := bySuper[s]
	if k == 0 {
		return
	}
	v := &vols[k-1]
	bcache.Forget(v.disk, 0, 0)
	v.used = false
	bySuper[s] = 0
}
