package gpio

import (
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// A watcher is a chip description that asked GPIO_V2_GET_LINEINFO_WATCH
// for some of its lines (gpiolib-cdev's struct gpio_chardev_data): each
// request, reconfiguration and release of a watched line queues a line
// info change, which read(2) of the chip's description takes.

// Line info change types (GPIO_V2_LINE_CHANGED_*).
const (
	ChangedRequested = 1
	ChangedReleased  = 2
	ChangedConfig    = 3
)

// maxChanges bounds a watcher's queue (Linux's kfifo holds 32); a full
// queue drops the new change, as lineinfo_changed_notify does.
const maxChanges = 32

// Change is a line info change: the line's info when it changed.
type Change struct {
	Nanos  uint64 // CLOCK_MONOTONIC
	Type   uint32
	Offset uint32
	Info   Info
}

// Watcher is one chip description's watch.
type Watcher struct {
	Used    bool
	Chip    int
	Watched uint64 // a bit per line

	queue      [maxChanges]Change
	head, size int
}

// Watchers are the watches open.
var Watchers [MaxWatchers]Watcher

// NewWatcher returns a free watcher of chip c, or -1.
func NewWatcher(c int) int {
	for k := range Watchers {
		if !Watchers[k].Used {
			Watchers[k] = Watcher{Used: true, Chip: c}
			return k
		}
	}
	return -1
}

// Watch starts (on) or stops watching line for watcher w: EBUSY when it
// is watched already, or (stopping) not watched (lineinfo_watch,
// lineinfo_unwatch).
func Watch(w, line int, on bool) unix.Errno {
	x := &Watchers[w]
	bit := uint64(1) << line
	if (x.Watched&bit != 0) == on {
		return unix.EBUSY
	}
	x.Watched ^= bit
	return 0
}

// FreeWatcher ends watcher w.
func FreeWatcher(w int) { Watchers[w].Used = false }

// Changes says how many changes watcher w holds.
func Changes(w int) int { return Watchers[w].size }

// PeekChange returns watcher w's oldest change.
func PeekChange(w int) Change {
	x := &Watchers[w]
	return x.queue[x.head]
}

// TakeChange removes watcher w's oldest change.
func TakeChange(w int) Change {
	x := &Watchers[w]
	ch := x.queue[x.head]
	x.head = (x.head + 1) % len(x.queue)
	x.size--
	return ch
}

// changed queues a change of line of chip c for its watchers.
func changed(c, line int, typ uint32) {
	for k := range Watchers {
		x := &Watchers[k]
		if !x.Used || x.Chip != c || x.Watched>>line&1 == 0 || x.size == len(x.queue) {
			continue
		}
		x.queue[(x.head+x.size)%len(x.queue)] = Change{Nanos: uint64(clock.Monotonic()), Type: typ,
			Offset: uint32(line), Info: LineInfo(c, line)}
		x.size++
		vfs.Notify(&Chips[c].W, unix.EPOLLIN)
	}
}
