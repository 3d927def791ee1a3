#!/usr/bin/env bash
# Installs what gometal needs on the host: a qemu-system-aarch64 that has the
# raspi4b machine (QEMU >= 9.0), headless Chromium (the timeline test) and
# the FAT tools that check the SD card image (the SD image tests); the
# Makefile then downloads the Go modules.
#
# Debian bookworm ships QEMU 7.2, which has no raspi4b; bookworm-backports
# serves 10.0.x. On such a system we enable backports and install
# qemu-system-arm from it. Everything, virt included, then runs on that QEMU.
set -euo pipefail

QEMU=${QEMU:-qemu-system-aarch64}
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

has_raspi4b() {
	command -v "$QEMU" >/dev/null 2>&1 && "$QEMU" -M help 2>/dev/null | grep -q '^raspi4b '
}

# The mirror the system already uses for bookworm's main archive, from a
# one-line sources.list entry or a deb822 .sources stanza.
bookworm_mirror() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' "$f"
	done | head -1 | grep . && return
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
			/(^|\n)Suites:[^\n]*[ \t]bookworm([ \t]|$)/ {
				for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); print a[2]; exit }
			}' "$f"
	done | grep -v security | head -1
}

if ! has_raspi4b; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "deps: $QEMU with the raspi4b machine (QEMU >= 9.0) is needed; install it with your package manager" >&2
		exit 2
	fi
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	target=()
	if [ "$codename" = bookworm ]; then
		list=/etc/apt/sources.list.d/gometal-backports.list
		if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
			mirror=$(bookworm_mirror)
			if [ -z "$mirror" ]; then
				echo "deps: no bookworm entry in the apt sources to take a mirror from; add bookworm-backports and run again" >&2
				exit 2
			fi
			echo "deps: enabling bookworm-backports from $mirror ($list) for QEMU >= 9.0"
			echo "deb $mirror bookworm-backports main" | $SUDO tee "$list" >/dev/null
		fi
		target=(-t bookworm-backports)
	fi
	echo "deps: installing qemu-system-arm ${target[*]} (provides $QEMU with raspi4b)"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${target[@]}" qemu-system-arm >/dev/null
	if ! has_raspi4b; then
		echo "deps: the installed $QEMU ($("$QEMU" --version | head -1)) has no raspi4b machine; QEMU >= 9.0 is needed" >&2
		exit 2
	fi
fi
"$QEMU" --version | head -1

# Headless Chromium, for the test that loads gometal trace's HTML timeline
# in a real browser (Debian's chromium package).
if ! command -v chromium >/dev/null 2>&1; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "deps: chromium is needed for the timeline test (tests/timeline_test.go); install it with your package manager" >&2
		exit 2
	fi
	echo "deps: installing chromium (headless, for the trace timeline test)"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
chromium --version 2>/dev/null | head -1

# The tools that check the SD card image gometal build writes, independent
# of the library that wrote it (tests/sdimage_test.go): dosfstools'
# fsck.fat, mtools, file(1) and util-linux's blkid; and e2fsprogs, the
# reference for ext4, which gometal disk runs and the storage tests check
# images with (mke2fs, e2fsck, debugfs).
missing=()
for pair in fsck.fat:dosfstools mdir:mtools file:file blkid:util-linux mke2fs:e2fsprogs; do
	# blkid and fsck.fat live in /sbin, which a user's PATH may lack.
	command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/sbin/${pair%%:*}" ] || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "deps: ${missing[*]} are needed for the SD image and disk tests; install them with your package manager" >&2
		exit 2
	fi
	echo "deps: installing ${missing[*]} (the SD image and disk tests check images with them)"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
