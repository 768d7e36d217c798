#!/usr/bin/env bash
# record.sh: record on baremon, its files read by the host's perf. A
# two-CPU guest records tests/musl/recwork (frame pointers, symbols) with
# page-faults every fault, with the default cpu-clock, with call chains,
# system wide and with two events, and tests/musl/twofunc (two functions,
# 1:3) with cycles and instructions:u; b64 prints each file on the console;
# the host takes them back (tools/b64-extract.sh) and runs Debian's
# `perf script` and `perf report --stdio` on them. recwork is /bin/recwork
# on baremon, so perf finds its symbols under a --symfs tree holding
# bin/recwork. The program's COMM and MMAP2 come from the kernel, or,
# told to ask for none (BAREMON_RECORD_NO_SIDEBAND), record makes them
# from /proc/<pid>/{comm,maps}, which must give a segment's file offset.
# Branch stacks: -b and --call-graph lbr of twofunc (the vpmu's LBR).
# Also: the kernel's text from /proc/kallsyms, the default output file,
# errors.
. "$(dirname "$0")/lib.sh"

work=$build/musl/recwork
session=$logs/record.session
cat >"$session" <<'SESSION'
cat /proc/self/maps
record -e page-faults -c 1 -o /tmp/pf.data -- recwork 100
echo "status pf $?"
b64 /tmp/pf.data
env BAREMON_RECORD_NO_SIDEBAND=1 record -e page-faults -c 1 -v -o /tmp/syn.data -- recwork 100
b64 /tmp/syn.data
record -o /tmp/clk.data -- recwork 500
b64 /tmp/clk.data
record -g -o /tmp/g.data -- recwork 400
b64 /tmp/g.data
record -a -o /tmp/a.data -- recwork 300
b64 /tmp/a.data
record -g -c 1 -e page-faults,page-faults:u -o /tmp/two.data -- recwork 50 16
b64 /tmp/two.data
record -e cycles:u -o /tmp/cyc.data -- recwork 300
b64 /tmp/cyc.data
record -e cycles -o /tmp/tf-cyc.data -- twofunc 30000000
b64 /tmp/tf-cyc.data
record -e instructions:u -c 2003 -o /tmp/tf-ins.data -- twofunc 40000
b64 /tmp/tf-ins.data
record -b -e instructions:u -c 2003 -o /tmp/tf-br.data -- twofunc 4000
b64 /tmp/tf-br.data
record --call-graph lbr -e instructions:u -c 2003 -o /tmp/tf-cs.data -- twofunc 4000
b64 /tmp/tf-cs.data
cd /tmp
record -- recwork 50 8
echo "status default $?"
cd /
record -e no-such-event -- true
echo "status badevent $?"
record -o /tmp/x.data -- no-such-program
echo "status noprog $?"
echo "== end"
SESSION
guest_timeout=$((${GUEST_TIMEOUT:-90} * 2)) # twofunc: 600M instructions; 800k stepped
guest record --smp 2 --session "$session" --add "$work" --add "$build/musl/twofunc"
guest_timeout=${GUEST_TIMEOUT:-90}
expect_rc 0
expect_line '^== end$' "the session ran to its end"
expect_no_line '^PANIC' "no panic"

text=$(readelf -lW "$build/apps/cat" | awk '$1 == "LOAD" && $7 == "R" && $8 == "E" { print $2 }')
expect_line "^0*401000-[0-9a-f]+ r-xp 0*${text#0x} [0-9a-f]{2}:[0-9a-f]{2} [1-9][0-9]* +/bin/cat\$" \
	"/proc/self/maps: the text segment at its file offset ($text)"

symfs=$logs/symfs
mkdir -p "$symfs/bin" && cp "$work" "$symfs/bin/recwork" && cp "$build/musl/twofunc" "$symfs/bin/twofunc"
out=$logs/perf.out
# take NAME: the file b64 printed, into $logs/NAME.
take() { check "$1 comes back from the console" "$top/tools/b64-extract.sh" "$log" "$1" "$logs/$1"; }
# script NAME [OPTION...]: perf script's output in $out (errors in $out.err).
script() {
	local f=$1
	shift
	perf script -i "$logs/$f" --symfs "$symfs" "$@" >"$out" 2>"$out.err"
}
report() { perf report --stdio -i "$logs/$1" --symfs "$symfs" >"$out" 2>"$out.err"; }
lines() { grep -Ec -- "$1" "$out"; }
at_least() { [ "$(lines "$1")" -ge "$2" ]; }

expect_line '^status pf 0$' "record exits with the program's status"
expect_line '^\[ record: Captured and wrote [0-9]+ bytes to /tmp/pf.data \([0-9]+ samples\) \]$' \
	"record's summary line"
take pf.data
script pf.data -F comm,tid,event,ip,sym
check "page-faults -c 1: a sample per touched page in touch_pages ($(lines ' touch_pages'))" \
	at_least '^ *recwork +[0-9]+ +page-faults: +[0-9a-f]+ touch_pages$' 64
check "page-faults: every sample is recwork's" [ "$(lines .)" = "$(lines '^ *recwork ')" ]
report pf.data
check "perf report lists touch_pages" grep -Eq '^ +[0-9.]+% +recwork +recwork +\[\.\] touch_pages$' "$out"

perf script -D -i "$logs/pf.data" >"$out" 2>&1
check "the kernel's COMM (exec) of recwork" grep -Eq '^[1-9][0-9]* .*PERF_RECORD_COMM exec: recwork:' "$out"
check "the kernel's MMAP2 of recwork" \
	grep -Eq '^[1-9][0-9]* .*PERF_RECORD_MMAP2 [0-9]+/[0-9]+: \[0x401000\(0x[0-9a-f]+\) @ 0x1000 .*r-xp /bin/recwork$' "$out"

# Two executable mappings: the program's text and the vDSO (perf
# record synthesizes [vdso] too).
expect_line '^record: no MMAP records from the kernel: wrote 2 from /proc/[0-9]+/maps$' \
	"no side-band asked: record writes recwork's MMAP2 from /proc"
expect_line '^record: no COMM record from the kernel: wrote one from /proc/[0-9]+/comm$' \
	"no side-band asked: and its COMM"
take syn.data
perf script -D -i "$logs/syn.data" >"$out" 2>&1
check "no side-band asked: the MMAP2 is record's (time 0), at maps' offset" \
	grep -Eq '^0 .*PERF_RECORD_MMAP2 [0-9]+/[0-9]+: \[0x401000\(0x[0-9a-f]+\) @ 0x1000 .*r-xp /bin/recwork$' "$out"
script syn.data -F comm,tid,event,ip,sym
check "no side-band asked: samples named recwork, in touch_pages ($(lines ' touch_pages'))" \
	at_least '^ *recwork +[0-9]+ +page-faults: +[0-9a-f]+ touch_pages$' 64

take clk.data
script clk.data -F comm,event,ip,sym
check "cpu-clock by default: samples in spin_loop ($(lines ' spin_loop$'))" \
	at_least '^ *recwork +cpu-clock: +[0-9a-f]+ spin_loop$' 10
report clk.data
first_row() { awk '/^ +[0-9.]+%/ { print; exit }' "$out" | grep -Eq "$1"; }
check "perf report: spin_loop first" first_row '^ +[0-9.]+% +recwork +recwork +\[\.\] spin_loop$'
ktext=$(nm "$build/kernel.elf" | awk '$3 == "__text_start" { print $1 }' | sed 's/^0*//')
perf script -D -i "$logs/clk.data" >"$out" 2>&1
check "the kernel's text from /proc/kallsyms: an MMAP of [kernel.kallsyms]_text at 0x$ktext" \
	grep -Eq "PERF_RECORD_MMAP -1/0: \[0x$ktext\(0x[0-9a-f]+\) @ 0x$ktext\]: x \[kernel.kallsyms\]_text\$" "$out"
perf report --stdio --sort dso,sym -i "$logs/clk.data" --symfs "$symfs" --vmlinux "$build/kernel.elf" >"$out" 2>&1
check "perf report --vmlinux: no kernel sample left unnamed" \
	sh -c "! grep -Eq '\[k\] (0x[0-9a-f]+|\[unknown\])' '$out'"

take g.data
script g.data -F comm,ip,sym
check "-g: call chains spin_loop <- main" \
	awk '/ spin_loop$/ { s = NR } / main$/ && s == NR - 1 { ok = 1 } END { exit !ok }' "$out"

take a.data
script a.data -F comm,cpu,event,ip,sym
check "-a: recwork's samples carry their CPU" \
	at_least '^ *recwork +\[00[01]\] +cpu-clock: +[0-9a-f]+ spin_loop$' 5

take two.data
script two.data -F event,ip,sym
# in_touch EVENT: EVENT's samples whose call chain starts in touch_pages.
in_touch() { awk -v e="$1:" '$1 == e { s = NR } s == NR - 1 && / touch_pages$/ { n++ } END { print n + 0 }' "$out"; }
check "two events: page-faults samples in touch_pages ($(in_touch page-faults))" \
	[ "$(in_touch page-faults)" -ge 16 ]
check "two events: page-faults:u samples in touch_pages ($(in_touch page-faults:u))" \
	[ "$(in_touch page-faults:u)" -ge 16 ]
check "two events, -g: call chains touch_pages <- main" \
	awk '/ touch_pages$/ { s = NR } / main$/ && s == NR - 1 { ok = 1 } END { exit !ok }' "$out"

take cyc.data
perf evlist -v -i "$logs/cyc.data" >"$out" 2>&1
check "-e cycles:u: opened on the cpu PMU (type 0), or as cpu-clock where nothing counts cycles" \
	grep -Eq '^(cycles:uH: size: 128|cpu-clock:uH: type: 1), .*exclude_kernel: 1' "$out"
check "-e cycles:u: perf script reads the file" \
	sh -c "perf script -i '$logs/cyc.data' --symfs '$symfs' >/dev/null 2>&1"
# Hardware events sample from the PMI (docs/pmu.md).
script cyc.data -F event,ip,sym
check "-e cycles:u: samples in spin_loop ($(lines ' spin_loop$'))" \
	at_least '^ *cycles[^ ]*: +[0-9a-f]+ spin_loop$' 10

# twofunc: heavy() runs three times the loop light() runs, nothing else
# of note. Samples of a user-time overflow carry the user's registers
# whichever path noticed it, so perf report names the two functions;
# instructions (single-stepped: the PMI at the overflowing instruction)
# split 3:1 to the unit's noise, cycles (the TSC: TCG's wall time, which
# host load bends) roughly so.
# A sample's pid that is also a host process in another mount namespace
# (pid 25, kdevtmpfs, here) makes perf look for the binary there and
# give up: report from a fresh pid namespace, where no such process is.
isolated_perf() { unshare --pid --fork --mount-proc perf "$@"; }
# share SYM: SYM's percentage in perf report's $out (0 if absent).
share() { awk -v s="$1" '$NF == s && $1 ~ /%$/ { sub(/%/, "", $1); p += $1 } END { printf "%.2f", p + 0 }' "$out"; }
# kernel: the kernel's percentage in perf report's $out. With the PMI an
# NMI (the default), kernel time (timer ticks, the model's updates) is
# sampled in the kernel, where the maskable PMI gave it to the user
# instruction interrupts came back on.
kernel() { awk '$2 == "[k]" && $1 ~ /%$/ { sub(/%/, "", $1); p += $1 } END { printf "%.2f", p + 0 }' "$out"; }
# profile FILE LO HI: >= 95% in light, heavy and the kernel, heavy's
# part of the two in [LO, HI].
profile() {
	local f=$1 lo=$2 hi=$3 l h k
	take "$f"
	isolated_perf report --stdio --sort sym -i "$logs/$f" --symfs "$symfs" >"$out" 2>"$out.err"
	l=$(share light) h=$(share heavy) k=$(kernel)
	check "$f: perf report puts >= 95% in light and heavy ($l% + $h%), or the kernel ($k%)" \
		awk -v l="$l" -v h="$h" -v k="$k" 'BEGIN { exit !(l + h + k >= 95) }'
	check "$f: heavy's part is in [$lo, $hi]" \
		awk -v l="$l" -v h="$h" -v lo="$lo" -v hi="$hi" 'BEGIN { r = h / (l + h); exit !(r >= lo && r <= hi) }'
}
profile tf-cyc.data 0.60 0.95
profile tf-ins.data 0.74 0.76
script tf-ins.data -F event,ip,sym,period
check "instructions:u -c 2003: every sample's PERIOD is 2003" \
	awk '$1 == 2003 { ok++ } END { exit !(ok > 0 && ok == NR) }' "$out"

# Branch stacks (the vpmu's legacy LBR, fed by single-stepping; its
# LBR_INFO makes each entry P, predicted, as Linux reads it):
# -b's entries are twofunc's loop branches, heavy's three times light's;
# --call-graph lbr's calls still open give light and heavy <- main.
take tf-br.data
perf evlist -v -i "$logs/tf-br.data" >"$out" 2>&1
check "-b: branch_sample_type ANY" grep -q 'branch_sample_type: ANY' "$out"
script tf-br.data -F brstacksym
grep -oE '[^ ]+/[^ ]+/[-P]/-/-/0/' "$out" >"$out.entries"
entries() { grep -cE "$1" "$out.entries"; }
in_loops=$(entries '(light|heavy|main)\+0x[0-9a-f]+/(light|heavy|main)\+0x[0-9a-f]+/[-P]/-/-/0/$')
all=$(entries .) heavy_loop=$(entries 'heavy\+0xf/heavy\+0x4/') light_loop=$(entries 'light\+0xb/light\+0x0/')
check "-b: perf script -F brstacksym: $in_loops of $all entries in twofunc's loops (>= 95%)" \
	awk -v n="$in_loops" -v a="$all" 'BEGIN { exit !(a >= 300 && n >= 0.95 * a) }'
check "-b: heavy's loop branch $heavy_loop times, light's $light_loop (3:1)" \
	awk -v h="$heavy_loop" -v l="$light_loop" 'BEGIN { exit !(l > 0 && h / l >= 2.5 && h / l <= 3.5) }'
take tf-cs.data
perf evlist -v -i "$logs/tf-cs.data" >"$out" 2>&1
check "--call-graph lbr: branch_sample_type USER|CALL_STACK" grep -q 'branch_sample_type: USER|CALL_STACK' "$out"
isolated_perf script -i "$logs/tf-cs.data" --symfs "$symfs" -F ip,sym >"$out" 2>"$out.err"
for f in light heavy; do
	check "--call-graph lbr: call chains $f <- main" \
		awk -v f=" $f\$" '$0 ~ f { s = NR } / main$/ && s == NR - 1 { ok = 1 } END { exit !ok }' "$out"
done

expect_line '^\[ record: Captured and wrote [0-9]+ bytes to perf.data \([0-9]+ samples\) \]$' \
	"no -o: perf.data in the current directory"
expect_line '^status default 0$' "no -o: status 0"
expect_line "^record: unknown event 'no-such-event'\$" "unknown event"
expect_line '^status badevent 2$' "unknown event: status 2"
expect_line '^record: no-such-program: No such file or directory$' "a missing program"
expect_line '^status noprog 127$' "a missing program: status 127"

finish
