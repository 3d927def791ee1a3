# gometal: `make run` boots the demo, `make test` runs every test.
# Both install what is missing first (scripts/deps.sh: a QEMU with the
# raspi4b machine, from bookworm-backports on Debian bookworm; Go modules).

GO      ?= go
BIN     := bin/gometal
QEMU    := qemu-system-aarch64

.PHONY: all deps build run shell test test-long bench kernel clean vet grade

all: build

deps:
	@QEMU=$(QEMU) scripts/deps.sh
	@$(GO) mod download

build:
	$(GO) build -o $(BIN) -ldflags "-X main.srcRoot=$(CURDIR)" ./cmd/gometal

# The demo makes each GMP behaviour happen on four cores and records the
# kernel's trace and Go's own beside it, then says how to draw them.
run: deps build
	@mkdir -p build
	$(BIN) run -trace build/gmp.ktrace -copyout /tmp/go.trace:build/gmp.gotrace -env GOMETAL_STATS=1 ./examples/gmp -- -gotrace /tmp/go.trace
	@echo
	@echo "Draw it (an HTML timeline: cores, then Go's Ps; works offline):"
	@echo "  $(BIN) trace -go build/gmp.gotrace -o build/gmp.html build/gmp.ktrace"

# Grade a lab in this tree (docs/LABS.md): make grade LAB=futex
grade: build
	@test -n "$(LAB)" || { echo "make grade LAB=NAME; the labs:"; $(BIN) lab; exit 2; }
	$(BIN) lab grade $(LAB)

kernel: build
	$(BIN) build -o build

# Host unit tests, then system tests that boot real programs in QEMU, then
# Go standard-library test suites through go test -exec.
# u-root's shell on the console: its init, gosh and ~110 commands (the
# image is built once, about 3 minutes on 2 cores, then cached). exit or
# poweroff ends the run.
shell: deps build
	$(BIN) run -uroot

test: deps build
	$(GO) vet ./...
	@# The kernel's entry code deliberately zeroes R29 to end backtraces.
	GOOS=linux GOARCH=arm64 $(GO) vet -framepointer=false ./boot ./kernel/... ./sched ./drivers/...
	@# 45 minutes: the system tests take about 24 on a 2-core host alone
	@# (1,436 s and 1,452 s on 2026-11-27, at 4afa19e and at 743ba5d,
	@# which took 19 minutes the day before) and a third more beside
	@# other QEMU runs; the bound is for a hang, not for speed.
	$(GO) test -count=1 -timeout 45m ./...

# The same, with the standard-library suites in full instead of -short
# (regexp's exhaustive RE2 test and sync/atomic's hammers take many minutes
# under QEMU's software emulation).
test-long: deps build
	GOMETAL_STD_FULL=1 $(GO) test -count=1 -timeout 90m ./...

# Benchmarks: boot programs and report figures (not part of make test).
# The gometal-vs-Linux table, against Linux with its default command line
# and with nokaslr (docs/BENCHMARKS.md; every sample in
# docs/BENCHMARKS.json, and what changed beyond the noise since the last
# one); the same program's boot, syscall and timer figures on QEMU
# raspi4b (docs/BENCHMARKS-rpi4.md); then gometal-only figures across
# core counts (tests/bench_test.go).
RPI4_FIGURES := boot_to_first_line_ms kernel_ready_ms getpid_ns timer_wakeups_per_s idle_cpu_pct
# The process figures, gometal vs Linux on 1 core and on 4, in one
# document (docs/BENCHMARKS-processes.md).
PROC_FIGURES := fork_exit_wait_us vfork_exec_wait_us exec_command_us exec_go_us fork_64mib_us proc_pingpong_us
# go build inside each side, cold and warm (docs/BENCHMARKS-gobuild.md):
# about 17 minutes a round of three boots, so three rounds, not five.
GOBUILD_FIGURES := gobuild_cold_s gobuild_warm_s
bench: deps build
	bin/gometal bench -runs 5 -trace-cost $(if $(wildcard docs/BENCHMARKS.json),-compare docs/BENCHMARKS.json) -json docs/BENCHMARKS.json -o docs/BENCHMARKS.md
	bin/gometal bench -board rpi4 -side gometal -runs 3 -o docs/BENCHMARKS-rpi4.md $(RPI4_FIGURES)
	@mkdir -p build
	bin/gometal bench -runs 5 -smp 1 -o build/bench-procs-smp1.md $(PROC_FIGURES)
	bin/gometal bench -runs 5 -smp 4 -o build/bench-procs-smp4.md $(PROC_FIGURES)
	scripts/bench-procs-doc.sh build/bench-procs-smp1.md build/bench-procs-smp4.md > docs/BENCHMARKS-processes.md
	bin/gometal bench -runs 3 -timeout 30m -o docs/BENCHMARKS-gobuild.md $(GOBUILD_FIGURES)
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 1x -timeout 60m ./tests

clean:
	rm -rf bin build
