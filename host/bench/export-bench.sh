#!/usr/bin/env bash
# export-bench.sh: the export path's figures (docs/export.md, "Measured";
# a benchmark, not a test: nothing is asserted). `make export-bench`
# builds what it needs and runs it: four QEMU boots, about 15 to 25
# minutes on a busy 2-CPU host (the -icount boot alone took 5 minutes
# at load 30). It prints what each run said, then one table of the
# figures with the date, the load and the commit.
#
#   host/bench/export-bench.sh [rate|virtio|icount|all]    (default all)
#
# rate (plain TCG, wall time):
#   - exporter throughput, payload bytes/s from the first frame to the
#     last: record --export of a page-fault burst (SAMPLES, default 4096
#     samples with call chains, about 300 KB; a 256-page buffer so
#     nothing is lost) on the console line (no export UART) and on an
#     export UART (export=ttyS1), each over QEMU's socket and over a pty
#     (tests/qemu/faultrelay.c --pty, the tool's --serial path);
#   - upload time of a 1 MiB static program (push of build/musl/big1m)
#     on the console line, over the socket and over the pty;
#   - the virtio console (export=virtio, the tool's --export): push and
#     pull of the 1 MiB program, the burst, and record --export -g of
#     a program spinning 10 s sampled every 250 us of cpu-clock (4,000
#     samples a second).
# icount (one -icount boot, shift 0, --smp 1: guest time is
#   instructions, so the host's load does not move the figures; an
#   export UART paced at 115200 baud in guest time, export_pace):
#   - kernel instructions per exported byte: the export thread's busy
#     time over the bytes it sent, for a page-fault burst that ends at
#     once (the kernel logs both when a stream ends);
#   - the sweep: cpu instructions sampled every 1e9/RATE (RATE samples
#     a guest second, ICOUNT_RATES, default 250 500 750 1000 1500 2000),
#     a 4 KiB buffer (-m 1), a 2 s spin: samples kept, LOST records,
#     bytes exported and bytes a guest second, instructions a byte at
#     each rate; the highest rate without LOST records.
#   BENCH_KERNEL=FILE boots that kernel.elf instead (before/after);
#   ICOUNT_PACK=0 sends the records unpacked (export_pack=0; default
#   packed, FRAME_EXPORT_PACKED); ICOUNT_LINE=virtio measures on the
#   virtio console, unpaced (kernel instructions a byte);
#   ICOUNT_SMP=2 gives the program a CPU of its own beside the export
#   thread's CPU 0 (instructions a byte then count both CPUs' time).
#   `make export-bench-icount` runs this part alone.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/baremon
what=${1:-all}
samples=${SAMPLES:-4096}
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
bm() { timeout 1800 "$tool" --timeout 900 "$@"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# The table's rows, "figure|line|value|conditions", in order.
rows=()
row() { rows+=("$1|$2|$3|$4"); }

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
# summary_field ERRFILE WORDS: the number before WORDS in the summary
# ("bytes,", "samples,", "LOST", "s first").
summary_field() { exported "$1" | grep -Eo "[0-9.]+ $2" | head -n 1 | cut -d' ' -f1; }

# record NAME LINE ARGS...: record --export of the burst; its line and a row.
record() {
	local name=$1 line=$2
	shift 2
	bm "$@" "${rec[@]}" >/dev/null 2>"$work/$name.rec"
	local rc=$?
	echo "$line: exporter [exit $rc] $(exported "$work/$name.rec")"
	local b s lost
	b=$(summary_field "$work/$name.rec" 'bytes,')
	s=$(summary_field "$work/$name.rec" 's first')
	lost=$(summary_field "$work/$name.rec" 'LOST')
	if [ "$rc" = 0 ] && [ -n "$b" ] && [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s > 0) }'; then
		row "exporter throughput (payload bytes/s)" "$line" \
			"$(awk -v b="$b" -v s="$s" 'BEGIN { printf "%d", b / s }')" \
			"$b bytes in $s s, $lost LOST; load $(load)"
	else
		row "exporter throughput (payload bytes/s)" "$line" "failed (exit $rc)" "load $(load)"
	fi
}
# upload NAME LINE ARGS...: push the 1 MiB program; its line and a row.
upload() {
	local name=$1 line=$2
	shift 2
	bm "$@" push "$big" "/tmp/big-$name" >/dev/null 2>"$work/$name.push"
	local rc=$?
	local said
	said=$(grep -Eo '[0-9]+ bytes in [0-9.]+ s \([0-9]+ bytes/s\)' "$work/$name.push")
	local damage
	damage=$(grep -Eo 'line damage: .*' "$work/$name.push" | sed 's/line damage: //')
	echo "$line: upload [exit $rc] $said ${damage:+($damage)}"
	if [ "$rc" = 0 ] && [ -n "$said" ]; then
		row "upload of a 1 MiB static program (push)" "$line" \
			"$(echo "$said" | awk '{ printf "%s s (%s bytes/s)", $4, substr($6, 2) }')" \
			"$(echo "$said" | cut -d' ' -f1) bytes; ${damage:-no line damage}; load $(load)"
	else
		row "upload of a 1 MiB static program (push)" "$line" "failed (exit $rc)" "load $(load)"
	fi
}

# download NAME LINE ARGS...: pull the 1 MiB program back; a row.
download() {
	local name=$1 line=$2
	shift 2
	local t0
	t0=$(date +%s.%N)
	bm "$@" pull "/tmp/big-$name" "$work/big-$name" >/dev/null 2>"$work/$name.pull"
	local rc=$? t
	t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	local said
	said=$(grep -Eo '[0-9]+ bytes in [0-9.]+ s' "$work/$name.pull")
	if [ "$rc" = 0 ] && [ -n "$said" ] && cmp -s "$big" "$work/big-$name"; then
		row "download of the 1 MiB program (pull)" "$line" \
			"$(echo "$said" | awk '{ printf "%s s (%d bytes/s)", $4, $1 / ($4 > 0 ? $4 : 1) }')" \
			"$(echo "$said" | cut -d' ' -f1) bytes, intact; the command $t s; load $(load)"
	else
		row "download of the 1 MiB program (pull)" "$line" "failed (exit $rc)" "load $(load)"
	fi
	echo "$line: download [exit $rc] $said"
}

# The virtio console: one boot, the tool's --export line.
virtio() {
	echo "== virtio console (export=virtio; $(nproc) host CPUs, load $(load))"
	boot vx --smp 2 --export-virtio "socket:$work/vexp.sock" || return
	local v=(--connect "unix:$work/vx.sock" --export-connect "unix:$work/vexp.sock")
	upload vx "virtio console, QEMU socket" "${v[@]}"
	download vx "virtio console, QEMU socket" "${v[@]}"
	record vx "virtio console, QEMU socket" "${v[@]}"
	# 4,000 samples a second with call chains for 10 s.
	bm "${v[@]}" record --export -e cpu-clock -c 250000 -g -o "$work/s.data" \
		-- "$prog" 10000 64 >/dev/null 2>"$work/vx.stream"
	local rc=$? samp lost unrep gap s
	samp=$(summary_field "$work/vx.stream" 'samples,')
	lost=$(summary_field "$work/vx.stream" 'LOST')
	unrep=$(summary_field "$work/vx.stream" 'dropped unreported')
	gap=$(summary_field "$work/vx.stream" 'bytes of frames missing')
	s=$(summary_field "$work/vx.stream" 's first')
	echo "virtio console: 10 s at 4,000 samples/s -g [exit $rc]: $(exported "$work/vx.stream")"
	row "record --export -g, cpu-clock every 250 us, 10 s (4,000 samples/s)" "virtio console, QEMU socket" \
		"${samp:-?} samples ($(ratio "${samp:-0}" "${s:-0}")/s), ${lost:-?} LOST, ${unrep:-?} dropped, ${gap:-?} bytes missing" \
		"exit $rc; $s s first frame to last; load $(load)"
	stop "${v[@]}"
}

rate() {
	gcc -O2 -o "$work/relay" "$top/tests/qemu/faultrelay.c"
	echo "== rate (plain TCG; $(nproc) host CPUs, load $(load); program $(stat -c %s "$big") bytes)"
	rec=(record --export -e page-faults -c 1 -g -m 256 -o "$work/x.data" -- "$prog" 10 "$samples")
	# The console line, on a guest without an export UART (with one, the
	# exporter would send there, and a line nobody reads holds frames).
	boot con || return
	local c=(--connect "unix:$work/con.sock")
	record con "console UART, QEMU socket" "${c[@]}"
	upload con "console UART, QEMU socket" "${c[@]}"
	pty "$work/con.sock" con.pty
	record con-pty "console UART, pty (--serial)" --serial "$ptydev:115200"
	upload con-pty "console UART, pty (--serial)" --serial "$ptydev:115200"
	unpty
	stop "${c[@]}"
	boot ex --export-serial "socket:$work/exp.sock" || return
	record ex "export UART, QEMU socket" --connect "unix:$work/ex.sock" \
		--export-connect "unix:$work/exp.sock"
	pty "$work/exp.sock" exp.pty
	record ex-pty "export UART, pty" --connect "unix:$work/ex.sock" \
		--export-connect "$ptydev:115200"
	unpty
	stop --connect "unix:$work/ex.sock" --export-connect "unix:$work/exp.sock"
}

# ended FILE: each stream's kernel line "export: channel N ended: B
# bytes in F frames over D ns; ... busy T ns meanwhile" as "B D T"
# (D 0 from a kernel that does not say it).
ended() {
	grep -o 'export: channel.*' "$1" | awk '{
		b = d = t = ""
		for (i = 1; i <= NF; i++) {
			if ($(i+1) == "bytes" && b == "") b = $i
			if ($i == "over") d = $(i+1)
			if ($(i+1) == "ns" && $(i+2) ~ /^meanwhile/) t = $i
		}
		if (b != "" && t != "") print b, (d == "" ? 0 : d), t }'
}
# ratio A B: A/B rounded, or "?" when B is 0 or missing
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "?" }'; }

# The -icount figures, from one boot: guest time is instructions, so
# neither the host's load nor its speed enters. ICOUNT_RATES: the
# sample rates of the sweep; BENCH_KERNEL: another kernel.elf (a
# before/after comparison).
icount() {
	local rates=${ICOUNT_RATES:-250 500 750 1000 1500 2000}
	local kernel=()
	[ -n "${BENCH_KERNEL:-}" ] && kernel=(--kernel "$BENCH_KERNEL")
	local lname="export UART, paced at 115200, export_pack=${ICOUNT_PACK:-1}"
	[ "${ICOUNT_LINE:-uart}" = virtio ] && lname="virtio console, unpaced"
	echo "== icount (--icount shift 0, --smp ${ICOUNT_SMP:-1}, $lname; kernel ${BENCH_KERNEL:-build/kernel.elf}; load $(load))"
	local t0=$SECONDS
	local line_opt=(--export-serial "socket:$work/iexp.sock" --cmdline "export_pace export_pack=${ICOUNT_PACK:-1}")
	[ "${ICOUNT_LINE:-uart}" = virtio ] && line_opt=(--export-virtio "socket:$work/iexp.sock")
	boot ic --icount --smp "${ICOUNT_SMP:-1}" "${line_opt[@]}" "${kernel[@]}" || return
	# -v: the console's lines (the kernel's "export: channel N ended")
	# land in each command's stderr.
	local e=(-v --connect "unix:$work/ic.sock" --export-connect "unix:$work/iexp.sock")
	bm "${e[@]}" push "$prog" /tmp/bench-recwork >/dev/null 2>"$work/ipush.err"
	echo "booted and pushed the program in $((SECONDS - t0)) s [exit $?]"
	# The cost: a page-fault burst that ends at once; the line drains
	# it while the CPU is otherwise idle, so the export thread's busy
	# ns (rounds that moved bytes) are its instructions.
	bm "${e[@]}" record --export -e page-faults -c 1 -g -m 256 -o "$work/b.data" \
		-- /tmp/bench-recwork 10 512 >/dev/null 2>"$work/b.err"
	echo "page-fault burst of 512 samples: $(exported "$work/b.err")"
	local bdt
	bdt=$(ended "$work/b.err" | awk '{ b += $1; t += $3 } END { if (b) print b, t }')
	# The sweep: instructions every N, 1e9/N samples a guest second.
	sweep=()
	local best="" first_lost=""
	for r in $rates; do
		local n=$((1000000000 / r))
		bm "${e[@]}" record --export -e instructions -c "$n" -m 1 -o "$work/i.data" \
			-- /tmp/bench-recwork 2000 >/dev/null 2>"$work/i$r.err"
		local rc=$?
		echo "$r samples a guest second (instructions every $n) [exit $rc]: $(exported "$work/i$r.err")"
		local lost samp slost unrep bdt_r
		lost=$(summary_field "$work/i$r.err" 'LOST')
		samp=$(summary_field "$work/i$r.err" 'samples,')
		slost=$(exported "$work/i$r.err" | grep -Eo '\([0-9]+ samples lost' | grep -Eo '[0-9]+')
		# Records dropped after the last LOST record (the stream
		# ended first): the END frame's count. Lost all the same.
		unrep=$(summary_field "$work/i$r.err" 'dropped unreported')
		bdt_r=$(ended "$work/i$r.err" | awk '{ b += $1; if ($2 > d) d = $2; t += $3 } END { if (b) print b, d, t }')
		local b d t
		read -r b d t <<<"$bdt_r"
		sweep+=("$r|${samp:-?}|${lost:-?}|${slost:-?}|${unrep:-?}|${b:-?}|$(ratio "$((${b:-0} * 1000000000))" "$d")|$(ratio "$t" "$b")|$rc")
		if [ "$rc" = 0 ] && [ "$lost" = 0 ] && [ "$unrep" = 0 ] && [ -z "$first_lost" ]; then
			best=$r
		elif [ -z "$first_lost" ]; then
			first_lost=$r
		fi
	done
	stop "${e[@]}"
	echo "the -icount part took $((SECONDS - t0)) s"
	echo
	echo "== the sweep ($lname; paced: at most 11,520 wire bytes a guest second)"
	echo "| samples/s | samples kept | LOST records | samples lost in them | dropped, unreported | bytes exported | bytes/s (guest) | instructions/byte | exit |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for l in "${sweep[@]}"; do echo "| ${l//|/ | } |"; done
	row "highest sample rate exported without LOST records" "$lname" \
		"${best:-none} samples a guest second" \
		"${first_lost:+the next rate, $first_lost/s, lost records (LOST or dropped unreported); }sweep of $rates/s: instructions every 1e9/rate, a 4 KiB buffer (-m 1), 2 guest s, -icount shift=0, ${ICOUNT_SMP:-1} CPU(s); load $(load)"
	if [ -n "$bdt" ]; then
		local bb bt
		read -r bb bt <<<"$bdt"
		row "kernel instructions per exported byte" "$lname" \
			"$(ratio "$bt" "$bb")" \
			"a page-fault burst of 512 samples with call chains, $bb bytes: the export thread's busy ns under -icount shift=0, ${ICOUNT_SMP:-1} CPU(s) otherwise idle; load $(load)"
	else
		row "kernel instructions per exported byte" "$lname" "failed" "no stream ended in the log; load $(load)"
	fi
}

# The figures in one table (Markdown, as docs/export.md quotes it).
table() {
	echo
	echo "== export figures: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) host CPUs, load $(load), QEMU $(qemu-system-x86_64 --version | head -n 1 | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1)"
	echo "| figure | line | measured | conditions |"
	echo "|---|---|---|---|"
	for r in "${rows[@]}"; do
		echo "| ${r//|/ | } |"
	done
}

case $what in
rate) rate; virtio ;;
virtio) virtio ;;
icount) icount ;;
all) rate; virtio; icount ;;
*) echo "usage: $0 [rate|virtio|icount|all]" >&2; exit 2 ;;
esac
table
