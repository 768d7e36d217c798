#!/usr/bin/env bash
# linux-ref.sh: run a static program on Debian's Linux kernel in the same
# QEMU settings as baremon's runs (docs/bench.md, "Linux in the same run").
#
#   tools/linux-ref.sh [OPTIONS] -- PROGRAM[:DEST] [ARGS...]
#     --icount N       -icount shift=N,sleep=off (as run-qemu.sh --icount N)
#     --smp N          CPUs (default 2)
#     --cmdline ARGS   more kernel arguments (default: isolcpus=1 nohz_full=1)
#     --timeout S      give up after S seconds (default 900)
#     --add SRC[:DEST] another file in the initramfs (DEST default /bin/NAME)
#
# The kernel is the one Debian's linux-image-amd64 depends on, fetched
# once with `apt-get download` and cached under build/linux-ref/. The
# initramfs (cpio newc) holds /init (tools/linux-ref/init.c, static musl),
# PROGRAM as DEST (default /bin/NAME) and the --add files; /init mounts
# /proc, /sys, /dev, /tmp, tracefs and debugfs, brings the other CPUs online (the kernel boots with
# maxcpus=1: see below), runs the program with ARGS, prints
# "linux-ref: exit N" and powers off. The guest boots QEMU's direct kernel loader (no
# firmware) with TCG, -cpu max,vendor=GenuineIntel, q35, 512M, a serial
# console on stdout; the exit status is the program's (124: timeout).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BAREMON_BUILD:-$top/build}
cache=$build/linux-ref
icount="" smp=2 extra="isolcpus=1 nohz_full=1" timeout=900 adds=()
die() { echo "linux-ref: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--icount) icount=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--cmdline) extra=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (the program goes after --)" ;;
	esac
done
[ $# -ge 1 ] || die "usage: $0 [OPTIONS] -- PROGRAM [ARGS...]"
prog=${1%%:*}
name=/bin/$(basename "$prog")
case $1 in *:*) name=${1#*:} ;; esac
shift
[ -f "$prog" ] || die "no program '$prog'"

# --- the kernel: Debian's, downloaded once -----------------------------------
fetch_kernel() {
	mkdir -p "$cache/deb"
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || die "apt-cache knows no linux-image-amd64 (apt-get update?)"
	echo "linux-ref: downloading $pkg (once; cached in $cache)" >&2
	(cd "$cache/deb" && apt-get download "$pkg" >&2) ||
		die "apt-get download $pkg failed"
	local deb
	deb=$(ls "$cache/deb/${pkg}_"*.deb | head -n 1)
	rm -rf "$cache/x" && mkdir -p "$cache/x"
	dpkg-deb -x "$deb" "$cache/x"
	cp "$(ls "$cache/x"/boot/vmlinuz-* | head -n 1)" "$cache/vmlinuz"
	basename "$deb" .deb > "$cache/version"
	rm -rf "$cache/x" "$cache/deb"
}
[ -f "$cache/vmlinuz" ] || fetch_kernel

# --- /init ---------------------------------------------------------------------
init=$cache/init
if [ ! -x "$init" ] || [ "$top/tools/linux-ref/init.c" -nt "$init" ]; then
	musl-gcc -static -O2 -Wall -Wextra -Werror -o "$init" "$top/tools/linux-ref/init.c"
fi

# --- the initramfs ----------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/linux-ref.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/root
mkdir -p "$stage/bin" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/tmp" "$stage/etc"
cp "$init" "$stage/init"
mkdir -p "$stage$(dirname "$name")"
cp "$prog" "$stage$name"
for spec in ${adds[@]+"${adds[@]}"}; do
	case $spec in
	*:*) src=${spec%%:*} dest=${spec#*:} ;;
	*) src=$spec dest=/bin/$(basename "$spec") ;;
	esac
	mkdir -p "$stage$(dirname "$dest")"
	cp "$src" "$stage$dest"
done
(cd "$stage" && find . | cpio -o -H newc --quiet) > "$work/initramfs.cpio"

# --- QEMU ------------------------------------------------------------------------
accel=(-accel tcg -cpu max,vendor=GenuineIntel)
note="TCG"
if [ -n "$icount" ]; then
	accel+=(-icount "shift=$icount,sleep=off")
	note="$note, -icount shift=$icount,sleep=off"
fi
# Linux 6.1's boot-time bring-up of the second CPU hangs under -icount
# (QEMU 7.2, TCG): it boots with one and /init hot-plugs the others.
append="console=ttyS0 loglevel=1 panic=-1 maxcpus=1 linux_ref_online=$((smp - 1)) $extra -- $name $*"
echo "linux-ref: $(cat "$cache/version" 2>/dev/null || echo linux), $note, $smp CPU(s), cmdline: $append" >&2
log=$work/serial.log
rc=0
timeout "$timeout" qemu-system-x86_64 -machine q35 -m 512M -smp "$smp" "${accel[@]}" \
	-nodefaults -display none -no-reboot -serial "file:$log" \
	-kernel "$cache/vmlinuz" -initrd "$work/initramfs.cpio" -append "$append" \
	</dev/null || rc=$?
tr -d '\r' < "$log"
[ "$rc" = 124 ] && { echo "linux-ref: timed out after ${timeout}s" >&2; exit 124; }
status=$(tr -d '\r' < "$log" | sed -n 's/^linux-ref: exit \([0-9]*\)$/\1/p' | tail -n 1)
[ -n "$status" ] || { echo "linux-ref: the program did not finish" >&2; exit 1; }
exit "$status"
