// Package klog owns the kernel log: a ring of records, each a line the
// kernel printed (its boot lines, what it reports while running) or a
// program wrote to /dev/kmsg, with a sequence number, a time since boot
// and a syslog priority, as Linux's printk ring keeps them
// (kernel/printk/printk.c, Documentation/ABI/testing/dev-kmsg). The
// Linux layer reads it for syslog(2) and /dev/kmsg; the console decides
// which records it also prints (ConsoleLevel). It is written and read
// under the kernel lock. Builds on the host: go test ./kernel/klog.
package klog

// Sizes: MaxRecords records of at most TextMax bytes each (a longer line
// is cut there; Linux's is 1024, and no kernel line here comes near).
const (
	MaxRecords = 512
	TextMax    = 240
)

// Priorities (include/linux/kern_levels.h, syslog(3)).
const (
	LevelErr     = 3
	LevelWarning = 4
	LevelNotice  = 5
	LevelInfo    = 6
	LevelDebug   = 7

	// FacilityUser is LOG_USER's number: a record a program wrote gets
	// it unless it names another (devkmsg_write).
	FacilityUser = 1
)

// Record is one line of the log.
type Record struct {
	Seq      uint64
	TimeUsec uint64
	Level    uint8
	Facility uint8
	n        uint8
	text     [TextMax]byte
}

// Text is the record's line, without its newline.
func (r *Record) Text() []byte { return r.text[:r.n] }

var (
	ring [MaxRecords]Record
	// next is the sequence number the next record gets; the ring holds
	// [next-MaxRecords, next) once full.
	next uint64
	// open is a record being written (Begin…End), or nil.
	open *Record
	// ClearSeq is where SYSLOG_ACTION_READ_ALL starts (SYSLOG_ACTION_CLEAR
	// moves it to next); ReadSeq where SYSLOG_ACTION_READ goes on.
	ClearSeq, ReadSeq uint64
)

// ConsoleLevel: a record whose level is below it is printed on the
// console too (console_loglevel; 7 by default, 4 with "quiet").
var ConsoleLevel uint8 = 7

// Now is the time since boot in microseconds; the kernel sets it.
var Now func() uint64

// Begin starts a record of level (facility kernel); bytes follow with
// Byte, End commits it.
func Begin(level uint8) {
	r := &ring[next%MaxRecords]
	*r = Record{Seq: next, Level: level}
	if Now != nil {
		r.TimeUsec = Now()
	}
	open = r
}

// Byte adds c to the record being written; a newline is not part of a
// record, and bytes past TextMax are dropped.
func Byte(c byte) {
	if r := open; r != nil && c != '\n' && int(r.n) < TextMax {
		r.text[r.n] = c
		r.n++
	}
}

// Writing says whether a record is being written.
func Writing() bool { return open != nil }

// End commits the record being written.
func End() {
	if open != nil {
		open = nil
		next++
	}
}

// Append adds a whole record (a write to /dev/kmsg).
func Append(facility, level uint8, text []byte) {
	Begin(level)
	open.Facility = facility
	for _, c := range text {
		Byte(c)
	}
	End()
}

// First is the oldest record's sequence number, Next the one the next
// record will get.
func First() uint64 {
	if next > MaxRecords {
		return next - MaxRecords
	}
	return 0
}

func Next() uint64 { return next }

// At is record seq, nil if it is not in the ring (overwritten, or not
// written yet).
func At(seq uint64) *Record {
	if seq < First() || seq >= next {
		return nil
	}
	return &ring[seq%MaxRecords]
}

// Reset empties the log (host tests).
func Reset() {
	next, ClearSeq, ReadSeq, open = 0, 0, 0, nil
	ConsoleLevel = 7
}
