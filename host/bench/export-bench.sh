#!/usr/bin/env bash
# export-bench.sh: the export path's figures (docs/export.md, "Measured";
# a benchmark, not a test: nothing is asserted). `make export-bench`
# builds what it needs and runs it; about 10 minutes on a busy 2-CPU host.
#
#   host/bench/export-bench.sh [rate|icount|all]    (default all)
#
# rate (plain TCG, wall time):
#   - exporter throughput, payload bytes/s from the first frame to the
#     last: record --export of a page-fault burst (8192 samples with call
#     chains, a 256-page buffer so nothing is lost) on the console line
#     (no export UART) and on an export UART (export=ttyS1), each over
#     QEMU's socket and over a pty (tests/qemu/faultrelay.c --pty, the
#     tool's --serial path); then the export UART paced at 115200 baud
#     (export_pace) with 2048 samples;
#   - upload time of a 1 MiB static program (push): console line over
#     the socket and the pty, export UART over the socket.
# icount (--icount: shift 0, a guest ns is an instruction; --smp 1, so
# the export thread's time is its CPU's instructions; export_pace):
#   - kernel instructions per exported byte: the export thread's busy
#     time during a stream over the bytes it sent (the kernel logs both
#     when the stream ends);
#   - the highest sample rate exported without LOST records: instructions
#     sampled every N (1e9/N samples a guest second), a 4 KiB buffer
#     (-m 1), 2 guest seconds, over the 115200-baud line.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/baremon
what=${1:-all}
work=$(mktemp -d)
qpid=""
rpid=""
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
export HOME=$work/home
mkdir -p "$HOME"
make -s -C "$top" build/musl/recwork build/musl/big1m build/baremon >/dev/null || exit 1
prog=$top/build/musl/recwork
big=$top/build/musl/big1m   # the 1 MiB static program (tests/musl/big1m.c)
# A loaded host stretches everything: give the tool room.
bm() { timeout 1200 "$tool" --timeout 300 "$@"; }

# boot NAME RUN-QEMU-OPTIONS...: a QEMU booting, console on
# $work/NAME.sock (the tool waits for the shell's prompt before it types).
boot() {
	local name=$1
	shift
	"$top/run-qemu.sh" --quiet --timeout 3600 --serial "socket:$work/$name.sock" \
		--log "$work/$name.log" "$@" 2>"$work/$name.err" &
	qpid=$!
	for _ in $(seq 600); do
		[ -S "$work/$name.sock" ] && return 0
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.2
	done
	echo "boot $name: no console socket; run-qemu said: $(cat "$work/$name.err")" >&2
	return 1
}
stop() {
	bm "$@" poweroff >/dev/null 2>&1
	wait "$qpid" 2>/dev/null
	qpid=""
}
# pty SOCKET NAME: a pty relayed to SOCKET, its path in $ptydev (not
# in a $(...): the relay would hold its pipe open)
pty() {
	"$work/relay" "$1" --pty "$work/$2" 0 1 >/dev/null 2>&1 &
	rpid=$!
	for _ in $(seq 100); do [ -L "$work/$2" ] && break; sleep 0.1; done
	ptydev=$(readlink "$work/$2")
}
unpty() {
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	rpid=""
}
# exported ERRFILE: the tool's exporter summary, shortened
exported() { grep -o 'exported by the kernel: .*' "$1" | sed 's/exported by the kernel: //'; }
throughput() { # ERRFILE: payload bytes/s
	exported "$1" | awk '{ for (i = 1; i <= NF; i++) { if ($(i+1) == "bytes,") b = $i;
		if ($(i+1) == "s" && $(i+2) == "first") s = $i } }
		END { if (s > 0) printf "%d bytes/s (%d bytes in %.2f s)\n", b / s, b, s; else print "no timing" }'
}
# record NAME ARGS...: record --export, its throughput line
record() {
	local name=$1
	shift
	bm "$@" "${rec[@]}" >/dev/null 2>"$work/$name.rec"
	local rc=$?
	echo "$(throughput "$work/$name.rec") [exit $rc;$(exported "$work/$name.rec" | cut -d, -f4-6)]"
}
# upload NAME ARGS...: push the 1 MiB program, its rate line
upload() {
	local name=$1
	shift
	bm "$@" push "$big" "/tmp/big-$(echo "$name" | tr -c 'a-z0-9\n' -)" 2>&1 |
		grep -Eo '[0-9]+ bytes in .*|line damage: .*' | tr '\n' ' ' 
	echo
}
# both NAME TOOL-ARGS...: a line's throughput and upload
both() {
	local name=$1
	shift
	echo "$name: exporter $(record "$name" "$@")"
	echo "$name: upload $(upload "$name" "$@")"
}

rate() {
	gcc -O2 -o "$work/relay" "$top/tests/qemu/faultrelay.c"
	echo "== rate (plain TCG; $(nproc) host CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); program $(stat -c %s "$big") bytes)"
	rec=(record --export -e page-faults -c 1 -g -m 256 -o "$work/x.data" -- "$prog" 10 8192)
	# The console line, on a guest without an export UART (with one, the
	# exporter would send there, and a line nobody reads holds frames).
	boot con || return
	both "console line, QEMU socket" --connect "unix:$work/con.sock"
	pty "$work/con.sock" con.pty
	both "console line, pty" --serial "$ptydev:115200"
	unpty
	stop --connect "unix:$work/con.sock"
	boot ex --export-serial "socket:$work/exp.sock" || return
	both "export UART, QEMU socket" --connect "unix:$work/ex.sock" --export-connect "unix:$work/exp.sock"
	pty "$work/exp.sock" exp.pty
	echo "export UART, pty: exporter $(record ex-pty --connect "unix:$work/ex.sock" \
		--export-connect "$ptydev:115200")"
	unpty
	stop --connect "unix:$work/ex.sock" --export-connect "unix:$work/exp.sock"
	boot pace --export-serial "socket:$work/pexp.sock" --cmdline export_pace || return
	rec=(record --export -e page-faults -c 1 -g -m 256 -o "$work/x.data" -- "$prog" 10 2048)
	echo "export UART paced at 115200, QEMU socket: exporter $(record pace \
		--connect "unix:$work/pace.sock" --export-connect "unix:$work/pexp.sock")"
	pty "$work/pexp.sock" pexp.pty
	echo "export UART paced at 115200, pty: exporter $(record pace-pty \
		--connect "unix:$work/pace.sock" --export-connect "$ptydev:115200")"
	unpty
	stop --connect "unix:$work/pace.sock" --export-connect "unix:$work/pexp.sock"
}

icount() {
	echo "== icount (--icount shift 0, --smp 1, export_pace: 115200 baud in guest time; load $(cut -d' ' -f1-3 /proc/loadavg))"
	boot ic --icount --smp 1 --export-serial "socket:$work/iexp.sock" --cmdline export_pace || return
	e=(--connect "unix:$work/ic.sock" --export-connect "unix:$work/iexp.sock")
	for n in 5000000 3000000 2000000 1000000; do
		bm "${e[@]}" record --export -e instructions -c "$n" -m 1 -o "$work/i.data" \
			-- "$prog" 2000 >/dev/null 2>"$work/i$n.err"
		echo "instructions every $n ($((1000000000 / n)) samples a guest second): $(exported "$work/i$n.err" | cut -d, -f2-6)"
	done
	stop "${e[@]}"
	echo "kernel instructions per exported byte (the export thread's, per stream):"
	grep -o 'export: channel.*' "$work/ic.log" | awk '{
		for (i = 1; i <= NF; i++) { if ($(i+1) == "bytes") b = $i; if ($(i+1) == "ns") n = $i }
		printf "  %s: %.1f instructions a byte\n", $0, b ? n / b : 0 }'
}

case $what in
rate) rate ;;
icount) icount ;;
all) rate; icount ;;
*) echo "usage: $0 [rate|icount|all]" >&2; exit 2 ;;
esac
