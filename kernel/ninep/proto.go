// Package ninep is the kernel's 9P2000.L client: the messages a Linux
// v9fs mount sends (net/9p/client.c, include/net/9p/9p.h), written into
// and read out of buffers the caller owns, and the fixed tables of fids
// and tags one connection uses.
//
// It knows bytes, not transports: a request is encoded into a buffer the
// transport will hand to the server (for virtio-9p, a page the device
// reads), and a response is decoded from the buffer the server filled.
// Nothing here waits, allocates, or calls through a function value, so
// the file layer can use it under the kernel lock and follow "gather,
// then change" (docs/ARCHITECTURE.md): the calling thread keeps the tag
// of the request it sent, and a call that runs again after waiting
// decodes that tag's answer instead of sending the request a second
// time (a Tlcreate sent twice would fail with EEXIST the second time).
//
// Every encoder returns the message's length, 0 if it does not fit the
// buffer; every decoder sets its Dec's Bad flag rather than panic on a
// short or malformed answer, and the caller turns Bad into EIO.
package ninep

import "encoding/binary"

// Message types of 9P2000.L (include/net/9p/9p.h, enum p9_msg_t). The R
// form of each is its T form plus one.
const (
	Tlerror   = 6
	Rlerror   = 7
	Tstatfs   = 8
	Tlopen    = 12
	Tlcreate  = 14
	Tsymlink  = 16
	Tmknod    = 18
	Treadlink = 22
	Tgetattr  = 24
	Tsetattr  = 26
	Treaddir  = 40
	Tfsync    = 50
	Tlink     = 70
	Tmkdir    = 72
	Trenameat = 74
	Tunlinkat = 76
	Tversion  = 100
	Tattach   = 104
	Twalk     = 110
	Tread     = 116
	Twrite    = 118
	Tclunk    = 120
)

const (
	// HeaderLen is every message's header: size[4] type[1] tag[2].
	HeaderLen = 7

	// NoTag is the tag of Tversion (the protocol's P9_NOTAG), NoFid the
	// afid of an attach without authentication (P9_NOFID).
	NoTag = 0xFFFF
	NoFid = 0xFFFFFFFF

	// QidLen is a qid on the wire: type[1] version[4] path[8].
	QidLen = 13

	// ReadHeaderLen is Rread's bytes before its data (header, count[4]),
	// WriteHeaderLen Twrite's (header, fid[4] offset[8] count[4]): the
	// data of either may sit in a buffer of its own (a second descriptor
	// of a virtio chain), so the page cache's pages need no copy.
	ReadHeaderLen  = HeaderLen + 4
	WriteHeaderLen = HeaderLen + 4 + 8 + 4

	// MaxWalk is the most names one Twalk carries (P9_MAXWELEM).
	MaxWalk = 16

	// Version is the protocol this client speaks.
	Version = "9P2000.L"

	// eio is the errno a malformed or unexpected answer becomes.
	eio = 5
)

// Qid types (P9_QTDIR and friends): the high bits of a qid's Type.
const (
	QTDir     = 0x80
	QTSymlink = 0x02
)

// Getattr's request and valid mask (P9_GETATTR_*). GetattrBasic is every
// field stat(2) fills; Linux's v9fs asks for it.
const (
	GetattrBasic = 0x000007ff
)

// Setattr's valid mask (P9_ATTR_*, the values of Linux's ATTR_* that
// v9fs_vfs_setattr_dotl passes through).
const (
	SetattrMode     = 0x00000001
	SetattrUID      = 0x00000002
	SetattrGID      = 0x00000004
	SetattrSize     = 0x00000008
	SetattrATime    = 0x00000010
	SetattrMTime    = 0x00000020
	SetattrCTime    = 0x00000040
	SetattrATimeSet = 0x00000080
	SetattrMTimeSet = 0x00000100
)

// UnlinkDir is Tunlinkat's flag for rmdir (AT_REMOVEDIR).
const UnlinkDir = 0x200

// Qid is a server's identity for a file: Path is its inode number as far
// as the client is concerned.
type Qid struct {
	Type    uint8
	Version uint32
	Path    uint64
}

// Attr is Rgetattr's body (struct p9_stat_dotl).
type Attr struct {
	Valid                           uint64
	Qid                             Qid
	Mode, UID, GID                  uint32
	Nlink, Rdev, Size               uint64
	Blksize, Blocks                 uint64
	ATimeSec, ATimeNsec             uint64
	MTimeSec, MTimeNsec             uint64
	CTimeSec, CTimeNsec             uint64
	BTimeSec, BTimeNsec, Gen, DataV uint64
}

// SetAttr is Tsetattr's body (struct p9_iattr_dotl).
type SetAttr struct {
	Valid               uint32
	Mode, UID, GID      uint32
	Size                uint64
	ATimeSec, ATimeNsec uint64
	MTimeSec, MTimeNsec uint64
}

// Statfs is Rstatfs's body (struct p9_rstatfs), statfs(2)'s fields.
type Statfs struct {
	Type, Bsize                        uint32
	Blocks, Bfree, Bavail, Files, Free uint64
	Fsid                               uint64
	Namelen                            uint32
}

// Dirent is one entry of an Rreaddir: Name points into the answer's
// buffer and is valid as long as it is.
type Dirent struct {
	Qid    Qid
	Offset uint64 // the Treaddir offset that continues after this entry
	Type   uint8  // DT_* as getdents64 gives it
	Name   []byte
}

// Enc writes one T-message into B. Begin starts it, the field methods
// add to it, Finish writes its size; a field that does not fit makes
// Finish return 0.
type Enc struct {
	B   []byte
	n   int
	bad bool
}

// Begin starts a message of type typ with tag tag.
func (e *Enc) Begin(typ uint8, tag uint16) {
	e.n, e.bad = 0, false
	e.U32(0)
	e.U8(typ)
	e.U16(tag)
}

func (e *Enc) room(k int) bool {
	if e.bad || len(e.B)-e.n < k {
		e.bad = true
		return false
	}
	return true
}

func (e *Enc) U8(v uint8) {
	if e.room(1) {
		e.B[e.n] = v
		e.n++
	}
}

func (e *Enc) U16(v uint16) {
	if e.room(2) {
		binary.LittleEndian.PutUint16(e.B[e.n:], v)
		e.n += 2
	}
}

func (e *Enc) U32(v uint32) {
	if e.room(4) {
		binary.LittleEndian.PutUint32(e.B[e.n:], v)
		e.n += 4
	}
}

func (e *Enc) U64(v uint64) {
	if e.room(8) {
		binary.LittleEndian.PutUint64(e.B[e.n:], v)
		e.n += 8
	}
}

// Str adds a string: length[2] then its bytes.
func (e *Enc) Str(s []byte) {
	if len(s) > 0xFFFF {
		e.bad = true
		return
	}
	e.U16(uint16(len(s)))
	if e.room(len(s)) {
		e.n += copy(e.B[e.n:], s)
	}
}

// StrS is Str for a constant string (no conversion to a slice, which
// would allocate).
func (e *Enc) StrS(s string) {
	e.U16(uint16(len(s)))
	if e.room(len(s)) {
		e.n += copy(e.B[e.n:], s)
	}
}

// Finish writes the size field and returns the message's length, 0 if
// it did not fit. extra is how many bytes follow in a buffer of their
// own (a Twrite's data): the size counts them.
func (e *Enc) Finish(extra int) int {
	if e.bad {
		return 0
	}
	binary.LittleEndian.PutUint32(e.B, uint32(e.n+extra))
	return e.n
}

// Dec reads one R-message's body.
type Dec struct {
	B   []byte
	off int
	Bad bool
}

func (d *Dec) take(k int) []byte {
	if d.Bad || k < 0 || len(d.B)-d.off < k {
		d.Bad = true
		return nil
	}
	s := d.B[d.off : d.off+k]
	d.off += k
	return s
}

func (d *Dec) U8() uint8 {
	if s := d.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (d *Dec) U16() uint16 {
	if s := d.take(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (d *Dec) U32() uint32 {
	if s := d.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *Dec) U64() uint64 {
	if s := d.take(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// Str reads a string; the result points into the buffer.
func (d *Dec) Str() []byte { return d.take(int(d.U16())) }

// Qid reads a qid.
func (d *Dec) Qid() Qid {
	var q Qid
	q.Type = d.U8()
	q.Version = d.U32()
	q.Path = d.U64()
	return q
}

// Left is how many bytes of the body are not read yet.
func (d *Dec) Left() int { return len(d.B) - d.off }

// Answer checks that b holds a whole answer to the request of type typ
// with tag tag and returns a decoder on its body. errno is non-zero if
// the server answered Rlerror (its ecode, a Linux errno) or if the
// answer is malformed or not the one asked for (EIO).
func Answer(b []byte, typ uint8, tag uint16) (d Dec, errno uint32) {
	if len(b) < HeaderLen {
		return Dec{Bad: true}, eio
	}
	size := binary.LittleEndian.Uint32(b)
	if size < HeaderLen || uint64(size) > uint64(len(b)) || binary.LittleEndian.Uint16(b[5:]) != tag {
		return Dec{Bad: true}, eio
	}
	d = Dec{B: b[HeaderLen:size]}
	switch b[4] {
	case typ + 1:
		return d, 0
	case Rlerror:
		if e := d.U32(); !d.Bad && e != 0 {
			return d, e
		}
	}
	return Dec{Bad: true}, eio
}

// Size is the size field of the message at the start of b (0 if b is
// shorter than a header): a stream transport reads this many bytes.
func Size(b []byte) uint32 {
	if len(b) < 4 {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}
