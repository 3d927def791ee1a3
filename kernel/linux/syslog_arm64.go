package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/klog"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The kernel log's two doors (kernel/klog keeps the ring): syslog(2),
// which dmesg uses (kernel/printk/printk.c's do_syslog), and /dev/kmsg,
// a record per read (devkmsg_read, Documentation/ABI/testing/dev-kmsg).

// syslog(2)'s actions (include/linux/syslog.h; golang.org/x/sys has
// the call, not these).
const (
	syslogClose        = 0
	syslogOpen         = 1
	syslogRead         = 2
	syslogReadAll      = 3
	syslogReadClear    = 4
	syslogClear        = 5
	syslogConsoleOff   = 6
	syslogConsoleOn    = 7
	syslogConsoleLevel = 8
	syslogSizeUnread   = 9
	syslogSizeBuffer   = 10
)

// syslogRecordMax bounds one record as syslog(2) prints it: "<191>",
// "[99999.999999] ", the text and its newline.
const syslogRecordMax = 24 + klog.TextMax

// Console levels (printk.c's minimum_console_loglevel and the top).
const (
	consoleLevelMin = 1
	consoleLevelMax = 8
)

// savedConsoleLevel is the level SYSLOG_ACTION_CONSOLE_ON restores (0:
// the console is on).
var savedConsoleLevel uint8

func sysSyslog(t *sched.Thread, f *sched.Frame) uint64 {
	action, buf, n := int32(f.X[0]), uintptr(f.X[1]), int32(f.X[2])
	switch action {
	case syslogReadAll, syslogSizeBuffer:
		// Anyone may (dmesg_restrict 0, Debian's default is 1 but a Go
		// program as init is root anyway).
	case syslogClose, syslogOpen:
		return 0
	default:
		if !procOf(t).Cred.Privileged() {
			return errno(unix.EPERM) // CAP_SYSLOG
		}
	}
	switch action {
	case syslogRead:
		if buf == 0 || n < 0 {
			return errno(unix.EINVAL)
		}
		if n == 0 {
			return 0
		}
		if klog.ReadSeq < klog.First() {
			klog.ReadSeq = klog.First()
		}
		if klog.ReadSeq >= klog.Next() {
			// Wait for a record (a write to /dev/kmsg or a kernel line wakes the reader:
			// kmsgWritten): the call runs again then.
			sched.BlockOn(t, &kmsgImpl.W.Q, sched.WaitFile, unix.EPOLLIN, 0, 0)
			return 0
		}
		r, next := syslogCopy(buf, int(n), klog.ReadSeq)
		klog.ReadSeq = next
		return r
	case syslogReadAll, syslogReadClear:
		if buf == 0 || n < 0 {
			return errno(unix.EINVAL)
		}
		from := max(klog.ClearSeq, klog.First())
		// The newest records that fit (syslog_print_all skips the oldest).
		total := syslogSize(from)
		for total > int(n) && from < klog.Next() {
			total -= syslogLen(from)
			from++
		}
		r, _ := syslogCopy(buf, int(n), from)
		if action == syslogReadClear && !vfs.IsErr(r) {
			klog.ClearSeq = klog.Next()
		}
		return r
	case syslogClear:
		klog.ClearSeq = klog.Next()
		return 0
	case syslogConsoleOff:
		if savedConsoleLevel == 0 {
			savedConsoleLevel = klog.ConsoleLevel
		}
		klog.ConsoleLevel = consoleLevelMin
		return 0
	case syslogConsoleOn:
		if savedConsoleLevel != 0 {
			klog.ConsoleLevel = savedConsoleLevel
			savedConsoleLevel = 0
		}
		return 0
	case syslogConsoleLevel:
		if n < consoleLevelMin || n > consoleLevelMax {
			return errno(unix.EINVAL)
		}
		klog.ConsoleLevel = uint8(n)
		savedConsoleLevel = 0
		return 0
	case syslogSizeUnread:
		return uint64(syslogSize(max(klog.ReadSeq, klog.First())))
	case syslogSizeBuffer:
		return klog.MaxRecords * syslogRecordMax
	}
	return errno(unix.EINVAL)
}

// syslogLen is record seq's length as syslog(2) prints it.
func syslogLen(seq uint64) int {
	var b [syslogRecordMax]byte
	return klog.SyslogText(klog.At(seq), b[:])
}

// syslogSize is the length of every record from seq on.
func syslogSize(seq uint64) int {
	total := 0
	for ; seq < klog.Next(); seq++ {
		total += syslogLen(seq)
	}
	return total
}

// syslogCopy copies whole records from seq on to the app's buf (at most
// n bytes) and answers the bytes copied (EFAULT if none could be) and
// the sequence number after the last record copied.
func syslogCopy(buf uintptr, n int, seq uint64) (uint64, uint64) {
	var b [syslogRecordMax]byte
	done := 0
	for ; seq < klog.Next(); seq++ {
		k := klog.SyslogText(klog.At(seq), b[:])
		if done+k > n {
			break
		}
		if !usermem.CopyOut(buf+uintptr(done), b[:k]) {
			if done == 0 {
				return errno(unix.EFAULT), seq
			}
			break
		}
		done += k
	}
	return uint64(done), seq
}

// kmsgDev is /dev/kmsg's Impl: each description reads on from its own
// sequence number (kmsgSeq), a record per read.
type kmsgDev struct {
	vfs.Base
	W vfs.Waitable
}

var kmsgImpl kmsgDev

// kmsgSeq is each /dev/kmsg description's next record, indexed like
// vfs.Files.
var kmsgSeq [vfs.MaxFiles]uint64

// devKmsg is /dev/kmsg's number (Documentation/admin-guide/devices.txt).
const devKmsg = 1<<8 | 11

// openKmsg opens /dev/kmsg at the oldest record (devkmsg_open).
func openKmsg(i int32, flags uint32, cloexec bool) uint64 {
	fd := openFD(&kmsgImpl, flags, cloexec)
	if !vfs.IsErr(fd) {
		fl, _ := getFD(fd)
		kmsgSeq[fl.Index()] = klog.First()
		devNodes[fl.Index()] = i
		fs.Hold(i)
	}
	return fd
}

// Read gives the next record: EAGAIN at the end (vfs.Read then waits,
// or answers it to a non-blocking reader), EPIPE once when records were
// overwritten before they were read (the reader moves on to the oldest
// left), EINVAL if the buffer cannot hold the record.
func (d *kmsgDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	seq := &kmsgSeq[f.Index()]
	if *seq < klog.First() {
		*seq = klog.First()
		return errno(unix.EPIPE)
	}
	if *seq >= klog.Next() {
		return errno(unix.EAGAIN)
	}
	var b [syslogRecordMax + 3*klog.TextMax]byte // room for \xNN escapes
	k := klog.KmsgText(klog.At(*seq), b[:])
	if uint64(k) > n {
		return errno(unix.EINVAL)
	}
	if !usermem.CopyOut(buf, b[:k]) {
		return errno(unix.EFAULT)
	}
	*seq++
	return uint64(k)
}

// Write adds a record: "<N>" first sets its priority (a facility of 0,
// the kernel's, becomes LOG_USER: devkmsg_write), else LOG_USER at
// warning; a trailing newline is not kept.
func (d *kmsgDev) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	var b [klog.TextMax + 8]byte
	k := int(min(n, uint64(len(b))))
	if !usermem.CopyIn(b[:k], buf) {
		return errno(unix.EFAULT)
	}
	text := b[:k]
	facility, level := uint8(klog.FacilityUser), uint8(klog.LevelWarning)
	if len(text) > 2 && text[0] == '<' {
		v, j := 0, 1
		for ; j < len(text) && j < 5 && text[j] >= '0' && text[j] <= '9'; j++ {
			v = v*10 + int(text[j]-'0')
		}
		if j > 1 && j < len(text) && text[j] == '>' {
			level, facility = uint8(v&7), uint8(v>>3&0xff)
			if facility == 0 {
				facility = klog.FacilityUser
			}
			text = text[j+1:]
		}
	}
	for len(text) > 0 && text[len(text)-1] == '\n' {
		text = text[:len(text)-1]
	}
	klog.Append(facility, level, text)
	vfs.Notify(&d.W, unix.EPOLLIN)
	return n
}

// Seek: SEEK_SET 0 goes to the oldest record, SEEK_DATA to where
// SYSLOG_ACTION_CLEAR left the log, SEEK_END past the newest; anything
// else is EINVAL, and ESPIPE for SEEK_CUR (devkmsg_llseek).
func (d *kmsgDev) Seek(f *vfs.File, off int64, whence int) uint64 {
	seq := &kmsgSeq[f.Index()]
	switch {
	case off != 0:
		return errno(unix.ESPIPE)
	case whence == unix.SEEK_SET:
		*seq = klog.First()
	case whence == unix.SEEK_DATA:
		*seq = max(klog.ClearSeq, klog.First())
	case whence == unix.SEEK_END:
		*seq = klog.Next()
	default:
		return errno(unix.EINVAL)
	}
	return 0
}

func (d *kmsgDev) Readiness(f *vfs.File) uint32 {
	if kmsgSeq[f.Index()] < klog.Next() {
		return unix.EPOLLIN | unix.EPOLLRDNORM | unix.EPOLLOUT
	}
	return unix.EPOLLOUT
}

// kmsgWritten is kernel.OS.LogWritten: records were added since the
// last call; readers waiting for one run again.
func kmsgWritten() { vfs.Notify(&kmsgImpl.W, unix.EPOLLIN) }

func (d *kmsgDev) Waitable() *vfs.Waitable      { return &d.W }
func (d *kmsgDev) Kind() vfs.Kind               { return vfs.KindDevice }
func (d *kmsgDev) Release(f *vfs.File)          { fs.Drop(devNodes[f.Index()]) }
func (d *kmsgDev) Stat(f *vfs.File) unix.Stat_t { return devNodeStat(f) }
