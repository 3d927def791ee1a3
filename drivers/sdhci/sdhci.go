// Package sdhci owns an SD card behind a standard SD host controller (the
// SD Host Controller Simplified Specification, version 3.00; "SDHC spec"
// below): the controller's registers, the card's initialisation (the SD
// Physical Layer Simplified Specification, version 3.01; "SD spec"), and
// reading and writing 512-byte blocks by programmed I/O through the
// controller's buffer data port.
//
// The Raspberry Pi 4's SD card slot is such a controller, the BCM2711's
// EMMC2 (compatible "brcm,bcm2711-emmc2", which QEMU 10's raspi4b models
// as a generic SDHCI with the card on its bus); the board code finds its
// registers in the device tree and hands them here, as TamaGo keeps a
// controller apart from the SoC and the board. Every register is read and
// written 32 bits at a time: the BCM283x controllers drop 8- and 16-bit
// writes (Linux's sdhci-iproc.c, "32only" accessors), so the 16-bit
// transfer-mode and command registers are written together, the command
// last, as the SDHC spec (§2.2.6, §2.2.7) allows.
//
// Transfers are synchronous: the caller waits, spinning on the
// controller's status with a deadline, while the card moves the data.
// Under QEMU the data is there at once; on a board a block takes tens of
// microseconds at 25 MHz on four lines.
package sdhci

import "github.com/gometal/gometal/drivers/cpu"

// Register offsets (SDHC spec §2.1, Figure 2-1), as 32-bit words.
const (
	regArgument2   = 0x00
	regBlock       = 0x04 // block size (bits 0-11) and block count (16-31)
	regArgument    = 0x08
	regCommand     = 0x0c // transfer mode (bits 0-15) and command (16-31)
	regResponse    = 0x10 // four words: bits 0-127 of the response, less its CRC
	regData        = 0x20 // the buffer data port
	regPresent     = 0x24 // present state
	regHostControl = 0x28 // host control 1, power control, block gap, wake-up
	regClock       = 0x2c // clock control (0-15), timeout control (16-23), software reset (24-31)
	regIntStatus   = 0x30 // normal (0-15) and error (16-31) interrupt status, write 1 to clear
	regIntEnable   = 0x34 // which of them the status register shows
	regIntSignal   = 0x38 // which of them raise the interrupt line
	regCaps        = 0x40 // capabilities (bits 0-31)
)

// Present state bits (§2.2.9).
const (
	presentCmdInhibit  = 1 << 0
	presentDataInhibit = 1 << 1
	presentCardIn      = 1 << 16
)

// Interrupt status bits (§2.2.17, §2.2.18).
const (
	intCmdDone     = 1 << 0
	intXferDone    = 1 << 1
	intWriteReady  = 1 << 4
	intReadReady   = 1 << 5
	intError       = 1 << 15
	intErrorBits   = 0xffff << 16
	intCmdTimeout  = 1 << 16
	intDataTimeout = 1 << 20
	intAll         = 0xffffffff
)

// Clock control (§2.2.14) and software reset (§2.2.16), in regClock.
const (
	clockInternalOn     = 1 << 0
	clockInternalStable = 1 << 1
	clockCardOn         = 1 << 2
	timeoutMax          = 0xe << 16 // data timeout counter: TMCLK x 2^27
	resetAll            = 1 << 24
	resetCmd            = 1 << 25
	resetData           = 1 << 26
)

// Host control 1 (§2.2.11) and power control (§2.2.12), in regHostControl.
const (
	hostBus4Bit  = 1 << 1
	power33V     = 0x7 << 9 // SD bus voltage select: 3.3 V
	powerBusOn   = 1 << 8
	capsBaseMask = 0xff << 8 // capabilities: base clock in MHz (§2.2.26)
)

// Command register bits (§2.2.7), above the transfer mode in regCommand.
const (
	respNone    = 0 << 16
	resp136     = 1 << 16
	resp48      = 2 << 16
	resp48Busy  = 3 << 16
	cmdCRCCheck = 1 << 19
	cmdIdxCheck = 1 << 20
	cmdData     = 1 << 21
	cmdIndex    = 24

	// Transfer mode (§2.2.6).
	modeBlockCount = 1 << 1
	modeAutoCMD12  = 1 << 2
	modeRead       = 1 << 4
	modeMulti      = 1 << 5
)

// Response types (SD spec §4.9) as the command register encodes them.
const (
	rNone = respNone
	r1    = resp48 | cmdCRCCheck | cmdIdxCheck
	r1b   = resp48Busy | cmdCRCCheck | cmdIdxCheck
	r2    = resp136 | cmdCRCCheck
	r3    = resp48 // OCR: no CRC, no index
	r6    = resp48 | cmdCRCCheck | cmdIdxCheck
	r7    = resp48 | cmdCRCCheck | cmdIdxCheck
)

// SD commands (SD spec §4.7.4).
const (
	cmdGoIdle       = 0
	cmdAllSendCID   = 2
	cmdSendRCA      = 3
	cmdSelect       = 7
	cmdSendIfCond   = 8
	cmdSendCSD      = 9
	cmdStop         = 12
	cmdSetBlockLen  = 16
	cmdReadSingle   = 17
	cmdReadMulti    = 18
	cmdWriteSingle  = 24
	cmdWriteMulti   = 25
	cmdAppCmd       = 55
	acmdSetBusWidth = 6
	acmdSendOpCond  = 41
)

// CMD8's argument: 2.7-3.6 V and a check pattern the card echoes (SD spec
// §4.3.13); ACMD41's: high capacity supported, 3.2-3.4 V (the OCR, §5.1).
const (
	ifCondArg    = 0x1aa
	opCondArg    = 1<<30 | 0x00ff8000
	ocrReady     = 1 << 31
	ocrHighCap   = 1 << 30
	BlockSize    = 512
	maxBlocks    = 0xffff // the block count register's width
	initClockHz  = 400_000
	dataClockHz  = 25_000_000
	fallbackBase = 100_000_000 // a controller whose capabilities leave the base clock to the board
)

// Timeouts, in microseconds: a command (SD spec §4.12.3: NCR is at most 64
// clocks), ACMD41's power-up (§4.2.3: up to one second), a block's data.
const (
	cmdTimeoutUs  = 100_000
	powerUpUs     = 1_000_000
	dataTimeoutUs = 1_000_000
)

// Err says what went wrong, for the kernel's log and an EIO.
type Err uint8

const (
	OK Err = iota
	ErrNoCard
	ErrReset
	ErrClock
	ErrTimeout
	ErrCommand
	ErrNotSD
	ErrData
	ErrRange
	ErrReadOnly
)

var errText = [...]string{
	OK:          "ok",
	ErrNoCard:   "no card in the slot",
	ErrReset:    "controller reset did not complete",
	ErrClock:    "controller clock did not stabilise",
	ErrTimeout:  "card did not answer in time",
	ErrCommand:  "command error",
	ErrNotSD:    "card is not an SD card of version 2 or later",
	ErrData:     "data transfer error",
	ErrRange:    "blocks past the end of the card",
	ErrReadOnly: "card is write-protected",
}

func (e Err) String() string {
	if int(e) < len(errText) {
		return errText[e]
	}
	return "unknown error"
}

// Card is an initialised card and its controller.
type Card struct {
	base    uintptr // the controller's registers, kernel address
	ticksUs uint64  // counter ticks per microsecond
	rca     uint32  // the card's relative address (SD spec §4.2.2), in bits 16-31
	HighCap bool    // SDHC/SDXC: block addresses (else bytes: SDSC)
	Blocks  uint64  // capacity in 512-byte blocks
	CID     [4]uint32
	LastErr uint32 // the error interrupt bits of the last failure
	LastCmd uint8  // the command that failed
	Ready   bool
}

func (c *Card) r(off uintptr) uint32    { return cpu.Read32(c.base + off) }
func (c *Card) w(off uintptr, v uint32) { cpu.Write32(c.base+off, v) }

func (c *Card) now() uint64 { return cpu.ReadCNTVCT() }

// wait spins until f's bits are all set in register off (set) or all clear
// (!set), or us microseconds pass.
func (c *Card) wait(off uintptr, bits uint32, set bool, us uint64) bool {
	end := c.now() + us*c.ticksUs
	for {
		v := c.r(off) & bits
		if set && v == bits || !set && v == 0 {
			return true
		}
		if c.now() > end {
			return false
		}
	}
}

// Init resets the controller at base (a kernel address), powers the card
// and takes it through identification to the transfer state (SD spec
// §4.2, Figure 4-2), then sets a 4-bit bus at 25 MHz. counterHz is the
// generic timer's frequency, for the timeouts.
func (c *Card) Init(base uintptr, counterHz uint64) Err {
	*c = Card{base: base, ticksUs: counterHz / 1_000_000}
	if c.ticksUs == 0 {
		c.ticksUs = 1
	}
	c.w(regClock, resetAll)
	if !c.wait(regClock, resetAll, false, cmdTimeoutUs) {
		return ErrReset
	}
	if c.r(regPresent)&presentCardIn == 0 {
		return ErrNoCard
	}
	c.w(regHostControl, power33V)
	c.w(regHostControl, power33V|powerBusOn)
	if e := c.setClock(initClockHz); e != OK {
		return e
	}
	c.w(regIntEnable, intAll) // see every status bit; polled, no line raised
	c.w(regIntSignal, 0)
	c.w(regIntStatus, intAll)

	c.cmd(cmdGoIdle, 0, rNone)
	if e := c.cmd(cmdSendIfCond, ifCondArg, r7); e != OK || c.r(regResponse)&0xfff != ifCondArg {
		return ErrNotSD // a version 1 card or an MMC: not worth the code today
	}
	end := c.now() + powerUpUs*c.ticksUs
	var ocr uint32
	for {
		if e := c.cmd(cmdAppCmd, 0, r1); e != OK {
			return e
		}
		if e := c.cmd(acmdSendOpCond, opCondArg, r3); e != OK {
			return e
		}
		if ocr = c.r(regResponse); ocr&ocrReady != 0 {
			break
		}
		if c.now() > end {
			return ErrTimeout
		}
	}
	c.HighCap = ocr&ocrHighCap != 0
	if e := c.cmd(cmdAllSendCID, 0, r2); e != OK {
		return e
	}
	for i := range c.CID {
		c.CID[i] = c.r(regResponse + uintptr(4*i))
	}
	if e := c.cmd(cmdSendRCA, 0, r6); e != OK {
		return e
	}
	c.rca = c.r(regResponse) & 0xffff0000
	if e := c.cmd(cmdSendCSD, c.rca, r2); e != OK {
		return e
	}
	var csd [4]uint32
	for i := range csd {
		csd[i] = c.r(regResponse + uintptr(4*i))
	}
	c.Blocks = CSDBlocks(csd)
	if e := c.cmd(cmdSelect, c.rca, r1b); e != OK {
		return e
	}
	if !c.HighCap {
		if e := c.cmd(cmdSetBlockLen, BlockSize, r1); e != OK {
			return e
		}
	}
	if c.cmd(cmdAppCmd, c.rca, r1) == OK && c.cmd(acmdSetBusWidth, 2, r1) == OK {
		c.w(regHostControl, c.r(regHostControl)|hostBus4Bit)
	}
	if e := c.setClock(dataClockHz); e != OK {
		return e
	}
	c.Ready = true
	return OK
}

// setClock runs the card's clock at hz or just below, from the base
// clock the capabilities give (SDHC spec §3.2.1: stop it, set the
// divider, start the internal clock, wait for it, start the card's).
func (c *Card) setClock(hz uint32) Err {
	base := (c.r(regCaps) & capsBaseMask >> 8) * 1_000_000
	if base == 0 {
		base = fallbackBase
	}
	// The 10-bit divided clock mode (version 3.00): base / (2 x N), N = 0
	// meaning the base clock itself.
	n := uint32(0)
	if base > hz {
		n = (base + 2*hz - 1) / (2 * hz)
		if n > 0x3ff {
			n = 0x3ff
		}
	}
	div := (n&0xff)<<8 | (n>>8&3)<<6
	c.w(regClock, timeoutMax)
	c.w(regClock, timeoutMax|div|clockInternalOn)
	if !c.wait(regClock, clockInternalStable, true, cmdTimeoutUs) {
		return ErrClock
	}
	c.w(regClock, timeoutMax|div|clockInternalOn|clockCardOn)
	return OK
}

// cmd sends command idx with arg and waits for its response (and, for
// R1b, for the card to leave busy).
func (c *Card) cmd(idx uint8, arg uint32, resp uint32) Err {
	return c.send(idx, arg, resp, 0)
}

func (c *Card) send(idx uint8, arg uint32, resp uint32, mode uint32) Err {
	inhibit := uint32(presentCmdInhibit)
	if resp == r1b || mode != 0 {
		inhibit |= presentDataInhibit
	}
	if !c.wait(regPresent, inhibit, false, cmdTimeoutUs) {
		return c.fail(idx, ErrTimeout)
	}
	c.w(regIntStatus, intAll)
	c.w(regArgument, arg)
	c.w(regCommand, uint32(idx)<<cmdIndex|resp|mode)
	if !c.wait(regIntStatus, intCmdDone, true, cmdTimeoutUs) {
		if c.r(regIntStatus)&intError != 0 {
			return c.fail(idx, ErrCommand)
		}
		return c.fail(idx, ErrTimeout)
	}
	if c.r(regIntStatus)&intError != 0 {
		return c.fail(idx, ErrCommand)
	}
	c.w(regIntStatus, intCmdDone)
	if resp == r1b && !c.wait(regIntStatus, intXferDone, true, dataTimeoutUs) {
		return c.fail(idx, ErrTimeout)
	}
	return OK
}

// fail records what failed and resets the command and data lines (SDHC
// spec §3.10: error recovery), so the next command starts clean.
func (c *Card) fail(idx uint8, e Err) Err {
	c.LastCmd = idx
	c.LastErr = c.r(regIntStatus) >> 16
	c.w(regIntStatus, intAll)
	c.w(regClock, c.r(regClock)|resetCmd|resetData)
	c.wait(regClock, resetCmd|resetData, false, cmdTimeoutUs)
	return e
}

// Name is the product name in the card's CID (SD spec §5.2: PNM, five
// ASCII characters at bits 64-103), as Linux prints it ("SD08G").
func (c *Card) Name() [5]byte {
	var n [5]byte
	for i := range n {
		hi := uint(103 - 8*i)
		n[i] = byte(respBits(&c.CID, hi, hi-7))
	}
	return n
}

// RCA is the card's relative address, as Linux prints it.
func (c *Card) RCA() uint32 { return c.rca >> 16 }

// Read reads n blocks from block lba into the n*512 bytes at va (a kernel
// address, 4-byte aligned).
func (c *Card) Read(lba uint64, n uint32, va uintptr) Err {
	return c.xfer(lba, n, va, false)
}

// Write writes n blocks at block lba from the n*512 bytes at va.
func (c *Card) Write(lba uint64, n uint32, va uintptr) Err {
	return c.xfer(lba, n, va, true)
}

func (c *Card) xfer(lba uint64, n uint32, va uintptr, write bool) Err {
	if !c.Ready {
		return ErrNoCard
	}
	if n == 0 || lba >= c.Blocks || uint64(n) > c.Blocks-lba {
		return ErrRange
	}
	for n > 0 {
		k := n
		if k > maxBlocks {
			k = maxBlocks
		}
		if e := c.xferRun(lba, k, va, write); e != OK {
			return e
		}
		lba, n, va = lba+uint64(k), n-k, va+uintptr(k)*BlockSize
	}
	return OK
}

// xferRun moves k blocks by CMD17/18 or CMD24/25, the controller sending
// CMD12 after a multi-block run itself (Auto CMD12, §2.2.6).
func (c *Card) xferRun(lba uint64, k uint32, va uintptr, write bool) Err {
	arg := uint32(lba)
	if !c.HighCap {
		arg = uint32(lba * BlockSize)
	}
	mode := uint32(cmdData)
	idx := uint8(cmdReadSingle)
	ready := uint32(intReadReady)
	if write {
		idx, ready = cmdWriteSingle, intWriteReady
	} else {
		mode |= modeRead
	}
	if k > 1 {
		mode |= modeMulti | modeBlockCount | modeAutoCMD12
		idx++ // 18 and 25 follow 17 and 24
	}
	c.w(regBlock, k<<16|BlockSize)
	if e := c.send(idx, arg, r1, mode); e != OK {
		return e
	}
	for b := uint32(0); b < k; b++ {
		if !c.wait(regIntStatus, ready, true, dataTimeoutUs) || c.r(regIntStatus)&intError != 0 {
			return c.fail(idx, ErrData)
		}
		c.w(regIntStatus, ready)
		p := va + uintptr(b)*BlockSize
		for i := uintptr(0); i < BlockSize; i += 4 {
			if write {
				c.w(regData, *(*uint32)(cpu.Ptr(p + i)))
			} else {
				*(*uint32)(cpu.Ptr(p + i)) = c.r(regData)
			}
		}
	}
	if !c.wait(regIntStatus, intXferDone, true, dataTimeoutUs) || c.r(regIntStatus)&intError != 0 {
		return c.fail(idx, ErrData)
	}
	c.w(regIntStatus, intAll)
	return OK
}

// CSDBlocks returns the capacity, in 512-byte blocks, that a CSD register
// gives (SD spec §5.3), as the controller's response registers hold it:
// CSD bits 8-127 at bits 0-119 (the CRC dropped, SDHC spec §2.2.7).
func CSDBlocks(r [4]uint32) uint64 {
	switch respBits(&r, 127, 126) {
	case 0: // version 1.0, standard capacity (§5.3.2)
		cSize := respBits(&r, 73, 62)
		mult := respBits(&r, 49, 47)
		readBlLen := respBits(&r, 83, 80)
		return (cSize + 1) << (mult + 2) << readBlLen / BlockSize
	case 1: // version 2.0, high and extended capacity (§5.3.3): 512 KiB units
		return (respBits(&r, 69, 48) + 1) * 1024
	}
	return 0
}

// respBits returns bits hi..lo (hi >= lo >= 8) of a 136-bit response (a
// CSD or a CID) from the response registers r.
func respBits(r *[4]uint32, hi, lo uint) uint64 {
	var v uint64
	for b := hi; b+1 > lo; b-- {
		v = v<<1 | uint64(r[(b-8)/32]>>((b-8)%32)&1)
	}
	return v
}
