#!/usr/bin/env bash
# export-bench.sh: the export path's figures (docs/export.md, a benchmark,
# not a test; nothing is asserted). Needs `make` and musl-gcc.
#
#   host/bench/export-bench.sh [rate|icount|all]    (default all)
#
# rate (plain TCG, wall time):
#   - exporter throughput, payload bytes/s, first frame to last: record
#     --export of a page-fault burst (8192 samples with call chains, a
#     256-page buffer so nothing is lost) over QEMU's console socket,
#     over a pty (tests/qemu/faultrelay.c --pty), and over a second UART
#     (--export, export=ttyS1);
#   - upload time of a 1 MiB static program (push), console and export UART.
# icount (--icount, export_pace: a 115200-baud line in guest time):
#   - kernel ns per exported byte: the export thread's busy time over the
#     bytes it sent (the kernel logs both at each stream's end); under
#     --icount shift=0 a ns is an instruction;
#   - the highest sample rate exported without LOST records: instructions
#     sampled every N (rates 1e9/N a guest second), 4 KiB buffer, 2 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/baremon
what=${1:-all}
work=$(mktemp -d)
qpid=""
cleanup() { [ -n "$qpid" ] && kill "$qpid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME=$work/home
mkdir -p "$HOME"
make -s -C "$top" build/musl/recwork >/dev/null
prog=$top/build/musl/recwork

# boot NAME RUN-QEMU-OPTIONS...: a QEMU at its prompt, console on $work/NAME.sock
boot() {
	local name=$1
	shift
	"$top/run-qemu.sh" --quiet --timeout 1800 --serial "socket:$work/$name.sock" \
		--log "$work/$name.log" "$@" 2>"$work/$name.err" &
	qpid=$!
	for _ in $(seq 600); do [ -S "$work/$name.sock" ] && break; sleep 0.2; done
}
stop() {
	"$tool" "$@" poweroff >/dev/null 2>&1
	wait "$qpid" 2>/dev/null
	qpid=""
}
# exported LINE...: the tool's exporter summary line, shortened
exported() { grep -o 'exported by the kernel: .*' "$1" | sed 's/exported by the kernel: //'; }
throughput() { # ERRFILE: payload bytes/s
	exported "$1" | awk '{ for (i = 1; i <= NF; i++) { if ($(i+1) == "bytes,") b = $i;
		if ($(i+1) == "s" && $(i+2) == "first") s = $i } }
		END { if (s > 0) printf "%d bytes in %.2f s: %d bytes/s\n", b, s, b / s; else print "no timing" }'
}

rate() {
	musl-gcc -static -O2 -o "$work/big" -x c - <<'C'
#include <stdio.h>
static const unsigned char blob[1 << 20] = { 1 };
int main(void) { printf("%d\n", blob[12345]); return 0; }
C
	echo "== rate (plain TCG; $(nproc) host CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
	# The console line first, on a guest without an export UART (with
	# one, the exporter would send there, and a line nobody reads
	# holds the frames back).
	boot con
	c=(--connect "unix:$work/con.sock")
	rec=(record --export -e page-faults -c 1 -g -m 256 -o "$work/x.data" -- "$prog" 10 8192)
	"$tool" "${c[@]}" "${rec[@]}" >/dev/null 2>"$work/r1.err"
	echo "exporter, console line over QEMU's socket: $(throughput "$work/r1.err")"
	"$tool" "${c[@]}" push "$work/big" /tmp/big 2>&1 | sed 's/^/upload 1 MiB, console line: /'
	gcc -O2 -o "$work/relay" "$top/tests/qemu/faultrelay.c"
	"$work/relay" "$work/con.sock" --pty "$work/pty" 0 1 2>/dev/null &
	rpid=$!
	for _ in $(seq 50); do [ -L "$work/pty" ] && break; sleep 0.1; done
	p=(--serial "$(readlink "$work/pty"):115200")
	"$tool" "${p[@]}" "${rec[@]}" >/dev/null 2>"$work/r3.err"
	echo "exporter, console line over a pty: $(throughput "$work/r3.err")"
	"$tool" "${p[@]}" push "$work/big" /tmp/big3 2>&1 | sed 's/^/upload 1 MiB, pty: /'
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	stop "${c[@]}"
	boot ex --export-serial "socket:$work/exp.sock"
	e=(--connect "unix:$work/ex.sock" --export-connect "unix:$work/exp.sock")
	"$tool" "${e[@]}" "${rec[@]}" >/dev/null 2>"$work/r2.err"
	echo "exporter, export UART (ttyS1) over QEMU's socket: $(throughput "$work/r2.err")"
	"$tool" "${e[@]}" push "$work/big" /tmp/big2 2>&1 | sed 's/^/upload 1 MiB, export UART: /'
	stop "${e[@]}"
}

icount() {
	echo "== icount (--icount, export_pace: 115200 baud in guest time)"
	boot ic --icount --export-serial "socket:$work/iexp.sock" --cmdline export_pace
	e=(--connect "unix:$work/ic.sock" --export-connect "unix:$work/iexp.sock")
	"$tool" "${e[@]}" record --export -e page-faults -c 1 -m 256 -o "$work/i.data" \
		-- "$prog" 10 2048 >/dev/null 2>"$work/i0.err"
	echo "exporter: $(exported "$work/i0.err")"
	for n in 10000000 3000000 1000000 300000 100000; do
		"$tool" "${e[@]}" record --export -e instructions -c "$n" -m 1 -o "$work/i.data" \
			-- "$prog" 2000 >/dev/null 2>"$work/i$n.err"
		echo "instructions every $n ($((1000000000 / n)) samples per guest second): $(exported "$work/i$n.err" | cut -d, -f4-6)"
	done
	stop "${e[@]}"
	echo "kernel log (per stream: bytes sent, the export thread's busy ns = instructions):"
	grep 'export: channel' "$work/ic.log" | sed 's/^/  /'
}

case $what in
rate) rate ;;
icount) icount ;;
all) rate; icount ;;
*) echo "usage: $0 [rate|icount|all]" >&2; exit 2 ;;
esac
