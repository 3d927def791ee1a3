package vfs

// Descriptors in flight (SCM_RIGHTS, unix(7)): an AF_UNIX connection's
// pipe carries, beside its bytes, the open-file descriptions a sender
// attached to a message, each set at the stream positions (Pipe.In)
// where the message's bytes begin and end. The receiver's recvmsg takes a set when it
// reads from that position; a read that passes it without asking (read,
// or recvmsg without room for control data) closes its descriptions, as
// Linux does; so does the pipe's end. A set holds a reference to each
// description, so a descriptor may be closed by the sender at once.
// Like Linux without its garbage collector, a socket sent over its own
// connection keeps itself alive: the slot stays taken until reboot.

const (
	// MaxRights is the most descriptions one message carries (Linux's
	// SCM_MAX_FD is 253).
	MaxRights = 32
	// maxRightsSets bounds the sets in flight machine-wide.
	maxRightsSets = 128
)

// Rights is one message's descriptions (indices into Files).
type Rights struct {
	N     int
	Files [MaxRights]int32
}

type rightsSet struct {
	pipe    int32 // the pipe's index + 1; 0: free
	at, end uint64
	r       Rights
}

var rightsSets [maxRightsSets]rightsSet

// RightsRoom reports whether a set can be attached now.
func RightsRoom() bool {
	for i := range rightsSets {
		if rightsSets[i].pipe == 0 {
			return true
		}
	}
	return false
}

// Attach puts r in flight with the message at stream positions
// [at, end), with a reference to each of its descriptions; false if no
// set is free.
func (p *Pipe) Attach(at, end uint64, r *Rights) bool {
	return takeSet(p.Index()+1, at, end, r) >= 0
}

// takeSet puts r in a free set for owner (a pipe's index + 1, or
// dgramSet) with a reference to each of its descriptions, and returns
// the set's index; -1 if none is free.
func takeSet(owner int32, at, end uint64, r *Rights) int {
	for i := range rightsSets {
		s := &rightsSets[i]
		if s.pipe != 0 {
			continue
		}
		*s = rightsSet{pipe: owner, at: at, end: end, r: *r}
		for _, f := range r.Files[:r.N] {
			IncRef(f)
		}
		return i
	}
	return -1
}

// NextRights returns the positions of the first message in flight with
// descriptions that starts at or after from, and whether there is one.
func (p *Pipe) NextRights(from uint64) (at, end uint64, ok bool) {
	id := p.Index() + 1
	for i := range rightsSets {
		s := &rightsSets[i]
		if s.pipe == id && s.at >= from && (!ok || s.at < at) {
			at, end, ok = s.at, s.end, true
		}
	}
	return at, end, ok
}

// TakeRights moves the set at position at into r (its references with
// it); false if there is none.
func (p *Pipe) TakeRights(at uint64, r *Rights) bool {
	id := p.Index() + 1
	for i := range rightsSets {
		s := &rightsSets[i]
		if s.pipe == id && s.at == at {
			*r = s.r
			s.pipe = 0
			return true
		}
	}
	return false
}

// DropRights closes the sets in flight before stream position before:
// their bytes were read by a reader that did not take them.
func (p *Pipe) DropRights(before uint64) { p.dropRights(before) }

func (p *Pipe) dropRights(before uint64) {
	id := p.Index() + 1
	for i := range rightsSets {
		s := &rightsSets[i]
		if s.pipe == id && s.at < before {
			s.pipe = 0 // first: the closes below may free other sets
			r := s.r
			r.Close()
		}
	}
}

// Datagrams carry sets too (an AF_UNIX datagram socket's queue, whose
// records have room for a 16-bit mark): such a set belongs to no pipe
// and is named by its index plus one, which the datagram's record keeps.
const dgramSet = -1

// AttachDatagram puts r in flight with one datagram, with a reference to
// each of its descriptions, and returns the mark that names it (0: no
// set is free).
func AttachDatagram(r *Rights) uint16 {
	return uint16(takeSet(dgramSet, 0, 0, r) + 1)
}

// TakeDatagramRights moves the set mark names into r (its references
// with it); false if there is none.
func TakeDatagramRights(mark uint16, r *Rights) bool {
	if mark == 0 || int(mark) > maxRightsSets || rightsSets[mark-1].pipe != dgramSet {
		return false
	}
	s := &rightsSets[mark-1]
	*r = s.r
	s.pipe = 0
	return true
}

// DropDatagramRights closes the set mark names: its datagram was read
// without taking it, or went with its queue.
func DropDatagramRights(mark uint16) {
	var r Rights
	if TakeDatagramRights(mark, &r) {
		r.Close()
	}
}

// Close drops r's references.
func (r *Rights) Close() {
	for _, f := range r.Files[:r.N] {
		DecRef(f)
	}
	r.N = 0
}
