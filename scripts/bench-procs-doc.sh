#!/usr/bin/env bash
# Writes docs/BENCHMARKS-processes.md to stdout from the two documents
# `make bench` has gometal bench write for the process figures, on one
# core and on four: bench-procs-doc.sh SMP1.md SMP4.md
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 SMP1.md SMP4.md" >&2; exit 2; }

cat <<'DOC'
# gometal vs Linux: process benchmarks

Fork, vfork+execve, os/exec and a round trip between two processes, measured by
[`tests/progs/bench`](../tests/progs/bench/procs.go) as `/init` on gometal and on Debian's
Linux under the same QEMU machine, on one core and on four. `make bench` makes this file:

DOC
for f in "$@"; do
	# The command is on the document's "Measured ... with `gometal ...`" line.
	cmd=$(sed -n 's/^Measured .* with `gometal \([^`]*\)`.*/\1/p' "$f")
	echo "    bin/gometal $cmd"
done
cat <<'DOC'
    scripts/bench-procs-doc.sh build/bench-procs-smp1.md build/bench-procs-smp4.md > docs/BENCHMARKS-processes.md

Things to know when reading the tables:

- Every child made with a raw clone (`fork_*`, `vfork_exec_wait_us`) runs only system calls
  ([`procs_arm64.s`](../tests/progs/bench/procs_arm64.s)); the times include what fork leaves the
  parent to pay afterwards (copy-on-write faults on its own next writes).
- Debian's kernel is built with transparent huge pages always on
  (`CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y`): its 64 MiB in `fork_64mib_us` are mostly 2 MiB
  blocks, one table entry each to share at fork, where gometal shares 16384 4 KiB pages.
- `exec_go_us` is mostly the start-up of a 3 MiB static Go program (the bench program itself):
  on gometal its text and read-only data are mapped from the program page cache (the same frames
  every run, as Linux's page cache gives it; `kernel/linux/imagecache_arm64.go`), its data copied,
  then demand paging of its bss and its heap's first pages, its threads. See where gometal's
  time goes with `bin/gometal bench -side gometal -runs 1 -profile exec.pprof exec_go_us`.
DOC
for f in "$@"; do
	smp=$(sed -n 's/.*-smp \([0-9]*\) -m .*/\1/p' "$f" | head -1)
	echo
	echo "## -smp $smp"
	tail -n +2 "$f" # its own title goes: the heading above says which it is
done
