package tests

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ext4, written (kernel/ext4fs's Writer over its journal): a guest
// program changes a disk gometal disk create made as a program on Linux
// would; the host's e2fsck -fn finds it clean, debugfs reads the files
// the guest wrote byte for byte, and a second boot reads the same tree.

// fileLines are the "file: NAME SHA LEN ERR" lines of a guest's output.
func fileLines(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "file: "); ok {
			name, rest, _ := strings.Cut(f, " ")
			m[name] = rest
		}
	}
	return m
}

// treeLines are the "tree: " lines of a guest's output.
func treeLines(out string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "tree: "); ok {
			got = append(got, s)
		}
	}
	return got
}

// e2fsckClean fails the test unless e2fsck -fn finds img clean.
func e2fsckClean(t *testing.T, img, when string) {
	t.Helper()
	if out, err := exec.Command(tool(t, "e2fsck"), "-fn", img).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -fn %s: %v\n%s", when, err, out)
	}
}

// debugfsCat is a file's bytes as debugfs reads them from img.
func debugfsCat(t *testing.T, img, path string) []byte {
	t.Helper()
	out, err := exec.Command(tool(t, "debugfs"), "-R", "cat "+path, img).Output()
	if err != nil {
		t.Fatalf("debugfs cat %s: %v", path, err)
	}
	return out
}

func TestExt4Written(t *testing.T) {
	t.Parallel()
	img := ext4Image(t, ext4Tree(t), "64M")
	r := gometal(t, "run", "-disk", img, "./tests/progs/ext4rw")
	r.expectClean(t, 0,
		"ext4: vda: mounted read-write, ordered data mode",
		"ext4rw: mount read-write: ok",
		"ext4rw: mounts: /dev/vda /mnt ext4 rw,relatime 0 0",
		"ext4rw: create in a missing directory: ENOENT",
		"ext4rw: mkdir: ok",
		"ext4rw: write big and fsync: ok",
		"ext4rw: big reads back: true 3145851",
		"ext4rw: write into the host's file: ok",
		"ext4rw: append and fdatasync: ok",
		"ext4rw: sparse: ok",
		"ext4rw: truncate down: ok",
		"ext4rw: truncate up: ok",
		"ext4rw: rename a file across directories: ok",
		"ext4rw: rename a directory across: ok",
		"ext4rw: rename over a file: ok",
		"ext4rw: symlink: ok",
		"ext4rw: slow symlink: ok",
		"ext4rw: link: ok",
		"ext4rw: unlink the link again: ok",
		"ext4rw: mkfifo: ok",
		"ext4rw: chmod: ok",
		"ext4rw: chtimes: ok",
		"ext4rw: rmdir a full directory: ENOTEMPTY",
		"ext4rw: remove a tree: ok",
		"ext4rw: 200 files in a directory: ok",
		"ext4rw: read after unlink: true",
		"ext4rw: unlink while open: ok",
		"ext4rw: mmap shared: ok",
		"ext4rw: fill the disk: ENOSPC",
		"wrote at least 8 MiB: true",
		"ext4rw: remove the filler: ok",
		"ext4rw: room back: true files back: true",
		"ext4rw: used since mount (blocks): true",
		"ext4rw: umount: ok",
		"ext4rw: done")
	e2fsckClean(t, img, "after the guest wrote")
	// The host reads what the guest wrote.
	files := fileLines(r.out)
	if len(files) != 9 {
		t.Fatalf("%d file lines, want 9:\n%s", len(files), r.out)
	}
	for name, want := range files {
		b := debugfsCat(t, img, "/"+name)
		if got := fmt.Sprintf("%x %d <nil>", sha256.Sum256(b), len(b)); got != want {
			t.Errorf("debugfs cat /%s: %s, the guest wrote %s", name, got, want)
		}
	}
	if got := debugfsCat(t, img, "/new/slowlink"); string(got) != strings.Repeat("far/", 40)+"away" {
		t.Errorf("debugfs cat /new/slowlink: %q", got)
	}
	// Rebooted: the same tree.
	again := gometal(t, "run", "-disk", img, "./tests/progs/ext4rw", "--", "read")
	again.expectClean(t, 0, "ext4rw: mount read-write: ok", "ext4rw: done")
	if a, b := strings.Join(treeLines(r.out), "\n"), strings.Join(treeLines(again.out), "\n"); a != b || a == "" {
		t.Errorf("the tree after a reboot differs:\nbefore:\n%s\nafter:\n%s", a, b)
	}
	for name, want := range files {
		if got := fileLines(again.out)[name]; got != want {
			t.Errorf("%s after a reboot: %s, want %s", name, got, want)
		}
	}
	e2fsckClean(t, img, "after the second boot")
}

// crashTrials is how many times a make test run kills QEMU in the
// middle of the crash workload (GOMETAL_CRASH_TRIALS overrides it).
const crashTrials = 50

// TestExt4CrashTrials kills QEMU at a random moment of a workload that
// replaces, appends to, truncates and unlinks files with fsync
// (tests/progs/ext4rw crash), crashTrials times, each on a fresh disk:
// the image must be clean for e2fsck -fn once its journal is replayed
// (e2fsck -E journal_only, the replay TestJournalRecovery shows ours
// equals), and every file must hold the last state the guest reported
// durable, or the one it had begun after it. Every fifth trial the next
// mount is gometal's own (a boot that replays and lists the files). The
// seeds are logged.
func TestExt4CrashTrials(t *testing.T) {
	t.Parallel()
	n := crashTrials
	if v := os.Getenv("GOMETAL_CRASH_TRIALS"); v != "" {
		fmt.Sscan(v, &n)
	}
	tree := t.TempDir()
	clean := mustRead(t, ext4Image(t, tree, "32M"))
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	var durableSteps, killedMidStep, replayed int
	for k := 0; k < n; k++ {
		img := filepath.Join(t.TempDir(), "crash.img")
		if err := os.WriteFile(img, clean, 0o644); err != nil {
			t.Fatal(err)
		}
		wait := time.Duration(rng.Intn(3000)) * time.Millisecond
		steps, mid, out := crashOnce(t, img, rng.Int63(), wait)
		durableSteps += steps
		if mid {
			killedMidStep++
		}
		if crashCheck(t, k, img, out, k%5 == 4) {
			replayed++
		}
		if t.Failed() {
			t.Fatalf("trial %d (killed %v after the start):\n%s", k, wait, out)
		}
	}
	t.Logf("%d kills: %d durable steps in all, %d kills inside a step, %d images needing the journal replayed; e2fsck clean and no durable byte lost in each",
		n, durableSteps, killedMidStep, replayed)
}

// crashOnce boots the workload on img, kills QEMU wait after it started,
// and returns how many steps were durable, whether a step was under way,
// and the output.
func crashOnce(t *testing.T, img string, seed int64, wait time.Duration) (int, bool, string) {
	t.Helper()
	cmd := exec.Command(gometalBin, "run", "-timeout", "5m", "-disk", img, "./tests/progs/ext4rw", "--", "crash", fmt.Sprint(seed))
	cmd.Dir = repoRoot
	var out bytes.Buffer
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- strings.TrimRight(sc.Text(), "\r")
		}
		close(lines)
	}()
	var got []string
	var timer <-chan time.Time
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
				break
			}
			got = append(got, l)
			if l == "crash: started" {
				timer = time.After(wait)
			}
		case <-timer:
			if !killQEMU(cmd) {
				t.Error("found no QEMU to kill")
			}
			timer = nil
		}
	}
	cmd.Wait()
	text := strings.Join(got, "\n") + "\n" + out.String()
	steps := strings.Count(text, "crash: durable ")
	mid := strings.Count(text, "crash: begin ") > steps
	return steps, mid, text
}

// crashCheck checks a killed trial's image: clean once replayed, each
// file in its last durable state or the one begun after it. own boots
// gometal on it to replay and list instead of e2fsck's replay. It
// reports whether the journal needed replaying.
func crashCheck(t *testing.T, k int, img, out string, own bool) bool {
	t.Helper()
	if strings.Contains(out, "crash: error:") || !strings.Contains(out, "crash: started") {
		t.Errorf("trial %d: the workload did not run to the kill", k)
		return false
	}
	// Each file's allowed states: "gone" or "LEN SHA".
	durable := map[string]string{}
	begun := map[string]string{}
	history := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(l, "crash: begin "); ok {
			name, st, _ := strings.Cut(f, " ")
			begun[name] = st
			history[name] = append(history[name], st)
		} else if name, ok := strings.CutPrefix(l, "crash: durable "); ok {
			durable[name] = begun[name]
			delete(begun, name)
		}
	}
	if keep := os.Getenv("GOMETAL_CRASH_KEEP"); keep != "" {
		// The image as the kill left it, for a failure's post-mortem.
		b, _ := os.ReadFile(img)
		os.WriteFile(filepath.Join(keep, fmt.Sprintf("trial-%d.img", k)), b, 0o644)
		os.WriteFile(filepath.Join(keep, fmt.Sprintf("trial-%d.out", k)), []byte(out), 0o644)
	}
	// -c: catastrophic mode, which reads no bitmaps: a kill in the middle
	// of a checkpoint leaves a bitmap and its checksum apart until the
	// replay, and debugfs would not open the volume.
	stats, _ := exec.Command(tool(t, "debugfs"), "-c", "-R", "stats", img).Output()
	needed := strings.Contains(string(stats), "needs_recovery")
	if own {
		r := gometal(t, "run", "-disk", img+":/mnt", "./tests/progs/ext4rw", "--", "list-crash")
		r.expect(t, 0, "ext4rw: listed crash")
		if needed && !strings.Contains(r.out, "ext4: vda: recovery complete") {
			t.Errorf("trial %d: our mount did not replay the journal:\n%s", k, r.out)
		}
	} else if needed {
		exec.Command(tool(t, "e2fsck"), "-E", "journal_only", "-y", img).Run()
	}
	e2fsckClean(t, img, fmt.Sprintf("after trial %d", k))
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("f%d", i)
		want, ok := durable[name]
		if !ok {
			want = "gone"
		}
		st := "gone"
		if ls, _ := exec.Command(tool(t, "debugfs"), "-R", "stat /crash/"+name, img).CombinedOutput(); !strings.Contains(string(ls), "File not found") {
			b := debugfsCat(t, img, "/crash/"+name)
			st = fmt.Sprintf("%d %x", len(b), sha256.Sum256(b))
		}
		if st != want && st != begun[name] {
			t.Errorf("trial %d: /crash/%s is %q; durable %q, begun %q; its states: %q", k, name, st, want, begun[name], history[name])
		}
	}
	return needed
}

// TestExt4WriteEIO fails the disk's requests from the first write after
// the mount's first flush (the journal opened) on, with QEMU's blkdebug
// (a rule once triggered fails every request after): the guest's data
// write is EIO, the volume goes read-only with a line in the log
// (Linux's errors=remount-ro), a later change is EROFS, what is cached
// still reads, and the kernel lives to the end of the run.
func TestExt4WriteEIO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := ext4Image(t, ext4Tree(t), "64M")
	conf := filepath.Join(dir, "blkdebug.conf")
	rules := "[set-state]\nstate = \"1\"\nevent = \"flush_to_disk\"\nnew_state = \"2\"\n\n" +
		"[inject-error]\nstate = \"2\"\nevent = \"write_aio\"\nerrno = \"5\"\nonce = \"off\"\n"
	if err := os.WriteFile(conf, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	gometal(t, "run", "-qemu-arg", "-global", "-qemu-arg", "virtio-mmio.force-legacy=false",
		"-qemu-arg", "-drive", "-qemu-arg", "if=none,format=raw,file=blkdebug:"+conf+":"+img+",id=d0",
		"-qemu-arg", "-device", "-qemu-arg", "virtio-blk-device,drive=d0",
		"./tests/progs/ext4rw", "--", "eio").expectClean(t, 0,
		"ext4rw: mount read-write: ok",
		"ext4rw: write on a failing disk: EIO",
		"ext4: vda: a change failed: read-only now (errors=remount-ro)",
		"ext4rw: create after the error: EROFS",
		"ext4rw: read again after the error: ok",
		"ext4rw: list after the error: ok",
		"ext4rw: done")
	e2fsckClean(t, img, "after the failed writes")
}
