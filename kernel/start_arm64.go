package kernel

import (
	"sync/atomic"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/fdt"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/pl031"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/klog"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"
)

// Board facts found in the DTB at boot.
var (
	dtb       fdt.Tree
	timerIRQ  uint32
	bootTicks uint64 // counter at kernel entry
	RNGSeed   [32]byte
	ramRanges [8]mm.Range
	nRAM      int
)

// GIC interrupt-specifier types (DT binding arm,gic: first cell).
const (
	dtIRQSPI = 0
	dtIRQPPI = 1
	spiBase  = 32
	ppiBase  = 16

	// archTimerVirtIndex: the "arm,armv8-timer" node lists secure phys,
	// non-secure phys, virtual, hypervisor timers in that order.
	archTimerVirtIndex = 2
	// defaultVirtTimerPPI is the architected virtual timer INTID (PPI 11).
	defaultVirtTimerPPI = 27
)

// BootInfo is what boot hands the kernel.
type BootInfo struct {
	DTB            uintptr // physical address of the device tree (x0)
	EntryEL        uintptr // exception level the Image was entered at
	BootTTBR0      uintptr // physical address of boot's identity map
	SecondaryEntry uintptr // boot's entry for secondary cores (virtual)
	Secondary      *SecondaryBoot
}

// lockStuckSeconds: a core that waits this long for a spinlock reports a
// deadlock (generous: QEMU may not schedule a vCPU for a while on a busy
// 2-core host). The deadlock crash test waits 1 s.
var lockStuckSeconds int64 = 10

// Start is called by boot on the boot stack with the MMU on. It never
// returns: it ends by entering the app at EL0.
func Start(b *BootInfo) {
	bootTicks = cpu.ReadCNTVCT()
	dtbPA := b.DTB
	entryEL = uint64(b.EntryEL)
	c := sched.InitCPU(0)
	cpu.WriteTPIDREL1(uint64(uintptr(unsafe.Pointer(c))))
	cpu.WriteVBAR(uint64(vectorsAddr()))
	cpu.TTBR0Walks(false)
	sched.IdleIRQ = idleIRQ
	sched.BeforeIdle = dropDeadSpace
	cpu.Stuck = lockStuck
	// The boot core holds the kernel lock until it enters the app, so
	// secondaries that come up meanwhile wait for a finished kernel.
	sched.KernelLock.Lock(0)

	if !parseDTB(dtbPA) {
		Puts("gometal: no valid device tree in x0 (")
		PutHex(uint64(dtbPA))
		Puts(")\n")
		Panic("no device tree")
	}
	// Boot arguments first: whether semihosting may end the run must be
	// known before anything can fail.
	readBootargs()
	initConsole()
	if Info("booting on ") {
		if m, ok := dtb.StringProp(dtb.Root(), "model"); ok {
			PutBytes(m)
		}
		Puts(", entered at EL")
		PutDec(int64(entryEL))
		InfoEnd()
	}
	initMemory(dtbPA)
	initPowerManagement()
	initFirmware()
	if crashTest {
		crashTarget.ID = 1 // nil dereference in the kernel
	}
	initInterrupts()
	profStart() // needs the counter's frequency (initInterrupts)
	initClock()
	if crashDeadlock {
		lockStuckSeconds = 1
	}
	cpu.StuckTicks = timer.NanosToTicks(lockStuckSeconds * 1e9)
	initASIDs()
	initCPULocal(c)
	c.MPIDR = cpu.ReadMPIDR() & mpidrAffMask
	c.Alive.Store(true)
	c.Online = true
	online := startSecondaries(b)
	if Info("cores: ") {
		PutDec(int64(online))
		Puts(" of ")
		PutDec(int64(countCPUs()))
		Puts(" online")
		InfoEnd()
	}
	initNetwork()
	initBlock()
	initShares()
	initSDCard()
	initI2C()
	initRTC()
	initSPI()
	initGPIO()
	initFB()
	initFBConsole()
	if !findInitrd() {
		Panic("no initramfs: boot with an initrd (QEMU -initrd) holding /init")
	}
	t := OS.Init()
	if Info("kernel ready in ") {
		PutDec(timer.TicksToNanos(cpu.ReadCNTVCT()-bootTicks) / 1000)
		Puts(" us; starting /init (")
		PutDec(int64(mm.Pages.Used() * mm.PageSize >> 10))
		Puts(" KiB in use of ")
		PutDec(int64(mm.Pages.Total() * mm.PageSize >> 20))
		Puts(" MiB)")
		InfoEnd()
	}
	fbconDefer() // the scheduler's timers run from here: the screen is drawn by alarm
	firstInstr = true
	c.Current = sched.Index(t)
	t.State = sched.Running
	t.CPU = 0
	c.SliceEnd = timer.Now() + timer.NanosToTicks(sched.SliceNanos)
	useSpace(c, t)
	c.Heartbeat = timer.Now()
	t.ResumedAt = c.Heartbeat
	f := (*sched.Frame)(cpu.Ptr(c.KStackTop - sched.FrameSize))
	*f = t.Ctx
	sched.ArmTimer(c)
	// Contention is counted from the app's start (no other core runs
	// yet): every lock the stats list.
	for i := 0; sched.Lock(i) != nil; i++ {
		sched.Lock(i).ResetCounts()
	}
	sched.ResetStateLockCounts()
	appStarted.Store(true)
	sched.Release(c)
	enterUser(uintptr(unsafe.Pointer(f)))
}

// appStarted is set when the boot core starts /init. Secondary cores wait
// for it before they take the kernel lock, which the boot core holds
// until then, so the lock's contention counters see the app's waits, not
// boot's.
var appStarted atomic.Bool

var entryEL uint64
var dtbSize uint32
var firstInstr bool

func parseDTB(pa uintptr) bool {
	if pa == 0 || pa&7 != 0 {
		return false
	}
	hdr := unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(pa))), 40)
	size, err := fdt.TotalSize(hdr)
	if err != fdt.OK || size > 2<<20 {
		return false
	}
	blob := unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(pa))), size)
	t, err := fdt.Parse(blob)
	if err != fdt.OK {
		return false
	}
	dtb = t
	dtbSize = size
	return true
}

// initConsole takes over every UART the DTB describes and leaves enabled
// (status "okay" or no status): the PL011s, and the BCM2711's mini UART.
func initConsole() {
	for n := dtb.FindCompatible(-1, "arm,pl011"); n >= 0; n = dtb.FindCompatible(n, "arm,pl011") {
		if addr, ok := enabledDevice(n); ok && !uart.Ready() {
			uart.Init(cpu.KVA(addr))
			addPort(&uart, spiOf(n))
		}
	}
	for n := dtb.FindCompatible(-1, "brcm,bcm2835-aux-uart"); n >= 0; n = dtb.FindCompatible(n, "brcm,bcm2835-aux-uart") {
		if addr, ok := enabledDevice(n); ok && !miniUART.Ready() {
			miniUART.Init(cpu.KVA(addr))
			addPort(&miniUART, spiOf(n))
		}
	}
}

// spiOf returns the INTID of n's first interrupt if it is a GIC SPI, else 0.
func spiOf(n fdt.Node) uint32 {
	typ, num, _, ok := dtb.Interrupt(n, 0)
	if !ok || typ != dtIRQSPI {
		return 0
	}
	return num + spiBase
}

// enabledDevice returns the CPU physical address of n's first register
// block if n is enabled (DT spec §2.3.4: no status, or "okay"/"ok").
func enabledDevice(n fdt.Node) (uintptr, bool) {
	if st, ok := dtb.StringProp(n, "status"); ok && string(st) != "okay" && string(st) != "ok" {
		return 0, false
	}
	addr, _, ok := dtb.Phys(n, 0)
	return uintptr(addr), ok
}

// Cmdline is the kernel's command line as the device tree gave it
// (/proc/cmdline).
func Cmdline() []byte {
	if ch := dtb.Path("/chosen"); ch >= 0 {
		if args, ok := dtb.StringProp(ch, "bootargs"); ok {
			return args
		}
	}
	return nil
}

func readBootargs() {
	ch := dtb.Path("/chosen")
	if ch < 0 {
		return
	}
	args, ok := dtb.StringProp(ch, "bootargs")
	if !ok {
		return
	}
	for i := 0; i < len(args); {
		for i < len(args) && args[i] == ' ' {
			i++
		}
		j := i
		for j < len(args) && args[j] != ' ' {
			j++
		}
		w := args[i:j]
		if v, ok := bytesCut(w, "gometal.ip="); ok {
			netIPArg = v
		}
		if v, ok := bytesCut(w, "gometal.9p="); ok {
			shareBootarg(v)
		}
		if v, ok := bytesCut(w, "gometal.mount="); ok && diskMountsN < len(diskMounts) {
			diskMounts[diskMountsN] = v
			diskMountsN++
		}
		// Linux's module parameters as boot arguments (parse_args: a
		// dash and an underscore are the same in a parameter's name).
		for _, pre := range [...]string{"gpio_mockup.", "gpio-mockup."} {
			if m, ok := bytesCut(w, pre); ok {
				if v, ok := bytesCut(m, "gpio_mockup_ranges="); ok {
					gpioMockupArg = v
				}
				if v, ok := bytesCut(m, "gpio_mockup_named_lines"); ok && (len(v) == 0 || string(v) == "=1" || string(v) == "=y" || string(v) == "=Y") {
					gpioMockupNamed = true
				}
			}
		}
		if v, ok := bytesCut(w, "gometal.fbcon="); ok {
			fbconEnabled = string(v) != "0" && string(v) != "off"
		}
		if v, ok := bytesCut(w, "gometal.rtc="); ok {
			rtcArg = v
		}
		if v, ok := bytesCut(w, "gometal.netfault="); ok {
			netFaultArg = v
		}
		if v, ok := bytesCut(w, "gometal.tmpfs_size="); ok {
			tmpSizeArg = v
		}
		if v, ok := bytesCut(w, "gometal.trace="); ok {
			traceBootarg(v)
		}
		if v, ok := bytesCut(w, "gometal.profile="); ok {
			profBootarg(v)
		}
		if v, ok := bytesCut(w, "gometal.profile_hz="); ok {
			profHzBootarg(v)
		}
		if v, ok := bytesCut(w, "gometal.dumpafter="); ok {
			// Milliseconds after boot at which the kernel prints the
			// state of every process and thread (gometal run -timeout
			// asks for it shortly before it kills QEMU).
			if ms, ok := parseSize(v, 0); ok {
				DumpAfterNanos = ms * 1e6
			}
		}
		if v, ok := bytesCut(w, "gometal.rows="); ok {
			consoleRows = bootU16(v)
		}
		if v, ok := bytesCut(w, "gometal.cols="); ok {
			consoleCols = bootU16(v)
		}
		if v, ok := bytesCut(w, "gometal.asidbits="); ok {
			asidBitsArg, _ = parseSize(v, 0)
		}
		if v, ok := bytesCut(w, "gometal.copyout="); ok && NumCopyouts < len(CopyoutArgs) {
			CopyoutArgs[NumCopyouts] = v
			NumCopyouts++
		}
		switch string(w) {
		case "quiet":
			klog.ConsoleLevel = klog.LevelWarning // CONSOLE_LOGLEVEL_QUIET
		case "gometal.semihosting=1":
			semihosting = true
		case "gometal.stats=1":
			StatsAtExit = true
		case "gometal.echo=1":
			consoleCooked = true
		case "gometal.crashtest=1":
			crashTest = true
		case "gometal.crashtest=deadlock":
			crashDeadlock = true
		case "gometal.lockcheck=1":
			// Before any second core runs: the checker's tables are
			// per core and it is on for every lock taken from here.
			cpu.OrderViolation = lockOrderViolated
			cpu.OrderCheck = true
		case "gometal.lockcheck=0":
			cpu.OrderCheck = false
		}
		i = j
	}
	if s, ok := dtb.Prop(ch, "rng-seed"); ok {
		copy(RNGSeed[:], s)
	}
	if s, ok := dtb.Prop(ch, "kaslr-seed"); ok {
		for i := range s {
			RNGSeed[i%len(RNGSeed)] ^= s[i]
		}
	}
}

// bytesCut returns what follows prefix in w, if w starts with it.
// bootU16 is a bootarg's number that must fit 16 bits (a window size), 0
// when it does not.
func bootU16(v []byte) uint16 {
	n, ok := parseSize(v, 0)
	if !ok || n > 0xffff {
		return 0
	}
	return uint16(n)
}

func bytesCut(w []byte, prefix string) ([]byte, bool) {
	if len(w) < len(prefix) || string(w[:len(prefix)]) != prefix {
		return nil, false
	}
	return w[len(prefix):], true
}

var StatsAtExit bool

// DumpAfterNanos, if not 0, is when after boot the personality prints
// the state dump (gometal.dumpafter=MS).
var DumpAfterNanos uint64

// crashTest (bootarg gometal.crashtest=1) makes the kernel fault on
// purpose once booted, so the panic report and its symbolization can be
// tested end to end.
var crashTest bool
var crashTarget *sched.CPU

// crashDeadlock (bootarg gometal.crashtest=deadlock) makes core 1 take
// the kernel lock it already holds, so the deadlock report is tested end
// to end; the wait before the report is then 1 s.
var crashDeadlock bool

// initMemory gives every RAM page that is not the kernel, the DTB, the
// initramfs or a /memreserve/ to the page allocator, then replaces the
// boot page tables with the real direct map.
func initMemory(dtbPA uintptr) {
	for n := dtb.FindDeviceType(-1, "memory"); n >= 0; n = dtb.FindDeviceType(n, "memory") {
		for i := 0; nRAM < len(ramRanges); i++ {
			base, size, ok := dtb.Reg(n, i)
			if !ok {
				break
			}
			if size == 0 {
				continue
			}
			ramRanges[nRAM] = mm.Range{Start: uintptr(base), End: uintptr(base + size)}
			nRAM++
		}
	}
	if nRAM == 0 {
		Panic("the device tree describes no memory")
	}
	var reserved [24]mm.Range
	nres := 0
	add := func(s, e uintptr) {
		if nres < len(reserved) && e > s {
			reserved[nres] = mm.Range{Start: mm.PageDown(s), End: mm.PageUp(e)}
			nres++
		}
	}
	// The Image starts one page below .text (the header page).
	add(cpu.KPA(kernelText())-mm.PageSize, cpu.KPA(kernelEnd()))
	add(dtbPA, dtbPA+uintptr(dtbSize))
	if s, e, ok := initrdRange(); ok {
		add(s, e)
	}
	for i := 0; ; i++ {
		a, s, ok := dtb.MemReserve(i)
		if !ok {
			break
		}
		add(uintptr(a), uintptr(a+s))
	}
	// Regions the firmware keeps for itself (DT spec §3.5
	// "/reserved-memory"): every enabled child with a static reg.
	// Dynamic ones (a size and no reg, like the Pi's CMA pool) are the
	// OS's to place and need nothing here.
	if rm := dtb.Path("/reserved-memory"); rm >= 0 {
		for n := dtb.FirstChild(rm); n >= 0; n = dtb.NextSibling(n) {
			if _, ok := enabledDevice(n); !ok {
				continue
			}
			for i := 0; ; i++ {
				a, sz, ok := dtb.Phys(n, i)
				if !ok {
					break
				}
				add(uintptr(a), uintptr(a+sz))
			}
		}
	}
	// QEMU's boot stub lives in the first page of RAM on virt; on the
	// Pi it is the spin table (also a /memreserve/).
	add(ramRanges[0].Start, ramRanges[0].Start+mm.PageSize)
	for i := 0; i < nRAM; i++ {
		addFree(ramRanges[i].Start, ramRanges[i].End, reserved[:nres])
	}
	root := mm.BuildKernelMap(&mm.Pages, ramRanges[:nRAM])
	if root == 0 {
		Panic("out of memory building the kernel page tables")
	}
	cpu.WriteTTBR1(uint64(root))
	cpu.TLBIAll()
	kernelRoot = root
	if !mm.Pages.InitRefs() {
		Panic("out of memory for the page frames' reference counts")
	}
	if Info("memory: ") {
		PutDec(int64(mm.Pages.Total() * mm.PageSize >> 20))
		Puts(" MiB usable")
		InfoEnd()
	}
}

// addFree gives the allocator [s, e) minus the reserved ranges.
func addFree(s, e uintptr, res []mm.Range) {
	for s < e {
		next, resume := e, e
		inside := false
		for _, r := range res {
			if r.Start <= s && r.End > s {
				s, inside = r.End, true
				break
			}
			if r.Start > s && r.Start < next {
				next, resume = r.Start, r.End
			}
		}
		if inside {
			continue
		}
		mm.Pages.AddRange(s, next)
		s = resume
	}
}

// initInterrupts finds the GIC and the timer's interrupt; each core then
// sets up its own side in initCPULocal.
func initInterrupts() {
	if n := dtb.FindCompatible(-1, "arm,gic-v3"); n >= 0 {
		d, _, ok1 := dtb.Phys(n, 0)
		r, _, ok2 := dtb.Phys(n, 1)
		if !ok1 || !ok2 {
			Panic("GICv3 node without distributor and redistributor registers")
		}
		gic.InitV3(cpu.KVA(uintptr(d)), cpu.KVA(uintptr(r)))
	} else {
		n := dtb.FindCompatible(-1, "arm,cortex-a15-gic")
		if n < 0 {
			n = dtb.FindCompatible(-1, "arm,gic-400")
		}
		if n < 0 {
			Panic("no supported interrupt controller (GICv2 or GICv3) in the device tree")
		}
		d, _, ok1 := dtb.Phys(n, 0)
		ci, _, ok2 := dtb.Phys(n, 1)
		if !ok1 || !ok2 {
			Panic("GIC node without distributor and CPU interface registers")
		}
		gic.InitV2(cpu.KVA(uintptr(d)), cpu.KVA(uintptr(ci)))
	}
	timerIRQ = defaultVirtTimerPPI
	if tn := dtb.FindCompatible(-1, "arm,armv8-timer"); tn >= 0 {
		if typ, num, _, ok := dtb.Interrupt(tn, archTimerVirtIndex); ok && typ == dtIRQPPI {
			timerIRQ = num + ppiBase
		}
	}
	timer.Init()
	klog.Now = logTime // lines before have time 0, as Linux's earliest printk lines
}

func initClock() {
	n := dtb.FindCompatible(-1, "arm,pl031")
	if n < 0 {
		return
	}
	if addr, _, ok := dtb.Phys(n, 0); ok {
		rtc.kind, rtc.base = rtcPL031, cpu.KVA(uintptr(addr))
		secs := pl031.Seconds(rtc.base)
		clock.WallAtBoot = int64(secs)*1e9 - timer.TicksToNanos(cpu.ReadCNTVCT())
	}
}

func initrdRange() (uintptr, uintptr, bool) {
	ch := dtb.Path("/chosen")
	if ch < 0 {
		return 0, 0, false
	}
	s, ok1 := dtb.PropCells(ch, "linux,initrd-start")
	e, ok2 := dtb.PropCells(ch, "linux,initrd-end")
	if !ok1 || !ok2 || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}

func findInitrd() bool {
	s, e, ok := initrdRange()
	if !ok {
		return false
	}
	fs.Archive = unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(s))), e-s)
	return true
}

// countCPUs counts the cores the DTB describes.
func countCPUs() int {
	n := 0
	for c := dtb.FindDeviceType(-1, "cpu"); c >= 0; c = dtb.FindDeviceType(c, "cpu") {
		n++
	}
	return n
}
