#!/bin/sh
# record-host.sh: the record tool (build/apps/record, a static libc-lite
# program) on the host Linux, with Debian's perf (linux-perf 6.1) as the
# reference: perf script and perf report read what record writes, with
# the program's symbols; record opens the attrs `perf record -vv` shows
# for the same options; page-faults -c 1 takes as many samples as perf
# record takes; the side-band records come from Linux, or from /proc when
# record is told to ask for none (BAREMON_RECORD_NO_SIDEBAND, the path
# it takes on a kernel without them); -o - and a pipe; b64 and
# tools/b64-extract.sh round trip; errors. The workload is
# build/musl/recwork (frame pointers, symbols). Root: -a and kernel
# samples. Last line: "record-host: N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
record=$top/build/apps/record
work=$top/build/musl/recwork
. "$top/tests/apps/harness.sh"
at_least() { [ "$(lines "$1")" -ge "$2" ]; }
status() { check "$2 (status $1)" [ "$rc" = "$1" ]; }
expect() { check "$2" has "$1"; }
# script FILE [OPTION...]: perf script's output in $out.
script() {
	f=$1
	shift
	run perf script -i "$f" "$@"
}
# chain SYM CALLER: a call chain in $out where CALLER calls SYM.
chain() { awk -v s=" $1\$" -v c=" $2\$" '$0 ~ s { at = NR } $0 ~ c && at == NR - 1 { ok = 1 } END { exit !ok }' "$out"; }
# symbol_samples SYM: lines of `perf script -F ip,sym` (no chains) in SYM.
symbol_samples() { grep -Ec -- "^ *[0-9a-f]+ $1\$" "$out"; }

if [ ! -x "$record" ] || [ ! -x "$work" ] || ! command -v perf >/dev/null; then
	echo "record-host: needs build/apps/record, build/musl/recwork and perf (linux-perf)"
	echo "record-host: 0 passed, 1 failed"
	exit 1
fi

# ---- cpu-clock, the default ---------------------------------------------------
run "$record" -o "$tmp/clk.data" -- "$work" 300
status 0 "default: the program's status"
expect '^recwork: 64 pages, 300 ms' "default: the program ran"
expect "^\\[ record: Captured and wrote [0-9]+ bytes to $tmp/clk.data \\([0-9]+ samples\\) \\]\$" \
	"default: the summary line"
script "$tmp/clk.data" -F comm,event,ip,sym
check "default: cpu-clock samples in spin_loop ($(lines ' spin_loop$'))" \
	at_least '^ *recwork +cpu-clock: +[0-9a-f]+ spin_loop$' 100
run perf report --stdio -i "$tmp/clk.data"
check "perf report: spin_loop first" \
	sh -c "grep -E '^ +[0-9.]+%' '$out' | head -n 1 | grep -Eq '% +recwork +recwork +\\[\\.\\] spin_loop\$'"
run perf script -D -i "$tmp/clk.data"
expect '^[1-9][0-9]* 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_MMAP2 [0-9]+/[0-9]+: .* r-xp .*/recwork$' \
	"default: the MMAP2 of recwork is Linux's (a time stamp)"
expect '^-1 -1 0 \[0x98\]: PERF_RECORD_ATTR' "pipe format: an ATTR record of 0x98 bytes (attr size 128)"
grep -o 'PERF_RECORD_MMAP -1/0: .*' "$out" >"$tmp/kmap"
perf record -o "$tmp/ref.data" -- "$work" 10 1 >/dev/null 2>&1
perf script -D -i "$tmp/ref.data" 2>/dev/null | grep -o 'PERF_RECORD_MMAP -1/0: .*' >"$tmp/kmap.perf"
check "the kernel's MMAP ([kernel.kallsyms]_text) as perf record writes it" \
	sh -c "[ -s '$tmp/kmap' ] && cmp -s '$tmp/kmap' '$tmp/kmap.perf'"

run "$record" -e cycles -o "$tmp/cyc.data" -- "$work" 100
script "$tmp/cyc.data" -F event,ip,sym
check "-e cycles: samples, as cpu-clock where the machine cannot count cycles (perf's fallback)" \
	at_least '^ *(cycles|cpu-clock): +[0-9a-f]+ spin_loop$' 20

# ---- the same attrs as perf record ---------------------------------------------
# attrs: each perf_event_attr block of -v / -vv output as "#N field value",
# without perf's BPF side-band event (watermark) and its ksymbol/bpf_event
# bits, which record leaves out (no BPF on baremon).
attrs() {
	awk '/^perf_event_attr:/ { on = 1; n++; next } /^-----/ { on = 0 } on { print n " " $0 }' |
		awk '$0 ~ / watermark / { skip[$1] = 1 } { l[NR] = $0; k[NR] = $1 }
		     END { for (i = 1; i <= NR; i++) if (!(k[i] in skip)) print l[i] }' |
		grep -v ' ksymbol \| bpf_event '
}
same_attrs() {
	# shellcheck disable=SC2086 # the options are words
	perf record -vv $1 -o "$tmp/ref.data" -- "$work" 10 1 2>&1 >/dev/null | attrs >"$tmp/perf.attrs"
	"$record" -v $1 -o "$tmp/rec.data" -- "$work" 10 1 2>&1 >/dev/null | attrs >"$tmp/rec.attrs"
	[ -s "$tmp/perf.attrs" ] && diff "$tmp/perf.attrs" "$tmp/rec.attrs" >"$out"
}
for opts in "-e cpu-clock" "-F 1000 -e task-clock" "-e page-faults -c 1 -g" \
	"-e page-faults,context-switches -c 1" "-e {page-faults,context-switches} -c 3" \
	"-a -e cpu-clock" "-a -g -e page-faults" "-C 0 -e page-faults:u -c 10"; do
	shown=0 rc=0
	check "attrs as perf record $opts opens them" same_attrs "$opts"
done

# ---- page faults, against perf record -------------------------------------------
run perf record -e page-faults -c 1 -o "$tmp/ref.data" -- "$work" 10 64
script "$tmp/ref.data" -F ip,sym
ref_touch=$(symbol_samples touch_pages) ref_all=$(lines .)
run "$record" -e page-faults -c 1 -o "$tmp/pf.data" -- "$work" 10 64
script "$tmp/pf.data" -F ip,sym
touch=$(symbol_samples touch_pages) all=$(lines .)
check "page-faults -c 1: a sample per touched page ($touch)" [ "$touch" -ge 64 ]
check "page-faults -c 1: touch_pages as perf record has it ($touch, perf $ref_touch)" \
	[ "$touch" = "$ref_touch" ]
within10() { [ "$(($1 * 10))" -ge "$(($2 * 9))" ] && [ "$(($1 * 10))" -le "$(($2 * 11))" ]; }
check "page-faults -c 1: samples within 10% of perf record's ($all, perf $ref_all)" \
	within10 "$all" "$ref_all"

# ---- call chains, per CPU -------------------------------------------------------
run "$record" -g -o "$tmp/g.data" -- "$work" 200
script "$tmp/g.data" -F ip,sym
check "-g: spin_loop called from main" chain spin_loop main
run "$record" -g -e page-faults -c 1 -o "$tmp/gpf.data" -- "$work" 10 16
script "$tmp/gpf.data" -F ip,sym
check "-g: touch_pages called from main" chain touch_pages main
run "$record" -a -o "$tmp/a.data" -- "$work" 200
status 0 "-a: the program's status"
script "$tmp/a.data" -F comm,cpu,event,ip,sym
check "-a: recwork's samples with their CPU" at_least '^ *recwork +\[[0-9]+\] +cpu-clock: +[0-9a-f]+ spin_loop$' 50
run "$record" -C 0 -o "$tmp/c0.data" -- "$work" 50
script "$tmp/c0.data" -F cpu
only_cpu0() { [ "$(lines .)" -gt 0 ] && [ "$(lines '^ *\[000\] *$')" = "$(lines .)" ]; }
check "-C 0: samples of CPU 0 only" only_cpu0

# ---- record's own COMM and MMAP2, from /proc ------------------------------------
run env BAREMON_RECORD_NO_SIDEBAND=1 "$record" -v -o "$tmp/syn.data" -- "$work" 300
expect '^record: no MMAP records from the kernel: wrote [0-9]+ from /proc/[0-9]+/maps$' \
	"no side-band: record writes recwork's MMAP2 from /proc"
expect '^record: no COMM record from the kernel: wrote one from /proc/[0-9]+/comm$' \
	"no side-band: and its COMM"
script "$tmp/syn.data" -F comm,event,ip,sym
check "no side-band: samples named recwork, in spin_loop ($(lines ' spin_loop$'))" \
	at_least '^ *recwork +cpu-clock: +[0-9a-f]+ spin_loop$' 100
run perf script -D -i "$tmp/syn.data"
expect '^0 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_MMAP2 [0-9]+/[0-9]+: \[0x401000\(0x[0-9a-f]+\) @ 0x1000 .*\]: r-xp .*/recwork$' \
	"no side-band: the MMAP2 has time 0 and maps' offset"
run env BAREMON_RECORD_NO_SIDEBAND=1 "$record" -a -o "$tmp/syna.data" -- "$work" 100
script "$tmp/syna.data" -F comm,ip,sym
check "no side-band, -a: recwork named and resolved" at_least '^ *recwork +[0-9a-f]+ spin_loop$' 10

# ---- output to a pipe ------------------------------------------------------------
run sh -c "'$record' -o - -- '$work' 100 2>'$tmp/err' | perf script -i - -F comm,ip,sym"
check "-o -: perf script reads standard input" at_least '^ *recwork +[0-9a-f]+ spin_loop$' 10
check "-o -: the program's output goes to standard error" grep -q '^recwork: ' "$tmp/err"
run sh -c "cd '$tmp' && '$record' -- '$work' 100 2>/dev/null | perf script -i - -F comm,ip,sym"
check "no -o, standard output a pipe: the records go there" at_least '^ *recwork +[0-9a-f]+ spin_loop$' 10
check "no -o, standard output a pipe: no perf.data" [ ! -e "$tmp/perf.data" ]
run sh -c "cd '$tmp' && '$record' -- '$work' 10 </dev/null >/dev/null"
check "no -o: perf.data in the current directory" [ -s "$tmp/perf.data" ]

# ---- b64, the console path --------------------------------------------------------
run "$top/build/apps/b64" "$tmp/clk.data"
cp "$out" "$tmp/console.log"
expect '^----- begin b64 clk.data -----$' "b64: the begin line"
expect "^----- end b64 clk.data $(wc -c <"$tmp/clk.data") -----\$" "b64: the end line with the size"
run "$top/tools/b64-extract.sh" "$tmp/console.log" clk.data "$tmp/back.data"
check "b64-extract.sh gives the file back" cmp -s "$tmp/clk.data" "$tmp/back.data"

# ---- errors ------------------------------------------------------------------------
run "$record" -e no-such-event -- true
status 2 "unknown event"
expect "^record: unknown event 'no-such-event'\$" "unknown event: why"
run "$record" -o "$tmp/x.data" -- "$tmp/no-such-program"
status 127 "a missing program"
run "$record" -o "$tmp/x.data" -- sh -c 'exit 3'
status 3 "the program's exit status"
run "$record" -m 3 -- true
status 2 "-m: not a power of two"
run "$record" -C 99999 -- true
status 2 "-C: a CPU that is not online"
run "$record" -v --call-graph dwarf -e page-faults -c 1 -o "$tmp/dw.data" -- "$work" 5
status 0 "--call-graph dwarf"
expect 'sample_type +IP\|TID\|TIME\|CALLCHAIN\|REGS_USER\|STACK_USER$' "dwarf: REGS_USER and STACK_USER"
expect '^  sample_regs_user +0xff0fff$' "dwarf: the registers perf asks for (0xff0fff)"
expect '^  sample_stack_user +8192$' "dwarf: perf's 8192 bytes of user stack"
expect '^  exclude_callchain_user +1$' "dwarf: no user frame walk, as perf"
run perf report -D -i "$tmp/dw.data"
expect '^\.\.\. user regs: mask 0xff0fff ABI 64-bit$' "dwarf: perf reads the user registers"
expect '^\.\.\. ustack: size [1-9][0-9]*, offset' "dwarf: perf reads the stack dumps"
run "$record" --call-graph dwarf,12 -- true
status 2 "--call-graph dwarf,12: not a multiple of 8"
run "$record" --per-thread -e page-faults -c 1 -o "$tmp/pt.data" -- "$work" 5
status 0 "--per-thread: what record does without -a/-C"
run "$record" --per-thread -a -- true
status 2 "--per-thread with -a"
run "$record"
status 2 "no program"
run "$record" --help
status 0 "--help"
expect '^usage: record ' "--help prints the usage"

echo "record-host: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
