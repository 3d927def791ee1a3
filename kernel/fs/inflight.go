package fs

import (
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Reads in flight: a backed file's run of pages being read from a disk
// by a request that completes in the device's interrupt (the store's
// StartPages, a kernel/block request), while read(2)'s caller sleeps on
// the request and the kernel lock is free for others (Linux's readahead
// with its pages locked until the bio completes). The run's pages are
// not in the file's index until the read completed: the index holds only
// pages that are up to date, so every other reader of it (faults,
// writes, reclaim, truncation) is as it was, and finds a page in flight
// absent. The entry keeps the pages; whoever next looks at the run once
// the request is done (collect) puts them in the index, or drops them
// when the device failed (EIO for that reader) or the index already has
// the page (a write filled it meanwhile). A caller that must not sleep
// (a fault, a write that reads a page first) polls the request instead
// (block.Poll), and dropping a file's pages (truncation, its end, a
// share's change) ends its reads in flight first, the same way, so an
// entry never outlives its inode nor brings back bytes that were cut.
// Under the kernel lock, as the page cache.

type inflightRead struct {
	used  bool
	ino   int32
	first int64 // the run's first page
	n     int
	size  int64 // the file's size when the read began: zeros past it
	req   int32
	pages [StoreRun]uintptr
}

// maxInflight bounds the reads in flight (block.MaxRequests: each is
// a request).
const maxInflight = 16

var inflight [maxInflight]inflightRead

// aheadRuns is how many runs one read(2) starts at once beyond the one
// it sleeps on, and the one it starts past its end (Linux's async
// readahead), so that a sequential reader finds the disk already busy.
const aheadRuns = 3

// InflightStats counts reads started in flight, the sleeps on them, and
// the reads a caller that could not sleep polled for.
var InflightStats struct {
	Started, Sleeps, Polled uint64
}

// The completion notifies what vfs.Read sleeps for.
const _ = uint(block.NotifyEvents-unix.EPOLLIN) + uint(unix.EPOLLIN-block.NotifyEvents)

// findInflight is the entry whose run holds page pg of inode i, or -1.
func findInflight(i int32, pg int64) int {
	for k := range inflight {
		e := &inflight[k]
		if e.used && e.ino == i && pg >= e.first && pg < e.first+int64(e.n) {
			return k
		}
	}
	return -1
}

// startRead starts reading n's run of missing pages from off (a page
// boundary below the size) in flight: the entry, or -1 when the store
// reads it only while the caller waits (and an error if the store
// failed, or memory is out).
func startRead(n *Inode, off int64) (int, unix.Errno) {
	k := -1
	for j := range inflight {
		if !inflight[j].used {
			k = j
			break
		}
	}
	if k < 0 {
		return -1, 0
	}
	e := &inflight[k]
	i := n.Index()
	cnt := 0
	for cnt < StoreRun {
		o := off + int64(cnt)*mm.PageSize
		if o >= n.Size || cnt > 0 && (page(n, o, false) != 0 || findInflight(i, o/mm.PageSize) >= 0) {
			break
		}
		// Unzeroed: the device writes every byte, and the caller
		// zeros what lies past the end (collect).
		p := getCachePageAs(n.Super, true)
		if p == 0 {
			break
		}
		e.pages[cnt] = p
		cnt++
	}
	if cnt == 0 {
		return -1, unix.ENOMEM
	}
	req, got, err := Stores[Supers[n.Super].Type].StartPages(i, off, &e.pages, cnt)
	if req < 0 {
		got = 0
	}
	for j := got; j < cnt; j++ {
		putPage(n.Super, e.pages[j])
	}
	if req < 0 {
		return -1, err
	}
	e.used, e.ino, e.first, e.n, e.size, e.req = true, i, off/mm.PageSize, got, n.Size, req
	InflightStats.Started++
	return k, 0
}

// collect ends entry k, whose request is done: its pages go into the
// file's index (those the index does not have yet, within the size)
// or back to the allocator, and EIO when the device failed.
func collect(k int) unix.Errno {
	e := &inflight[k]
	failed := block.Requests[e.req].Err
	block.End(e.req)
	n := &Inodes[e.ino]
	// The index may grow while the pages go in, and reclaim must leave
	// it (filling, runFirst, as storedPage's run).
	filling, runFirst = n, e.first
	for j := 0; j < e.n; j++ {
		p := e.pages[j]
		o := (e.first + int64(j)) * mm.PageSize
		if failed || o >= n.Size {
			putPage(n.Super, p)
			continue
		}
		if rest := e.size - o; rest < mm.PageSize {
			clear(mm.PageBytes(p)[max(rest, 0):]) // past the end the read began with
		}
		slot := leafSlot(n, uint64(o)/mm.PageSize, true)
		if slot == nil || *slot != 0 {
			putPage(n.Super, p) // no index memory, or written meanwhile
			continue
		}
		*slot = uint64(p)
	}
	filling = nil
	*e = inflightRead{}
	if failed {
		return unix.EIO
	}
	return 0
}

// finishInflight waits for the read in flight holding n's page pg, if
// there is one, polling its device (for callers that must not sleep),
// and collects it.
func finishInflight(n *Inode, pg int64) unix.Errno {
	k := findInflight(n.Index(), pg)
	if k < 0 {
		return 0
	}
	if !block.Requests[inflight[k].req].Done {
		InflightStats.Polled++
		block.Poll(inflight[k].req)
	}
	return collect(k)
}

// endInflight finishes every read in flight of n, for a caller about
// to drop n's pages: what they read is then dropped with the rest.
func endInflight(n *Inode) {
	i := n.Index()
	for k := range inflight {
		if e := &inflight[k]; e.used && e.ino == i {
			finishInflight(n, e.first)
		}
	}
}

// sweepInflight collects the reads that completed.
func sweepInflight() {
	for k := range inflight {
		if e := &inflight[k]; e.used && block.Requests[e.req].Done {
			collect(k)
		}
	}
}

// pageOrSleep is readPage for read(2), which may sleep (vfs.MayWaitDisk):
// n's page at off, reading the run from there in flight when it is
// missing, answered by the queue to sleep on (the read not complete).
func pageOrSleep(n *Inode, off int64) (uintptr, unix.Errno, *sched.Queue) {
	if p := page(n, off, false); p != 0 {
		return p, 0, nil
	}
	pg := off / mm.PageSize
	k := findInflight(n.Index(), pg)
	if k < 0 {
		var e unix.Errno
		if k, e = startRead(n, pg*mm.PageSize); e != 0 {
			return 0, e, nil
		}
	}
	if k >= 0 {
		if r := &block.Requests[inflight[k].req]; !r.Done {
			return 0, 0, &r.Q
		}
		if e := collect(k); e != 0 {
			return 0, e, nil
		}
	}
	p, e := storedPage(n, off) // done, or read only while the caller waits
	return p, e, nil
}

// readAhead starts in flight up to runs runs of n's missing pages from
// off (a byte offset) to end, skipping what is present or in flight.
func readAhead(n *Inode, off, end int64, runs int) {
	end = min(end, n.Size)
	i := n.Index()
	for o := off &^ (mm.PageSize - 1); o < end && runs > 0; o += mm.PageSize {
		if page(n, o, false) != 0 || findInflight(i, o/mm.PageSize) >= 0 {
			continue
		}
		k, _ := startRead(n, o)
		if k < 0 {
			return
		}
		o += int64(inflight[k].n-1) * mm.PageSize
		runs--
	}
}

// sleepFor is readData's answer when it must sleep on q, having copied
// done bytes: vfs.Read's DiskWaitErr.
func sleepFor(q *sched.Queue, done uint64) uint64 {
	InflightStats.Sleeps++
	vfs.DiskWait, vfs.DiskMoved = q, done
	return vfs.DiskWaitErr
}
