package vfs

import "golang.org/x/sys/unix"

// Credentials in flight (SCM_CREDENTIALS, unix(7)): an AF_UNIX
// connection's pipe carries, beside its bytes, the credentials each
// byte was sent with, as Linux's skbs carry them (UNIXCB(skb).pid, uid,
// gid). Nearly every byte of a connection comes with the same ones, so
// the pipe keeps only where they change, as descriptors in flight are
// kept (pipe_rights.go): a mark at a stream position says that the
// bytes from there on carry its credentials, up to the next mark. Bytes
// before a pipe's first mark carry none (NoCred), as do a mark's that
// says so. A record's credentials are those at its first position.
// Marks go as the reader passes them, and with the pipe.

// maxCredMarks bounds the marks in flight machine-wide: one per pipe,
// and as many again for pipes that hold bytes of several senders.
const maxCredMarks = 2 * MaxPipes

// noID is (uid_t)-1, Linux's INVALID_UID and INVALID_GID.
const noID = ^uint32(0)

// NoCred is what a message sent with no credentials carries: Linux's
// skb with no pid and INVALID_UID and INVALID_GID, which a receiver with
// SO_PASSCRED reads as pid 0 and the overflow ids.
func NoCred() unix.Ucred { return unix.Ucred{Uid: noID, Gid: noID} }

type credMark struct {
	pipe int32 // the pipe's index + 1; 0: free
	at   uint64
	c    unix.Ucred
}

var credMarks [maxCredMarks]credMark

// CredAt returns the credentials of the byte at stream position pos.
func (p *Pipe) CredAt(pos uint64) unix.Ucred {
	c := NoCred()
	if p.credMarks == 0 {
		return c
	}
	id, best, found := p.Index()+1, uint64(0), false
	for i := range credMarks {
		m := &credMarks[i]
		if m.pipe == id && m.at <= pos && (!found || m.at >= best) {
			best, c, found = m.at, m.c, true
		}
	}
	return c
}

// CredEnd returns the position after pos where the credentials of the
// byte at pos change (Linux's unix_stream_read_generic does not glue
// bytes of different credentials), or ^0 when no later mark changes
// them.
func (p *Pipe) CredEnd(pos uint64) uint64 {
	end := ^uint64(0)
	if p.credMarks == 0 {
		return end
	}
	c, id := p.CredAt(pos), p.Index()+1
	for i := range credMarks {
		m := &credMarks[i]
		if m.pipe == id && m.at > pos && m.at < end && m.c != c {
			end = m.at
		}
	}
	return end
}

// SetCred says that the bytes written next, at p.In, carry c; false if
// that needs a mark and none is free. A mark already at p.In (left by a
// write that moved nothing) is changed.
func (p *Pipe) SetCred(c unix.Ucred) bool {
	if p.CredAt(p.In) == c {
		return true
	}
	id, free := p.Index()+1, -1
	for i := range credMarks {
		m := &credMarks[i]
		if m.pipe == id && m.at == p.In {
			m.c = c
			return true
		}
		if m.pipe == 0 && free < 0 {
			free = i
		}
	}
	if free < 0 {
		return false
	}
	credMarks[free] = credMark{pipe: id, at: p.In, c: c}
	p.credMarks++
	return true
}

// DropCreds lets go of the marks the reader has passed: all of them
// once the pipe is empty, else those before the one in force at p.Out.
func (p *Pipe) DropCreds() {
	if p.credMarks == 0 {
		return
	}
	id, keep, found := p.Index()+1, uint64(0), false
	if p.Out != p.In {
		for i := range credMarks {
			m := &credMarks[i]
			if m.pipe == id && m.at <= p.Out && (!found || m.at > keep) {
				keep, found = m.at, true
			}
		}
	}
	for i := range credMarks {
		m := &credMarks[i]
		if m.pipe == id && m.at <= p.Out && !(found && m.at == keep) {
			m.pipe = 0
			p.credMarks--
		}
	}
}

// dropAllCreds frees every mark of p: it is going.
func (p *Pipe) dropAllCreds() {
	id := p.Index() + 1
	for i := range credMarks {
		if credMarks[i].pipe == id {
			credMarks[i].pipe = 0
		}
	}
	p.credMarks = 0
}
