package ext4

// Errno is a result: 0 or a Linux errno number, so the system-call layer
// can return it as is. A structure that fails a check is EUCLEAN, which is
// Linux's EFSCORRUPTED (fs/ext4/ext4.h), never a panic.
type Errno uint16

// Linux's numbers (include/uapi/asm-generic/errno-base.h, errno.h).
const (
	OK           Errno = 0
	ENOENT       Errno = 2
	EIO          Errno = 5
	ENOTDIR      Errno = 20
	EINVAL       Errno = 22
	EFBIG        Errno = 27
	ENAMETOOLONG Errno = 36
	ELOOP        Errno = 40
	EOPNOTSUPP   Errno = 95
	EUCLEAN      Errno = 117 // EFSCORRUPTED
	EBADMSG      Errno = 74  // EFSBADCRC: a checksum does not match
	// EAGAIN is the read path's "a block it needs is not in memory": the
	// Reader's Missing field names it; the caller reads it and runs again.
	EAGAIN Errno = 11
)

func (e Errno) String() string {
	switch e {
	case OK:
		return "ok"
	case ENOENT:
		return "no such file or directory"
	case EIO:
		return "input/output error"
	case ENOTDIR:
		return "not a directory"
	case EINVAL:
		return "invalid argument"
	case EFBIG:
		return "file too large"
	case ENAMETOOLONG:
		return "file name too long"
	case ELOOP:
		return "too many levels of symbolic links"
	case EOPNOTSUPP:
		return "operation not supported"
	case EUCLEAN:
		return "structure needs cleaning"
	case EBADMSG:
		return "bad checksum"
	case EAGAIN:
		return "block not in memory"
	}
	return "ext4 error"
}
