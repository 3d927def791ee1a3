package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/partition/mbr"

	"github.com/gometal/gometal/qemu"
)

// The Raspberry Pi 4 board on QEMU's raspi4b (QEMU >= 9.0, which make
// deps installs): Linux's device tree, entry at EL2, four cores released
// from the spin table, the GIC-400, the PL011 and the mini UART.

// rpi4 runs the CLI with -board rpi4 after the subcommand.
func rpi4(t *testing.T, args ...string) result {
	t.Helper()
	return gometal(t, append([]string{args[0], "-board", "rpi4"}, args[1:]...)...)
}

func TestRPi4HelloArgsEnvFourCores(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "-env", "GREETING=hi from a Pi", "./tests/progs/hello", "--", "a", "b c")
	r.expect(t, 0, "gometal: booting on Raspberry Pi 4 Model B, entered at EL2",
		"gometal: cores: 4 of 4 online", "hello from gometal", `args=["a" "b c"]`,
		"GREETING=hi from a Pi", "cpus=4 gomaxprocs=4", "gometal: app exited with status 0")
	logLine(t, r.out, `gometal: memory: .*`)
	logLine(t, r.out, `gometal: kernel ready in .*`)
}

func TestRPi4ExitStatus(t *testing.T) {
	t.Parallel()
	rpi4(t, "run", "./tests/progs/exit3").expect(t, 3, "exiting with 3")
	rpi4(t, "run", "./tests/progs/panic").expect(t, 2, "panic: boom from gometal")
}

// TestRPi4FirmwareProperties: the kernel asks the VideoCore's firmware
// (the mailbox's property channel) for the board's properties at boot,
// and a program reads them where the Pi's Linux shows them: /proc/cpuinfo's
// Hardware, Revision, Serial and Model lines, and the SoC's temperature in
// /sys/class/thermal/thermal_zone0, and the device tree's model in
// /proc/device-tree (virt's too). QEMU 10's raspi4b answers a revision
// that says a Pi 4 Model B with the RAM QEMU gave it (2 GiB), serial 0,
// its NIC's MAC and 25 °C (hw/misc/bcm2835_property.c's fixed reading).
// On virt, which has no such firmware, none of it is there, as on Linux.
func TestRPi4FirmwareProperties(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "./tests/progs/pifirmware")
	r.expect(t, 0, "pifirmware: Hardware: BCM2835", "pifirmware: Model: Raspberry Pi 4 Model B",
		"pifirmware: thermal type: cpu-thermal", "pifirmware: thermal temp: 25000",
		`pifirmware: device-tree model: "Raspberry Pi 4 Model B\x00"`, "pifirmware: done")
	m := regexp.MustCompile(`pifirmware: Revision: ([0-9a-f]{6})\b`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no revision line:\n%s", r.out)
	}
	rev, _ := strconv.ParseUint(m[1], 16, 32)
	// The new-style revision code (raspberrypi.com's "Raspberry Pi
	// revision codes"): bit 23 set, type in bits 4-11 (0x11: 4B),
	// memory in bits 20-22 (3: 2 GB).
	if rev>>23&1 != 1 || rev>>4&0xff != 0x11 || rev>>20&7 != 3 {
		t.Errorf("revision %s: want a new-style code for a Pi 4B with 2 GB", m[1])
	}
	for _, re := range []string{`pifirmware: Serial: [0-9a-f]{16}\n`,
		`gometal: firmware: board revision ` + m[1] + `, serial [0-9a-f]{16}, MAC 52:54:00:12:34:56, ARM memory [0-9.]+ MiB, VideoCore [0-9.]+ MiB`} {
		if !regexp.MustCompile(re).MatchString(r.out) {
			t.Errorf("output lacks a line matching %q", re)
		}
	}
	v := gometal(t, "run", "./tests/progs/pifirmware")
	v.expect(t, 0, "pifirmware: thermal temp: open /sys/class/thermal/thermal_zone0/temp: no such file or directory",
		`pifirmware: device-tree model: "linux,dummy-virt\x00"`, "pifirmware: done")
	if strings.Contains(v.out, "pifirmware: Revision") || strings.Contains(v.out, "gometal: firmware:") {
		t.Errorf("virt shows a Pi's firmware properties:\n%s", v.out)
	}
}

// TestRPi4I2C: the BSC controllers the device tree enables are
// /dev/i2c-0 and /dev/i2c-1 (Linux's i2c-dev), and a program drives
// QEMU's TMP105 sensor at 0x48 on i2c-1 (the header's bus on a board)
// through them (tests/progs/pii2c): the adapter's functionality word
// (i2c-bcm2835's), the temperature register by write(2) and read(2)
// (0: QEMU's TMP105 resets it so), the T_LOW and T_HIGH limits by
// I2C_RDWR and by I2C_SMBUS word data (the chip's 75 and 80 °C), T_LOW
// written and read back, then set and read back in one transfer of
// three messages, a read before a write (EOPNOTSUPP, as i2c-bcm2835),
// four threads' transfers at once each with its own answer, a child
// killed amid its transfers (the bus is free after), an address no
// device answers (EREMOTEIO), and an address past 7 bits (EINVAL).
func TestRPi4I2C(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "-qemu-arg", "-device", "-qemu-arg", "tmp105,bus=i2c-bus.1,address=0x48", "./tests/progs/pii2c")
	r.expect(t, 0, "gometal: i2c: i2c-0 (100 kHz) i2c-1 (100 kHz)",
		"pii2c: nodes [/dev/i2c-0 /dev/i2c-1]",
		"pii2c: funcs 0xeff0009 <nil>",
		"pii2c: slave <nil>",
		"pii2c: temperature 2 <nil> 0",
		"pii2c: rdwr t_low 2 <nil> 75000",
		"pii2c: smbus t_high <nil> 80000",
		"pii2c: t_low now 2 <nil> 25000",
		// QEMU's raspi4b wires no BSC interrupt to the GIC: the
		// backstop serves the controller, and says so once.
		"gometal: i2c: no interrupt came for a transfer's step; the controller is served every 1 ms",
		"pii2c: three messages 3 <nil> 30000",
		"pii2c: read first: operation not supported",
		"pii2c: concurrent: 200 reads, 0 wrong",
		`pii2c: the loop said "looping 2 <nil> 80000\n" and ended: signal: killed`,
		"pii2c: after the kill: t_high 2 <nil> 80000",
		"pii2c: no device: remote I/O error",
		"pii2c: bad address: invalid argument",
		"pii2c: done")
}

// TestRPi4MemoryAboveOneGiB: a 2 GiB Pi 4's RAM above the VideoCore's
// (from 1 GiB), which the firmware describes on a board and gometal run
// adds to the tree QEMU gets (qemu.AddRPi4HighMemory), is the kernel's:
// the boot counts it, /proc/meminfo shows it, and a program touches
// 1,500 MiB, every page read back as written (tests/progs/bigmem).
func TestRPi4MemoryAboveOneGiB(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "-timeout", "4m", "./tests/progs/bigmem", "--", "1500")
	r.expect(t, 0, "bigmem: 1500 MiB touched, 0 pages wrong", "gometal: app exited with status 0")
	if n := r.counter(t, `gometal: memory: (\d+) MiB usable`); n < 1900 {
		t.Errorf("the kernel has %d MiB, want the 2 GiB board's RAM less the VideoCore's and its own", n)
	}
	if n := r.counter(t, `bigmem: MemTotal: (\d+) kB`); n < 1900<<10 {
		t.Errorf("MemTotal %d kB, want over 1900 MiB", n)
	}
}

// TestRPi4SPI: SPI0 (on, as dtparam=spi=on has it: gometal run applies
// that to the device tree QEMU gets) is /dev/spidev0.0 and 0.1 (Linux's
// spidev), and a program reads QEMU's M25P80 flash on chip select 0
// through it (tests/progs/pispi): the device's defaults, the flash's
// JEDEC ID (ST's 20 20 14) by a two-transfer message and, in a second
// boot, by one full-duplex transfer (one command a boot: QEMU 10's
// controller drives no chip select, so the flash never sees a command
// end), and the modes spi-bcm2835 lacks (EINVAL).
func TestRPi4SPI(t *testing.T) {
	t.Parallel()
	flash := []string{"-qemu-arg", "-device", "-qemu-arg", "m25p80,bus=spi"}
	r := rpi4(t, append(append([]string{"run"}, flash...), "./tests/progs/pispi")...)
	r.expect(t, 0, "gometal: spi: spi0",
		"pispi: nodes [/dev/spidev0.0 /dev/spidev0.1]",
		"pispi: mode 0 bits 8 max speed ",
		"pispi: set speed <nil>",
		"pispi: jedec 4 <nil> 20 20 14",
		"pispi: LSB first: invalid argument",
		"pispi: 16-bit words: invalid argument",
		"pispi: done")
	d := rpi4(t, append(append([]string{"run"}, flash...), "./tests/progs/pispi", "--", "duplex")...)
	d.expect(t, 0, "pispi: jedec full duplex 4 <nil> 20 20 14", "pispi: done")
}

// The Pi has no real-time clock of its own; gometal run attaches one
// on its I2C bus (TestRPi4RTC), so the wall clock is checked too.
func TestRPi4SleepAndTimers(t *testing.T) {
	t.Parallel()
	rpi4(t, "run", "./tests/progs/sleep").expect(t, 0, "order: 100 200 300", "sleep ok")
}

// Timed waits never end early on the Pi's 54 MHz counter either, with
// the idle cores' early timer and poll (tests/progs/timeouts).
func TestRPi4TimedWaitsNeverEarly(t *testing.T) {
	t.Parallel()
	expectTimedWaits(t, rpi4(t, "run", "-env", "GOMETAL_STATS=1", "./tests/progs/timeouts"))
}

// All four cores come from the spin table: spinners run on distinct cores
// (getcpu), and threads pinned to a core run there.
func TestRPi4AllCoresFromSpinTable(t *testing.T) {
	t.Parallel()
	rpi4(t, "run", "./tests/progs/smp", "--", "spread").expect(t, 0, "spinners=4 cores=[0 1 2 3] distinct=4")
	rpi4(t, "run", "./tests/progs/smp", "--", "affinity").expect(t, 0, "pinned to core 3: ok", "affinity ok")
}

// A call-free loop holding the only P is preempted (SIGURG, SGI).
func TestRPi4PreemptSpinner(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "-env", "GOMETAL_STATS=1", signalsProg, "--", "spin1")
	r.expect(t, 0, "PASS")
	if !regexp.MustCompile(`signals:.* 23=[1-9]`).MatchString(r.out) {
		t.Errorf("stats show no SIGURG frame:\n%s", r.out)
	}
}

func TestRPi4Poller(t *testing.T) {
	t.Parallel()
	rpi4(t, "run", pollerProg, "--", "pipe-deadline").expect(t, 0, "i/o timeout", "PASS")
	rpi4(t, "run", pollerProg, "--", "timerfd").expect(t, 0, "timerfd: one-shot, gettime, periodic, disarm, absolute, epoll, blocking read, bad arguments", "PASS")
}

// The same bound as on virt (TestIdleGuestCostsLittleHostCPU).
func TestRPi4IdleGuestCostsLittleHostCPU(t *testing.T) {
	t.Parallel()
	r := gometal(t, "bench", "-board", "rpi4", "-side", "gometal", "-runs", "1", "-idle", "5", "idle_cpu_pct")
	m := regexp.MustCompile("(?m)^\\| `idle_cpu_pct`:[^|]*\\|[^|]*\\| ([0-9.]+) \\|").FindStringSubmatch(r.out)
	if r.status != 0 || m == nil {
		t.Fatalf("gometal bench -board rpi4 idle_cpu_pct: status %d\n%s", r.status, r.out)
	}
	t.Logf("QEMU raspi4b used %s%% of one host core while the guest slept 5 s", m[1])
	if pct, _ := strconv.ParseFloat(m[1], 64); pct > 25 {
		t.Errorf("QEMU used %.0f%% of a host core while idle, want < 25%%", pct)
	}
}

func TestRPi4StdlibThroughGoTestExec(t *testing.T) {
	goTestExecOn(t, "rpi4", true, nil, "sort", "strconv")
}

// The console is on both UARTs: QEMU's first serial port is the PL011,
// its second the mini UART, which is what a Pi's header pins carry. The
// mini UART's output is the whole console, and a line typed into it
// reaches the app through its receive interrupt.
func TestRPi4MiniUART(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pipe := filepath.Join(dir, "mini")
	for _, f := range []string{pipe + ".in", pipe + ".out"} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	lines := make(chan string, 100)
	go func() {
		out, err := os.Open(pipe + ".out") // QEMU opens both ends O_RDWR
		if err != nil {
			close(lines)
			return
		}
		defer out.Close()
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	done := make(chan result, 1)
	go func() {
		done <- rpi4(t, "run", "-timeout", "60s", "-qemu-arg", "-chardev", "-qemu-arg", "pipe,id=mini,path="+pipe,
			"-qemu-arg", "-serial", "-qemu-arg", "chardev:mini", "./tests/progs/stdin")
	}()
	var mini []string
	typed := false
	deadline := time.After(90 * time.Second)
	for !typed {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the mini UART's output closed; it said:\n%s", strings.Join(mini, "\n"))
			}
			mini = append(mini, l)
			if strings.Contains(l, "gometal: kernel ready") {
				in, err := os.OpenFile(pipe+".in", os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				in.WriteString("typed on pins 8 and 10\nquit\n")
				in.Close()
				typed = true
			}
		case <-deadline:
			t.Fatalf("no boot log on the mini UART; it said:\n%s", strings.Join(mini, "\n"))
		}
	}
	r := <-done
	r.expect(t, 0, `got "typed on pins 8 and 10"`, "stdin ok: 1 lines")
	for l := range lines {
		mini = append(mini, l)
	}
	all := strings.Join(mini, "\n")
	for _, want := range []string{"gometal: booting on Raspberry Pi 4 Model B", `got "typed on pins 8 and 10"`, "gometal: app exited with status 0"} {
		if !strings.Contains(all, want) {
			t.Errorf("the mini UART lacks %q; it said:\n%s", want, all)
		}
	}
}

// reboot(2): RESTART resets the board through the PM watchdog (QEMU,
// started with -no-reboot, then exits with 0); POWER_OFF ends the run
// with status 0.
func TestRPi4Reboot(t *testing.T) {
	t.Parallel()
	rpi4(t, "run", "./tests/progs/reboot", "--", "restart").expect(t, 0, "gometal: restarting through the PM watchdog")
	r := rpi4(t, "run", "./tests/progs/reboot", "--", "poweroff")
	r.expect(t, 0, "gometal: app exited with status 0")
	if strings.Contains(r.out, "FAIL") {
		t.Error("reboot returned")
	}
}

// Without the CLI's semihosting the kernel is on its own, as on a board:
// the files gometal build wrote (the padded kernel8.img, the DTB, the
// initramfs) boot on raspi4b, and the app's exit is reported on the
// console with every core halted.
func TestRPi4BootFilesWithoutSemihosting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rpi4(t, "build", "-o", dir, "./tests/progs/exit3").expect(t, 0, filepath.Join(dir, "sdcard.img"))
	boot := filepath.Join(dir, "boot")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu.Binary, "-M", "raspi4b", "-display", "none", "-monitor", "none",
		"-serial", "stdio", "-kernel", filepath.Join(boot, "kernel8.img"),
		"-dtb", filepath.Join(boot, "bcm2711-rpi-4-b.dtb"), "-initrd", filepath.Join(boot, "initramfs.cpio"))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(out.String(), "gometal: all cores halted") && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for _, want := range []string{"entered at EL2", "cores: 4 of 4 online", "exiting with 3", "gometal: all cores halted (status 3)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// The SD card image, read back with the library that wrote it: a FAT32
// (LBA) partition at 1 MiB whose files are byte for byte boot/, then an
// ext4 one (clean for e2fsck, labelled perm) that the kernel mounts at
// /perm; then by the tools that did not write it (checkSDImage:
// fsck.fat, mtools, file, blkid); then the card itself on raspi4b: a
// program keeps a count of boots on /perm across two boots.
func TestRPi4SDCardImage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := rpi4(t, "build", "-o", dir, "-bootarg", "gometal.stats=1", "./tests/progs/hello")
	r.expect(t, 0, filepath.Join(dir, "boot"), filepath.Join(dir, "sdcard.img"), "none has run on a real board yet")
	d, err := diskfs.Open(filepath.Join(dir, "sdcard.img"), diskfs.WithOpenMode(diskfs.ReadOnly))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	pt, err := d.GetPartitionTable()
	if err != nil {
		t.Fatal(err)
	}
	table, ok := pt.(*mbr.Table)
	if !ok {
		t.Fatalf("partition table %T, want MBR", pt)
	}
	var used []*mbr.Partition
	for _, p := range table.Partitions {
		if p.Type != mbr.Empty {
			used = append(used, p)
		}
	}
	if len(used) != 2 {
		t.Fatalf("%d partitions in use, want 2", len(used))
	}
	p := used[0]
	if p.Type != mbr.Fat32LBA || p.Start != 2048 {
		t.Errorf("partition type %#x start %d, want FAT32 LBA (0x0c) at 2048", p.Type, p.Start)
	}
	perm := used[1]
	if perm.Type != mbr.Linux || perm.Start != p.Start+p.Size || perm.Size != 64<<20/512 {
		t.Errorf("partition 2: type %#x start %d size %d, want Linux (0x83) at %d, 64 MiB", perm.Type, perm.Start, perm.Size, p.Start+p.Size)
	}
	fs, err := d.GetFilesystem(1)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "boot"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	files := map[string][]byte{}
	for _, e := range ents {
		names = append(names, e.Name())
		want, _ := os.ReadFile(filepath.Join(dir, "boot", e.Name()))
		files[e.Name()] = want
		f, err := fs.OpenFile("/"+e.Name(), os.O_RDONLY)
		if err != nil {
			t.Errorf("%s not on the card: %v", e.Name(), err)
			continue
		}
		var got bytes.Buffer
		got.ReadFrom(f)
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s on the card differs from boot/ (%d vs %d bytes)", e.Name(), got.Len(), len(want))
		}
	}
	if strings.Join(names, " ") != "LICENSE.broadcom bcm2711-rpi-4-b.dtb cmdline.txt config.txt fixup4.dat initramfs.cpio kernel8.img start4.elf" {
		t.Errorf("boot/ holds %v", names)
	}
	checkSDImage(t, filepath.Join(dir, "sdcard.img"), files)
	cfg, _ := os.ReadFile(filepath.Join(dir, "boot", "config.txt"))
	for _, kv := range []string{"arm_64bit=1", "kernel=kernel8.img", "kernel_address=0x200000",
		"initramfs initramfs.cpio followkernel", "device_tree=bcm2711-rpi-4-b.dtb", "enable_uart=1", "enable_gic=1"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(kv) + `$`).Match(cfg) {
			t.Errorf("config.txt lacks the line %q:\n%s", kv, cfg)
		}
	}
	if cmdline, _ := os.ReadFile(filepath.Join(dir, "boot", "cmdline.txt")); string(cmdline) != "gometal.stats=1 gometal.mount=mmcblk0p1:/boot gometal.mount=mmcblk0p2:/perm\n" {
		t.Errorf("cmdline.txt = %q", cmdline)
	}
	// The /perm partition: a clean ext4 labelled perm.
	card := mustRead(t, filepath.Join(dir, "sdcard.img"))
	permImg := filepath.Join(t.TempDir(), "perm.img")
	if err := os.WriteFile(permImg, card[perm.Start*512:(perm.Start+perm.Size)*512], 0o644); err != nil {
		t.Fatal(err)
	}
	e2fsckClean(t, permImg, "on the card's /perm partition")
	if out, _ := exec.Command(tool(t, "debugfs"), "-R", "stats", permImg).Output(); !strings.Contains(string(out), "Filesystem volume name:   perm") {
		t.Errorf("the /perm partition's label:\n%s", out)
	}
	// The card on raspi4b (QEMU wants a power of two: the image is
	// padded), mounted as its cmdline.txt says: a count of boots kept.
	sd := filepath.Join(t.TempDir(), "sd.img")
	if err := os.WriteFile(sd, card, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sd, 256<<20); err != nil {
		t.Fatal(err)
	}
	for boot := 0; boot < 2; boot++ {
		// The first boot reads /boot back, the second only /perm:
		// reading /boot's 30 MB by SD PIO under TCG takes 17 s alone
		// and up to 2.5 min on a busy 2-core host, so the run's own
		// 60 s bound becomes one that only catches a hang.
		args := []string{"run", "-timeout", "4m", "-disk", sd, "-bootarg", "gometal.mount=mmcblk0p1:/boot", "-bootarg", "gometal.mount=mmcblk0p2:/perm",
			"./tests/progs/ext4rw", "--", "perm", "/perm"}
		if boot == 0 {
			args = append(args, "/boot")
		}
		r := rpi4(t, args...)
		r.expectClean(t, 0, "gometal: mounted mmcblk0p1 (vfat, read-only) at /boot",
			"gometal: mounted mmcblk0p2 (ext4, read-write) at /perm",
			fmt.Sprintf("perm: boots before: %d", boot), "ext4rw: perm: logged this boot: ok")
		if boot > 0 {
			continue
		}
		// /boot read back: each file of the boot partition, byte for byte.
		for name, want := range files {
			if line := fmt.Sprintf("sum: %s %x %d", name, sha256.Sum256(want), len(want)); !strings.Contains(r.out, line) {
				t.Errorf("boot %d: /boot lacks %q", boot, line)
			}
		}
	}
	card = mustRead(t, sd)
	os.WriteFile(permImg, card[perm.Start*512:(perm.Start+perm.Size)*512], 0o644)
	e2fsckClean(t, permImg, "after two boots wrote /perm")
}

// Flags the board cannot honour, and a QEMU without raspi4b, get one
// line and status 2 before anything is built.
func TestRPi4RefusesWhatTheBoardCannotBe(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "-smp", "2", "./tests/progs/hello")
	r.expect(t, 2, "gometal: -smp 2: the rpi4 board always has 4 cores (QEMU raspi4b fixes them)")
	r = rpi4(t, "run", "-m", "1G", "./tests/progs/hello")
	r.expect(t, 2, "gometal: -m 1G: the rpi4 board always has 2G of memory")

	// A QEMU 7.2 stand-in: it knows virt and raspi3b, not raspi4b.
	bin := t.TempDir()
	fake := "#!/bin/sh\ncase \"$*\" in\n*--version*) echo 'QEMU emulator version 7.2.0';;\n*help*) printf 'virt   QEMU 7.2 ARM Virtual Machine\\nraspi3b   Raspberry Pi 3B (revision 1.2)\\n';;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, qemu.Binary), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gometalBin, "run", "-board", "rpi4", "./tests/progs/hello")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	}
	want := "gometal: the installed QEMU (QEMU emulator version 7.2.0) has no raspi4b machine; it needs QEMU 9.0 or later: run make deps"
	if status != 2 || !strings.Contains(string(out), want) || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Errorf("status %d, output:\n%s\nwant one line with %q", status, out, want)
	}
}
