#!/bin/sh
# stat-host.sh: the stat tool (build/apps/stat, a static libc-lite
# program) on the host Linux, which counts software events for root:
# perf stat's text, -x CSV and -j JSON layouts, -r, -a, -C, -A, -I,
# modifiers, groups, HW_CACHE and raw names, pmu/.../ terms and aliases
# resolved through a fixture sysfs tree (BAREMON_SYSFS), and errors.
# Scaled counts (multiplexing), which software events never need, are
# checked through build/tests/apps/stat-rows: stat's own row and output
# code fed with made-up readings.
# Needs `make stat-tests`. Last line: "stat-host: N passed, N failed";
# exit status 1 on any failure.
cd "$(dirname "$0")/../.." || exit 2
stat=$(pwd)/build/apps/stat
rows=$(pwd)/build/tests/apps/stat-rows
top=$(pwd)
. "$top/tests/apps/harness.sh"
lacks() { ! has "$1"; }
count() { grep -Ec -- "$1" "$out"; }
status() { check "$2 (status $1)" [ "$rc" = "$1" ]; }
expect() { check "$2" has "$1"; }
expect_no() { check "$2" lacks "$1"; }
# expect_n REGEX N WHAT: exactly N lines match.
expect_n() { check "$3" [ "$(count "$1")" = "$2" ]; }
# field REGEX N: field N of the first CSV line matching REGEX.
field() { grep -E -- "$1" "$out" | head -n 1 | cut -d, -f"$2"; }
# metric EVENT: the number after '#' on EVENT's first text line.
metric() {
	awk -v e="$1" '$0 ~ " " e " " { for (i = 1; i < NF; i++) if ($i == "#") { print $(i + 1); exit } }' "$out"
}
# same V...: every V is the same number.
same() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	v=$1
	shift
	for w; do [ "$w" = "$v" ] || return 1; done
}
# more_than A B: A > B, both numbers.
more_than() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -gt "$2" ]; }
# within V LO HI: LO <= V <= HI (decimals allowed).
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }

# How many CPUs are online (the list in sysfs, as stat reads it).
ncpu=$(tr ',' '\n' </sys/devices/system/cpu/online |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
last_cpu=$(tr ',-' '\n\n' </sys/devices/system/cpu/online | tail -n 1)

# ---- the default text ------------------------------------------------------
run "$stat" -- sh -c 'exit 3'
status 3 "text: the program's exit status"
expect "^ Performance counter stats for 'sh -c exit 3':\$" "text: header names the command"
expect '^ +[0-9]+\.[0-9]{2} msec task-clock {23}# +[0-9]+\.[0-9]{3} CPUs utilized$' \
	"text: task-clock in msec, '#' in column 58, CPUs utilized"
expect '^ +[0-9]+      page-faults {22}# +[0-9]+\.[0-9]{3} [KMG]?/sec$' "text: page-faults per second"
expect '^ +[0-9]+      (context-switches|cpu-migrations) ' "text: the default software events"
expect '^   <not supported>      cycles$' "text: cycles <not supported> without a PMU"
expect '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "text: elapsed"
expect '^ +[0-9]+\.[0-9]{9} seconds user$' "text: user time"
expect '^ +[0-9]+\.[0-9]{9} seconds sys$' "text: sys time"
check "text: value column 18 wide, event at column 25" \
	awk '/ task-clock / { exit !(index($0, "task-clock") == 25 && substr($0, 16, 3) ~ /^[0-9.]+$/) }' "$out"

run "$stat" -x, -e page-faults -- sh -c :
alone=$(field ',page-faults,' 1)
run "$stat" -x, -e page-faults -- sh -c '/bin/true; /bin/true; /bin/true; /bin/true; /bin/true'
check "children count too (inherit): $alone page faults alone, $(field ',page-faults,' 1) with 5 children" \
	more_than "$(field ',page-faults,' 1)" "$((alone + 100))"

# A tracepoint by name (GROUP:NAME, its id from tracefs), as perf stat
# counts it: sched_process_exec fires once for the program's exec.
if [ -r /sys/kernel/tracing/events/sched/sched_process_exec/id ]; then
	run "$stat" -x, -e sched:sched_process_exec -- true
	status 0 "a tracepoint by name: runs"
	expect '^1,,sched:sched_process_exec,' "sched:sched_process_exec counts the exec, as perf"
fi
run "$stat" -e sched:no_such_tracepoint -- true
status 2 "an unknown tracepoint"
expect "unknown event 'sched:no_such_tracepoint': no tracepoint" "an unknown tracepoint: the reason"

# ---- -x and -j -------------------------------------------------------------
run "$stat" -x, -e task-clock,page-faults,cycles -- true
status 0 "csv: runs"
expect '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9]+\.[0-9]{3},CPUs utilized$' "csv: task-clock row"
expect '^[0-9]+,,page-faults,[0-9]+,100\.00,[0-9]+\.[0-9]{3},[KMG]?/sec$' "csv: page-faults row"
expect '^<not supported>,,cycles,0,100\.00,,$' "csv: unsupported row"
expect_no 'Performance counter stats' "csv: no text header"
check "csv: seven fields on every line" awk -F, 'NF != 7 { exit 1 }' "$out"
run "$stat" -x ';' -e task-clock -- true
expect '^[0-9.]+;msec;task-clock;[0-9]+;100\.00;[0-9.]+;CPUs utilized$' "csv: -x ';' separator"

run "$stat" -j -e task-clock,page-faults,cycles -- true
status 0 "json: runs"
expect '^\{"counter-value" : "[0-9]+\.[0-9]{6}", "unit" : "msec", "event" : "task-clock", "event-runtime" : [0-9]+, "pcnt-running" : 100\.00, "metric-value" : [0-9]+\.[0-9]{6}, "metric-unit" : "CPUs utilized"\}$' \
	"json: task-clock object with perf's keys in perf's order"
expect '^\{"counter-value" : "[0-9]+\.000000", "unit" : "", "event" : "page-faults", ' "json: count with 6 decimals"
expect '^\{"counter-value" : "<not supported>", "unit" : "", "event" : "cycles", "event-runtime" : 0, "pcnt-running" : 100\.00, "metric-value" : 0\.000000, "metric-unit" : ""\}$' \
	"json: unsupported object"

# ---- -r --------------------------------------------------------------------
run "$stat" -r 3 -e task-clock,page-faults -- sh -c "echo run >> $tmp/runs"
status 0 "-r 3: runs"
check "-r 3: the program ran 3 times" [ "$(wc -l <"$tmp/runs")" = 3 ]
expect "^ Performance counter stats for 'sh -c echo run >> $tmp/runs' \\(3 runs\\):\$" "-r 3: header says 3 runs"
expect '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized +\( \+- +[0-9]+\.[0-9]{2}% \)$' \
	"-r 3: task-clock with its variance"
check "-r 3: the variance starts in column 94" \
	awk '/ task-clock / { exit !(index($0, "( +-") == 94) }' "$out"
expect '^ +[0-9]+\.[0-9]+ \+- [0-9]+\.[0-9]+ seconds time elapsed( +\( \+- +[0-9.]+% \))?$' "-r 3: elapsed mean +- stddev"
expect_no 'seconds user' "-r 3: no user/sys times"
run "$stat" -r 2 -x, -e task-clock,cycles -- true
expect '^[0-9.]+,msec,task-clock,[0-9]+\.[0-9]{2}%,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "-r csv: variance column after the event"
expect '^<not supported>,,cycles,0\.00%,0,100\.00,,$' "-r csv: unsupported row has a 0.00% variance"
run "$stat" -r 2 -j -e task-clock -- true
expect '"event" : "task-clock", "variance" : [0-9]+\.[0-9]{2}, "event-runtime" : ' "-r json: variance key"
run "$rows" -t 1000000000 'task-clock=10000000/1/1;20000000/1/1;30000000/1/1' 'page-faults=5/1/1;5/1/1;5/1/1'
expect '^ +20\.00 msec task-clock +# +0\.020 CPUs utilized +\( \+- 28\.87% \)$' \
	"-r: mean 20 of 10,20,30 and stddev of the mean 28.87%"
expect '^ +5      page-faults +# +250\.000 /sec$' "-r: no variance column when it is 0"

# ---- -a, -C, -A ------------------------------------------------------------
run "$stat" -a -e task-clock,context-switches -- sleep 0.2
status 0 "-a: runs"
expect "^ Performance counter stats for 'system wide':\$" "-a: header says system wide"
check "-a: task-clock counts every CPU ($ncpu) while the program runs" \
	within "$(metric task-clock)" "$(echo "$ncpu" | awk '{ print $1 * 0.8 }')" "$ncpu.5"
expect_no 'seconds user' "-a: no user/sys times"
run "$stat" -a -A -x, -e task-clock,context-switches -- sleep 0.1
expect_n '^CPU[0-9]+,[0-9.]+,msec,task-clock,[0-9]+,100\.00,' "$ncpu" "-A: a counted task-clock row per online CPU"
expect_n '^CPU[0-9]+,[0-9]+,,context-switches,' "$ncpu" "-A: a context-switches row per CPU"
check "-A: each CPU's task-clock is about one CPU" \
	awk -F, '/task-clock/ && ($7 < 0.8 || $7 > 1.2) { exit 1 }' "$out"
run "$stat" -a -A -e task-clock -- true
expect '^CPU0 {19}[0-9 ]{2}[0-9]\.[0-9]{2} msec task-clock ' "-A text: CPU column 11 wide"
run "$stat" -a -A -j -e task-clock -- true
expect '^\{"cpu" : "0", "counter-value" : ' "-A json: cpu key first"
run "$stat" -C "$last_cpu" -e task-clock -- sleep 0.1
status 0 "-C: runs"
expect "^ Performance counter stats for 'CPU\\(s\\) $last_cpu':\$" "-C: header names the CPUs"
check "-C $last_cpu: one CPU's task-clock" within "$(metric task-clock)" 0.8 1.2
run "$stat" -C "0,$last_cpu" -A -x, -e task-clock -- true
expect_n '^CPU' "$( [ "$last_cpu" = 0 ] && echo 1 || echo 2)" "-C 0,N -A: a row for each listed CPU"

# ---- -I --------------------------------------------------------------------
run "$stat" -I 100 -e task-clock,page-faults -- sleep 0.45
status 0 "-I: runs"
expect_n '^#           time             counts unit events$' 1 "-I: one header line"
expect '^ +0\.1[0-9]{8} +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized$' "-I: first interval counted, timestamp first"
expect '^ +0\.[2-3][0-9]{8} +<not counted> msec task-clock$' "-I: later intervals are deltas: sleeping is <not counted>"
check "-I: at least 4 intervals, timestamps increasing" awk '
	/task-clock/ { if ($1 <= last) exit 1; last = $1; n++ } END { exit !(n >= 4) }' "$out"
expect_no 'Performance counter stats|seconds time elapsed' "-I: no summary"
run "$stat" -I 10 -e task-clock -- sleep 0.6
check "-I 10 for 0.6 s: more than 25 intervals, a header before every 25" awk '
	/^#           time / { h++ } / task-clock/ { n++ } END { exit !(n > 25 && h == int((n + 24) / 25)) }' "$out"
run "$stat" -I 100 -x, -a -e task-clock -- sleep 0.25
expect '^ +0\.1[0-9]{8},[0-9.]+,msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "-I csv: timestamp column"
check "-I -a: each interval counts every CPU" \
	awk -F, -v n="$ncpu" '$4 == "task-clock" && $1 < 0.2 && ($7 < n * 0.8 || $7 > n * 1.2) { exit 1 }' "$out"
run "$stat" -I 100 -j -A -C 0 -e task-clock -- sleep 0.15
expect '^\{"interval" : 0\.1[0-9]{8}, "cpu" : "0", "counter-value" : ' "-I json: interval and cpu keys"
run "$stat" -I 100 -A -a -e task-clock -- true
expect '^#           time CPU                    counts unit events$' "-I -A: the header with CPU"

# ---- modifiers, groups, names ---------------------------------------------
run "$stat" -x, -e page-faults,page-faults:u,page-faults:k -- true
pf=$(field '^[0-9]+,,page-faults,' 1)
pfu=$(field ',page-faults:u,' 1)
pfk=$(field ',page-faults:k,' 1)
check ":u + :k = all page faults ($pfu + $pfk = $pf)" same "$pf" "$((pfu + pfk))"
check ":u counts some" more_than "$pfu" 0
run "$stat" -v -x, -e 'task-clock:u,cycles:k' -- true
check "-v: :u sets exclude_kernel and exclude_hv, not exclude_user" awk '
	/^  type/ { n++ } n == 1 && /exclude_kernel +1/ { k = 1 } n == 1 && /exclude_hv +1/ { h = 1 }
	n == 1 && /exclude_user/ { u = 1 } END { exit !(k && h && !u) }' "$out"
check "-v: :k sets exclude_user" awk '/^  type +0$/ { hw = 1 } hw && /exclude_user +1/ { ok = 1 } END { exit !ok }' "$out"
expect '^sys_perf_event_open: pid [0-9]+  cpu -1  group_fd -1  flags 0x8 = [0-9]+$' "-v: the call and its fd"

run "$stat" -v -x, -e '{task-clock,page-faults}:u' -- true
leader_fd=$(grep -E '^sys_perf_event_open: .*group_fd -1 .* = [0-9]+$' "$out" | head -n 1 | sed 's/.* = //')
expect "^sys_perf_event_open: pid [0-9]+  cpu -1  group_fd $leader_fd  flags 0x8 = [0-9]+\$" "group: the member opens with the leader's fd"
expect_n '^  disabled +1$' 1 "group: only the leader starts disabled"
expect_n '^  exclude_kernel +1$' 2 "group: :u applies to every member"
expect '^[0-9.]+,msec,task-clock,' "group: names the members as written"
expect '^[0-9]+,,page-faults,[0-9]+,100\.00,' "group: the member counts"
run "$stat" -e '{task-clock,page-faults' -- true
status 2 "group: an unclosed group is an error"
expect "^stat: bad group '\\{task-clock,page-faults'\$" "group: says so"

run "$stat" -v -x, -e 'L1-dcache-load-misses,LLC-loads,dTLB-load-misses,l1i-prefetch,r01c2,cs,branch-instructions' -- true
check "names: HW_CACHE and raw names resolve as perf's" awk '
	/^  type/ { t = $2 } /^  config / { c[t " " $2] = 1 }
	END { exit !(c["3 0x10000"] && c["3 0x2"] && c["3 0x10003"] && c["3 0x201"] && c["4 0x1c2"] && c["0 0x4"]) }' "$out"
expect '^[0-9]+,,cs,' "names: cs is context-switches"
run "$stat" -e L1-icache-stores -- true
status 2 "names: an instruction cache has no stores"

# ---- pmu/.../ through sysfs: a fixture tree ---------------------------------
fx=$tmp/sys
dev=$fx/bus/event_source/devices
mkdir -p "$dev/cpu/format" "$dev/cpu/events" "$dev/fakesw/events" "$fx/devices/system/cpu"
echo 4 >"$dev/cpu/type"
echo config:0-7 >"$dev/cpu/format/event"
echo config:8-15 >"$dev/cpu/format/umask"
echo config:23 >"$dev/cpu/format/inv"
echo config:24-31 >"$dev/cpu/format/cmask"
echo config1:0-15 >"$dev/cpu/format/ldlat"
echo config2:0-3,8-11 >"$dev/cpu/format/split"
echo event=0x3c >"$dev/cpu/events/cpu-cycles"
echo 'event=0xcd,umask=0x1,ldlat=3' >"$dev/cpu/events/mem-loads"
echo 1 >"$dev/fakesw/type"
echo config=2 >"$dev/fakesw/events/faults-alias"
echo 0 >"$fx/devices/system/cpu/online"

run env BAREMON_SYSFS="$fx" "$stat" -v -x, -e 'cpu/event=0xc2,umask=0x01,inv,cmask=2/u' -- true
expect '^  type +4$' "pmu: type from the PMU's type file"
expect '^  config +0x28001c2$' "pmu: terms placed by format/ (event, umask, inv bit, cmask)"
expect '^  exclude_kernel +1$' "pmu: a modifier after the last '/'"
expect '^<not supported>,,cpu/event=0xc2,umask=0x01,inv,cmask=2/u,' "pmu: named as written"
run env BAREMON_SYSFS="$fx" "$stat" -v -x, -e 'cpu/mem-loads/,cpu/split=0xab/,cpu/cpu-cycles,name=cyc/' -- true
expect '^  config +0x1cd$' "pmu: an alias from events/"
expect '^  \{ bp_addr, config1 \} +0x3$' "pmu: an alias term into config1"
expect '^  \{ bp_len, config2 \} +0xa0b$' "pmu: a split format 'config2:0-3,8-11'"
expect '^<not supported>,,cyc,' "pmu: name= names the event"
run env BAREMON_SYSFS="$fx" "$stat" -x, -e 'page-faults,fakesw/faults-alias/,faults-alias,fakesw/config=2,name=pf2/' -- true
pf=$(field '^[0-9]+,,page-faults,' 1)
check "pmu: a fixture PMU of type 1 counts page faults like page-faults ($pf)" \
	same "$pf" "$(field ',fakesw/faults-alias/,' 1)" "$(field ',faults-alias,' 1)" "$(field ',pf2,' 1)"
run "$stat" -x, -e 'page-faults,software/config=2/' -- true
check "pmu: the real /sys software PMU" same "$(field ',page-faults,' 1)" "$(field ',software/config=2/,' 1)"
run env BAREMON_SYSFS="$fx" "$stat" -a -A -x, -e task-clock -- true
expect_n '^CPU' 1 "BAREMON_SYSFS: -a reads the online CPUs from the fixture"

for bad in 'cpu/nope=1/:unknown term .nope. for PMU .cpu.' \
	'cpu/event=0x100/:value too big for term .event.' \
	'cpu/umask=zz/:bad value for term .umask.' \
	'nopmu/event=1/:no PMU .nopmu. in .*/bus/event_source/devices' \
	'cpu/event=1:missing'; do
	run env BAREMON_SYSFS="$fx" "$stat" -e "${bad%%:*}" -- true
	check "pmu: '${bad%%:*}' is an error (status 2)" [ "$rc" = 2 ]
	expect "^stat: unknown event '${bad%%:*}': ${bad#*:}" "pmu: '${bad%%:*}' says why"
done

# ---- scaling: stat's rows on made-up readings --------------------------------
# CPU 0 ran half of the time enabled, CPU 1 all of it; cycles never ran.
readings='task-clock=200000000/400000000/200000000+400000000/400000000/400000000
page-faults=100/400/200+50/400/400 cycles=0/400/0+0/400/0 instructions=-'
# shellcheck disable=SC2086
run "$rows" -t 1000000000 $readings
cat >"$tmp/want" <<'E'
            800.00 msec task-clock                       #    0.800 CPUs utilized            (75.00%)
               250      page-faults                      #  312.500 /sec                     (75.00%)
     <not counted>      cycles                                                        (0.00%)
   <not supported>      instructions
E
check "scaling: value * enabled / running per CPU, summed, with % running" cmp -s "$tmp/want" "$out"
# shellcheck disable=SC2086
run "$rows" -A -x , -t 1000000000 $readings
cat >"$tmp/want" <<'E'
CPU0,400.00,msec,task-clock,200000000,50.00,0.400,CPUs utilized
CPU1,400.00,msec,task-clock,400000000,100.00,0.400,CPUs utilized
CPU0,200,,page-faults,200,50.00,500.000,/sec
CPU1,50,,page-faults,400,100.00,125.000,/sec
CPU0,<not counted>,,cycles,0,0.00,,
CPU1,<not counted>,,cycles,0,0.00,,
CPU0,<not supported>,,instructions,0,100.00,,
CPU1,<not supported>,,instructions,0,100.00,,
E
check "scaling: -A -x, per CPU" cmp -s "$tmp/want" "$out"
# shellcheck disable=SC2086
run "$rows" -j -I 1500000000 -t 1000000000 $readings
expect '^\{"interval" : 1\.500000000, "counter-value" : "800\.000000", "unit" : "msec", "event" : "task-clock", "event-runtime" : 600000000, "pcnt-running" : 75\.00, ' \
	"scaling: json pcnt-running"
run "$rows" -t 1000000000 task-clock=500000000/1/1 cycles=1000000000/1/1 instructions=1500000000/1/1 \
	branches=200000000/1/1 branch-misses=5000000/1/1 cache-references=1000/1/1 cache-misses=250/1/1
cat >"$tmp/want" <<'E'
            500.00 msec task-clock                       #    0.500 CPUs utilized
        1000000000      cycles                           #    2.000 GHz
        1500000000      instructions                     #    1.50  insn per cycle
         200000000      branches                         #  400.000 M/sec
           5000000      branch-misses                    #    2.50% of all branches
              1000      cache-references                 #    2.000 K/sec
               250      cache-misses                     #   25.00% of all cache refs
E
check "metrics: GHz, insn per cycle, % of branches and cache refs, M/sec" cmp -s "$tmp/want" "$out"

# ---- existing processes: -p, -t, --per-thread ------------------------------
# A busy shell started first; stat attaches to it, for as long as its own
# program runs (sleep) or, without one, until the target exits.
sh -c 'while :; do :; done' &
spin=$!
run "$stat" -e task-clock -p "$spin" -- sleep 0.3
status 0 "-p: the program's status"
expect "^ Performance counter stats for process id '$spin':\$" "-p: the header names the process"
check "-p: the busy process's task-clock is counted" \
	awk '/ task-clock / { found = 1; ok = $1 + 0 > 0 } END { exit !(found && ok) }' "$out"
expect_no 'seconds user' "-p: no user and sys times (they are the program's)"
run "$stat" -e task-clock,context-switches --per-thread -p "$spin" -- sleep 0.2
status 0 "--per-thread -p"
check "--per-thread: a row per thread, perf's comm-tid column ($(ls /proc/$spin/task | wc -l) threads)" \
	[ "$(count "^ +sh-$spin +[0-9.]+ msec task-clock")" = "$(ls /proc/$spin/task | wc -l)" ]
expect "^ +sh-$spin +[0-9]+ +context-switches" "--per-thread: each event has its thread's row"
run "$stat" -x, -e task-clock --per-thread -t "$spin" -- sleep 0.1
status 0 "--per-thread -t, CSV"
expect "^sh-$spin,[0-9.]+,msec,task-clock," "--per-thread CSV: comm-tid is the first field"
run "$stat" -j -e task-clock --per-thread -t "$spin" -- sleep 0.1
expect "^\{\"thread\" : \"sh-$spin\", \"counter-value\" : " "--per-thread JSON: a thread member first"
kill "$spin"
wait "$spin" 2>/dev/null
# (It sleeps first, so that stat has found it before it works and ends.)
sh -c 'sleep 2; i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done' &
short=$!
run "$stat" -e task-clock -p "$short"
status 0 "-p without a program: it ends with the target"
check "-p without a program: the target's run was counted" \
	awk '/ task-clock / { found = 1; ok = $1 + 0 > 0 } END { exit !(found && ok) }' "$out"
run "$stat" --per-thread -e task-clock -- true
status 2 "--per-thread with only a program"
expect '^stat: The --per-thread option is only available when monitoring via -p -t -a options' \
	"--per-thread with only a program: perf's message"
run "$stat" -p 999999999 -- true
status 2 "-p of no process"
expect '^stat: no process 999999999$' "-p of no process: says which"
run "$stat" -p 1 -a -- true
status 2 "-p with -a"

# ---- errors ----------------------------------------------------------------
run "$stat" -e no-such-event -- true
status 2 "unknown event"
expect "^stat: unknown event 'no-such-event'\$" "unknown event: says which"
run "$stat" -- /nonexistent/prog
status 127 "a missing program"
expect '^stat: /nonexistent/prog: No such file or directory$' "a missing program: says so"
for args in '-r 0' '-I 5' '-A' '-C 0-x' '-r' '--bogus' '-e task-clock'; do
	# shellcheck disable=SC2086
	case $args in -e*) run "$stat" $args ;; *) run "$stat" $args -- true ;; esac
	status 2 "usage error: stat $args"
done
run env BAREMON_SYSFS="$fx" "$stat" -C 1 -e task-clock -- true
status 2 "-C: an offline CPU"
expect '^stat: CPU 1 is not online$' "-C: says which CPU"
run "$stat" --help
status 0 "--help"
expect '^usage: stat ' "--help prints the usage"

echo "stat-host: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
