package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// /dev/i2c-N, Linux's i2c-dev (drivers/i2c/i2c-dev.c, its ABI in
// include/uapi/linux/i2c-dev.h and i2c.h): a description is a client of
// bus N with a slave address (I2C_SLAVE), whose read and write are one
// transfer each to that address; I2C_RDWR runs a list of messages;
// I2C_SMBUS runs an SMBus command as i2c-core-smbus.c emulates it on a
// plain I2C adapter. golang.org/x/sys/unix has none of these numbers, so
// they are here with the header they come from.

// The ioctls (i2c-dev.h).
const (
	i2cRetries    = 0x0701
	i2cTimeout    = 0x0702
	i2cSlave      = 0x0703
	i2cTenBit     = 0x0704
	i2cFuncs      = 0x0705
	i2cSlaveForce = 0x0706
	i2cRdwr       = 0x0707
	i2cPEC        = 0x0708
	i2cSMBus      = 0x0720
)

// i2c.h: message flags, and what the BSC adapter offers
// (i2c-bcm2835.c's bcm2835_i2c_func: I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL).
const (
	i2cMsgRead    = 0x0001 // I2C_M_RD
	i2cMsgTen     = 0x0010 // I2C_M_TEN
	i2cMsgRecvLen = 0x0400 // I2C_M_RECV_LEN

	i2cFuncI2C       = 0x00000001
	i2cFuncSMBusEmul = 0x0eff0008 // QUICK, BYTE, BYTE_DATA, WORD_DATA, PROC_CALL, WRITE_BLOCK_DATA, I2C_BLOCK, PEC
	i2cAdapterFuncs  = i2cFuncI2C | i2cFuncSMBusEmul

	i2cMajor       = 89                // I2C_MAJOR
	i2cRdwrMaxMsgs = kernel.I2CMaxMsgs // I2C_RDWR_IOCTL_MAX_MSGS
	i2cMsgMax      = 8192              // i2c-dev's bound on one message's length
	i2cAddrMax     = 0x7f              // 7-bit addresses (the BSC has no 10-bit mode)
)

// SMBus (i2c.h): read_write, the transaction sizes, and the block size.
const (
	smbusWrite          = 0
	smbusRead           = 1
	smbusQuick          = 0
	smbusByte           = 1
	smbusByteData       = 2
	smbusWordData       = 3
	smbusProcCall       = 4
	smbusBlockData      = 5
	smbusI2CBlockBroken = 6
	smbusBlockProcCall  = 7
	smbusI2CBlockData   = 8
	smbusBlockMax       = 32
)

// i2cMsg is struct i2c_msg as arm64 lays it out: addr, flags, len
// (16 bits each), then the buffer's address at offset 8.
type i2cMsg struct {
	Addr, Flags, Len uint16
	_                uint16
	Buf              uint64
}

// i2cRdwrData is struct i2c_rdwr_ioctl_data.
type i2cRdwrData struct {
	Msgs  uint64
	NMsgs uint32
	_     uint32
}

// i2cSMBusData is struct i2c_smbus_ioctl_data.
type i2cSMBusData struct {
	ReadWrite uint8
	Command   uint8
	_         uint16
	Size      uint32
	Data      uint64 // union i2c_smbus_data: a byte, a word, or [34]byte (block[0] is the length)
}

var (
	_ [16 - unsafe.Sizeof(i2cMsg{})]struct{}
	_ [unsafe.Sizeof(i2cMsg{}) - 16]struct{}
	_ [16 - unsafe.Sizeof(i2cSMBusData{})]struct{}
	_ [unsafe.Sizeof(i2cSMBusData{}) - 16]struct{}
)

// i2cDev is the Impl of /dev/i2c-N; each description's bus and client
// address are in i2cClients.
type i2cDev struct{ nodeDev }

var i2cDevImpl i2cDev

// i2cClient is a description's client: its bus and slave address.
type i2cClient struct {
	bus  int8
	addr uint16
}

var i2cClients [vfs.MaxFiles]i2cClient

// i2cBuf is where a transfer's bytes pass, each message's at its own
// place: as many as I2C_RDWR may give. It is the transfer's from its
// start until its caller takes the result (kernel.I2CBegin), the
// machine having one transfer at a time.
var (
	i2cBuf      [i2cRdwrMaxMsgs * i2cMsgMax]byte
	i2cMsgs     [i2cRdwrMaxMsgs]i2cMsg
	i2cXferMsgs [i2cRdwrMaxMsgs]kernel.I2CMsg
)

// i2cNodes are the nodes devtmpfs shows for the buses, and their names.
var (
	i2cNodeNames [kernel.MaxI2C][8]byte
)

// i2cDeviceNodes appends to nodes a node for each bus the machine has
// (crw------- root root, as i2c-dev's class makes them) and returns how
// many it added.
func i2cDeviceNodes(nodes []mount.DevNode) int {
	n := 0
	for k := range kernel.I2CPresent {
		if !kernel.I2CPresent[k] || n == len(nodes) {
			continue
		}
		l := copy(i2cNodeNames[k][:], "i2c-")
		i2cNodeNames[k][l] = byte('0' + k)
		nodes[n] = mount.DevNode{Name: unsafe.String(&i2cNodeNames[k][0], l+1), Mode: unix.S_IFCHR | 0o600, Rdev: i2cMajor<<8 | uint32(k)}
		n++
	}
	return n
}

// openI2C opens /dev/i2c-N from node i: ENXIO for a bus the machine does
// not have (i2cdev_open's i2c_get_adapter).
func openI2C(i int32, flags uint32, cloexec bool) uint64 {
	bus := int(fs.Inodes[i].Rdev & 0xff)
	if bus >= kernel.MaxI2C || !kernel.I2CPresent[bus] {
		return errno(unix.ENXIO)
	}
	fd := openDevNode(&i2cDevImpl, i, flags, cloexec)
	if fl, ok := getFD(fd); ok && !vfs.IsErr(fd) {
		i2cClients[fl.Index()] = i2cClient{bus: int8(bus)}
	}
	return fd
}

// Read is one read transfer of up to 8 KiB from the client's address
// (i2cdev_read: the count, or the adapter's error).
func (d *i2cDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	c := &i2cClients[f.Index()]
	n = min(n, i2cMsgMax)
	step, e := kernel.I2CBegin(current())
	if step == kernel.I2CFree {
		i2cXferMsgs[0] = kernel.I2CMsg{Addr: c.addr, Read: true, Buf: i2cBuf[:n]}
		step, e = i2cStart(c, 1)
	}
	if r, ended := i2cEnded(step, e); !ended {
		return r
	}
	if !usermem.CopyOut(buf, i2cBuf[:n]) {
		return errno(unix.EFAULT)
	}
	return n
}

// Write is one write transfer of up to 8 KiB to the client's address.
func (d *i2cDev) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	c := &i2cClients[f.Index()]
	n = min(n, i2cMsgMax)
	step, e := kernel.I2CBegin(current())
	if step == kernel.I2CFree {
		if !usermem.CopyIn(i2cBuf[:n], buf) {
			return errno(unix.EFAULT)
		}
		i2cXferMsgs[0] = kernel.I2CMsg{Addr: c.addr, Buf: i2cBuf[:n]}
		step, e = i2cStart(c, 1)
	}
	if r, ended := i2cEnded(step, e); !ended {
		return r
	}
	return n
}

// A call that makes a transfer runs, in each of its runs, as Read
// does: kernel.I2CBegin, and, if the machine's transfer is free, its
// messages laid out in i2cXferMsgs over i2cBuf (the written bytes
// copied in) and started (i2cStart), which only then are the call's;
// then, if the transfer has ended on this run (i2cEnded), the read
// bytes copied out. A waiting call returns, and runs again.

// i2cStart starts i2cXferMsgs[:n] on c's bus.
func i2cStart(c *i2cClient, n int) (kernel.I2CStep, unix.Errno) {
	return kernel.I2CStart(current(), int(c.bus), i2cXferMsgs[:n])
}

// i2cEnded says whether the call's transfer ended well on this run;
// if not, r is the call's answer: its errno, or 0 while it waits.
func i2cEnded(step kernel.I2CStep, e unix.Errno) (r uint64, ended bool) {
	switch {
	case step == kernel.I2CWaiting:
		return 0, false
	case e != 0:
		return errno(e), false
	}
	return 0, true
}

// Ioctl answers i2c-dev's requests (i2cdev_ioctl).
func (d *i2cDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	c := &i2cClients[f.Index()]
	switch req {
	case i2cSlave, i2cSlaveForce:
		// No kernel driver claims an address here, so I2C_SLAVE never
		// meets i2c-dev's EBUSY.
		if arg > i2cAddrMax {
			return errno(unix.EINVAL)
		}
		c.addr = uint16(arg)
		return 0
	case i2cTenBit:
		if arg != 0 {
			return errno(unix.EINVAL) // the adapter has no I2C_FUNC_10BIT_ADDR
		}
		return 0
	case i2cFuncs:
		v := uint64(i2cAdapterFuncs)
		if !usermem.CopyOut(arg, unsafe.Slice((*byte)(unsafe.Pointer(&v)), 8)) {
			return errno(unix.EFAULT)
		}
		return 0
	case i2cRetries, i2cTimeout, i2cPEC:
		return 0 // accepted; one try, one second, no PEC byte
	case i2cRdwr:
		return i2cReadWrite(c, arg)
	case i2cSMBus:
		return i2cSMBusCall(c, arg)
	}
	return errno(unix.ENOTTY)
}

// i2cReadWrite is I2C_RDWR: up to 42 messages as one transfer, joined
// by repeated starts; the count of messages, or the transfer's error.
// As Linux's i2c-bcm2835 (bcm2835_i2c_xfer), only the last message may
// read (EOPNOTSUPP).
func i2cReadWrite(c *i2cClient, arg uintptr) uint64 {
	var rd i2cRdwrData
	if !usermem.CopyIn(unsafe.Slice((*byte)(unsafe.Pointer(&rd)), unsafe.Sizeof(rd)), arg) {
		return errno(unix.EFAULT)
	}
	if rd.NMsgs == 0 || rd.NMsgs > i2cRdwrMaxMsgs {
		return errno(unix.EINVAL)
	}
	// The list is read again on the call's run that takes the result:
	// where the read bytes go.
	msgs := i2cMsgs[:rd.NMsgs]
	if !usermem.CopyIn(unsafe.Slice((*byte)(unsafe.Pointer(&i2cMsgs[0])), len(msgs)*int(unsafe.Sizeof(i2cMsg{}))), uintptr(rd.Msgs)) {
		return errno(unix.EFAULT)
	}
	for k := range msgs {
		m := &msgs[k]
		if m.Len > i2cMsgMax || m.Flags&(i2cMsgTen|i2cMsgRecvLen) != 0 || m.Addr > i2cAddrMax {
			return errno(unix.EINVAL)
		}
	}
	for k := range msgs[:len(msgs)-1] {
		if msgs[k].Flags&i2cMsgRead != 0 {
			return errno(unix.EOPNOTSUPP)
		}
	}
	step, e := kernel.I2CBegin(current())
	if step == kernel.I2CFree {
		for k := range msgs {
			m := &msgs[k]
			b := i2cMsgBuf(k, m.Len)
			read := m.Flags&i2cMsgRead != 0
			if !read && !usermem.CopyIn(b, uintptr(m.Buf)) {
				return errno(unix.EFAULT)
			}
			i2cXferMsgs[k] = kernel.I2CMsg{Addr: m.Addr, Read: read, Buf: b}
		}
		step, e = i2cStart(c, len(msgs))
	}
	if r, ended := i2cEnded(step, e); !ended {
		return r
	}
	if m := &msgs[len(msgs)-1]; m.Flags&i2cMsgRead != 0 {
		if !usermem.CopyOut(uintptr(m.Buf), i2cMsgBuf(len(msgs)-1, m.Len)) {
			return errno(unix.EFAULT)
		}
	}
	return uint64(rd.NMsgs)
}

// i2cMsgBuf is message k's place in i2cBuf, n bytes long.
func i2cMsgBuf(k int, n uint16) []byte { return i2cBuf[k*i2cMsgMax : k*i2cMsgMax+int(n)] }

// i2cSMBusCall is I2C_SMBUS as i2c_smbus_xfer_emulated runs it on an
// I2C adapter: one transfer, of a message that writes the command byte
// and, for a write, the data with it, then for a read a message that
// reads the answer after a repeated start.
func i2cSMBusCall(c *i2cClient, arg uintptr) uint64 {
	var s i2cSMBusData
	if !usermem.CopyIn(unsafe.Slice((*byte)(unsafe.Pointer(&s)), unsafe.Sizeof(s)), arg) {
		return errno(unix.EFAULT)
	}
	read := s.ReadWrite == smbusRead
	if s.ReadWrite > smbusRead {
		return errno(unix.EINVAL)
	}
	var data [smbusBlockMax + 2]byte
	if s.Size != smbusQuick && !(s.Size == smbusByte && !read) && s.Data == 0 {
		return errno(unix.EINVAL)
	}
	var dataLen int // bytes of data the union carries for this size
	switch s.Size {
	case smbusQuick, smbusByte:
	case smbusByteData:
		dataLen = 1
	case smbusWordData, smbusProcCall:
		dataLen = 2
	case smbusBlockData, smbusI2CBlockBroken, smbusI2CBlockData:
		dataLen = smbusBlockMax + 1
	default:
		return errno(unix.EINVAL) // block process calls need I2C_M_RECV_LEN
	}
	if dataLen > 0 && (!read || s.Size == smbusProcCall || s.Size == smbusI2CBlockData) {
		if !usermem.CopyIn(data[:dataLen], uintptr(s.Data)) {
			return errno(unix.EFAULT)
		}
	}
	// The write (w bytes: the command, and for a write its data, a
	// block's with its length byte first for SMBus block data, without
	// for I2C block) and the read (r bytes; for the quick command and a
	// byte read, the transfer's one message).
	var out [smbusBlockMax + 2]byte
	out[0] = s.Command
	w, r := 1, 0
	switch s.Size {
	case smbusQuick:
		w = 0
	case smbusByte:
		if read {
			w, r = 0, 1
		}
	case smbusByteData, smbusWordData:
		if read {
			r = dataLen
		} else {
			w = 1 + copy(out[1:], data[:dataLen])
		}
	case smbusProcCall:
		w, r = 1+copy(out[1:], data[:2]), 2
	case smbusBlockData:
		if read {
			return errno(unix.EOPNOTSUPP) // needs I2C_M_RECV_LEN, which the emulation asks of the adapter
		}
		l := int(data[0])
		if l == 0 || l > smbusBlockMax {
			return errno(unix.EINVAL)
		}
		w = 1 + copy(out[1:], data[:1+l])
	case smbusI2CBlockBroken, smbusI2CBlockData:
		l := int(data[0])
		if l == 0 || l > smbusBlockMax {
			return errno(unix.EINVAL)
		}
		if read {
			r = l
		} else {
			w = 1 + copy(out[1:], data[1:1+l])
		}
	}
	ans := i2cBuf[i2cMsgMax : i2cMsgMax+r]
	step, e := kernel.I2CBegin(current())
	if step == kernel.I2CFree {
		n := 0
		if w > 0 || r == 0 {
			// The quick command is one empty message in its direction.
			i2cXferMsgs[0] = kernel.I2CMsg{Addr: c.addr, Read: s.Size == smbusQuick && read, Buf: i2cBuf[:copy(i2cBuf[:], out[:w])]}
			n++
		}
		if r > 0 {
			i2cXferMsgs[n] = kernel.I2CMsg{Addr: c.addr, Read: true, Buf: ans}
			n++
		}
		step, e = i2cStart(c, n)
	}
	if rv, ended := i2cEnded(step, e); !ended || r == 0 {
		return rv
	}
	if s.Size == smbusI2CBlockData || s.Size == smbusI2CBlockBroken {
		data[0] = byte(r)
		copy(data[1:], ans)
		return i2cOut(s.Data, data[:1+r])
	}
	return i2cOut(s.Data, ans)
}

// i2cOut copies an SMBus answer into the caller's union.
func i2cOut(dst uint64, b []byte) uint64 {
	if !usermem.CopyOut(uintptr(dst), b) {
		return errno(unix.EFAULT)
	}
	return 0
}
