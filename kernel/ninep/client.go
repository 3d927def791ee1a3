package ninep

import "math/bits"

// Table sizes of one connection. A fid is the server's handle on one
// file (a walked path, maybe opened); the kernel holds one per inode it
// has looked up plus one per open description, so MaxFids bounds how
// many files of one mount are cached at once: the file layer drops
// clean unused inodes (clunking their fids) when it runs out. A tag is
// one request in flight; MaxTags is more than a virtqueue of QueueSize
// descriptors holds as two-descriptor chains.
const (
	MaxFids = 1024
	MaxTags = 64

	// MinMsize is the smallest msize this client accepts from Rversion:
	// a header, a Twrite's fields and a page of data (Linux's v9fs
	// refuses less than 4096, net/9p/client.c p9_client_version).
	MinMsize = 4096
)

// Conn is the client side of one 9P connection: the message size agreed
// with the server, which fids and tags are in use, and the root fid the
// attach made. It holds no buffers: the transport owns those.
type Conn struct {
	Msize uint32
	Root  uint32
	fids  [MaxFids / 64]uint64
	tags  [MaxTags / 64]uint64
}

// NewFid takes a free fid; ok is false when all MaxFids are in use.
func (c *Conn) NewFid() (fid uint32, ok bool) {
	i, ok := take(c.fids[:])
	return uint32(i), ok
}

// FreeFid gives back a fid the server has clunked (or never made: a
// walk that stopped short does not create its newfid).
func (c *Conn) FreeFid(fid uint32) { give(c.fids[:], int(fid)) }

// NewTag takes a free tag; ok is false when MaxTags requests are in
// flight (the caller waits for one to finish).
func (c *Conn) NewTag() (tag uint16, ok bool) {
	i, ok := take(c.tags[:])
	return uint16(i), ok
}

// FreeTag gives back a tag whose answer has been read.
func (c *Conn) FreeTag(tag uint16) { give(c.tags[:], int(tag)) }

// FidsInUse counts the fids taken (for tests and /proc).
func (c *Conn) FidsInUse() int {
	n := 0
	for _, w := range c.fids {
		n += bits.OnesCount64(w)
	}
	return n
}

func take(set []uint64) (int, bool) {
	for i, w := range set {
		if w != ^uint64(0) {
			b := bits.TrailingZeros64(^w)
			set[i] |= 1 << b
			return i*64 + b, true
		}
	}
	return 0, false
}

func give(set []uint64, i int) {
	if i >= 0 && i/64 < len(set) {
		set[i/64] &^= 1 << (i % 64)
	}
}

// Versioned checks Rversion's answer and records the msize: the server
// may lower the one asked for, never raise it, and must speak
// 9P2000.L. It returns an errno (EIO for a server that does not).
func (c *Conn) Versioned(d *Dec, asked uint32) uint32 {
	msize, v := DecVersion(d)
	if d.Bad || string(v) != Version || msize > asked || msize < MinMsize {
		return eio
	}
	c.Msize = msize
	return 0
}

// MaxIO is the most data one Tread or Twrite carries: msize less the
// larger of the two headers (Linux's p9_client_read takes msize -
// P9_IOHDRSZ).
func (c *Conn) MaxIO() uint32 { return c.Msize - WriteHeaderLen }
