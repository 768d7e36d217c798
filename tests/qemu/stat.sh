#!/usr/bin/env bash
# stat.sh: the stat tool's perf stat features on baremon, at the session
# prompt of a two-CPU guest: -r with the variance in all three formats,
# -a, -C and -A counting per CPU (CPUs that stay idle included), -p and
# --per-thread on a running process (the shell), -I
# intervals, :u/:k, groups, pmu/.../ through the real /sys and through a
# fixture tree (BAREMON_SYSFS) put in the initrd, and errors.
# tests/apps/stat-host.sh checks the same on the host Linux.
. "$(dirname "$0")/lib.sh"

# A fixture sysfs tree under /fx: a "cpu" PMU laid out as Linux's x86
# one, a PMU of software type, and one online CPU.
fx=$logs/fx
dev=bus/event_source/devices
mkdir -p "$fx"
adds=()
fixture() { # FILE CONTENTS
	local f=$fx/$(echo "$1" | tr / _)
	echo "$2" >"$f"
	adds+=(--add "$f:/fx/$1")
}
fixture $dev/cpu/type 4
fixture $dev/cpu/format/event config:0-7
fixture $dev/cpu/format/umask config:8-15
fixture $dev/cpu/format/inv config:23
fixture $dev/cpu/format/cmask config:24-31
fixture $dev/cpu/format/ldlat config1:0-15
fixture $dev/cpu/events/mem-loads 'event=0xcd,umask=0x1,ldlat=3'
fixture $dev/fakesw/type 1
fixture $dev/fakesw/events/faults-alias config=2
fixture devices/system/cpu/online 0

session=$logs/stat.session
cat >"$session" <<'SESSION'
echo "== r3"
stat -r 3 -e task-clock,context-switches -- true
echo "== r3csv"
stat -r 3 -x, -e task-clock,cycles -- true
echo "== r2json"
stat -r 2 -j -e task-clock -- true
echo "== a"
stat -a -e task-clock,context-switches -- sleep 0.3
echo "== aA"
stat -a -A -x, -e task-clock,context-switches -- sleep 0.2
echo "== C0"
stat -C 0 -e task-clock -- sleep 0.2
echo "== C1A"
stat -C 1 -A -x, -e task-clock -- true
echo "== I"
stat -I 100 -e task-clock,page-faults -- sleep 1
echo "== Icsv"
stat -I 100 -x, -a -e task-clock -- sleep 0.5
echo "== Ijson"
stat -I 200 -j -A -a -e task-clock -- sleep 0.3
echo "== uk"
stat -x, -e page-faults,page-faults:u,page-faults:k,software/config=2/,{task-clock,page-faults}:u -- malloc_stress
echo "== pmu"
env BAREMON_SYSFS=/fx stat -v -x, -e cpu/event=0xc2,umask=0x01,inv,cmask=2/u,mem-loads -- true
echo "== fakesw"
env BAREMON_SYSFS=/fx stat -x, -e task-clock,fakesw/faults-alias/,faults-alias -- true
echo "== fxonline"
env BAREMON_SYSFS=/fx stat -a -A -x, -e task-clock -- true
echo "== pid1"
stat --per-thread -e task-clock,context-switches -p 1 -- sleep 0.2
echo "== perthread"
stat --per-thread -e task-clock -- true
echo "status $?"
echo "== errors"
stat -- false
echo "status $?"
stat -e no-such-event -- true
echo "status $?"
stat -e nopmu/event=1/ -- true
echo "status $?"
stat -C 7 -- true
echo "status $?"
echo "== end"
SESSION
guest stat --smp 2 --session "$session" --add "$build/musl/malloc_stress" "${adds[@]}"
expect_rc 0

# section SECTION: the serial log between "== SECTION" and the next "== ".
sections=$logs/sections
section() { awk -v s="== $1" '$0 == s { on = 1; next } /^== / { on = 0 } on' "$log" >"$sections"; }
# has_in SECTION REGEX WHAT / count_in SECTION REGEX
has_in() { section "$1"; check "$3" grep -Eq -- "$2" "$sections"; }
count_in() { section "$1"; grep -Ec -- "$2" "$sections"; }
# csv_value SECTION EVENT [N]: the first field of EVENT's (Nth) CSV row.
csv_value() {
	section "$1"
	awk -F, -v e="$2" -v n="${3:-1}" '/^[0-9<]/ && $3 == e && ++seen == n { print $1; exit }' "$sections"
}
# metric SECTION EVENT: the number after '#' on EVENT's text row.
metric() {
	section "$1"
	awk -v e="$2" '$0 ~ " " e " " { for (i = 1; i < NF; i++) if ($i == "#") { print $(i + 1); exit } }' "$sections"
}
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }

has_in r3 "^ Performance counter stats for 'true' \\(3 runs\\):\$" "-r 3: header"
has_in r3 '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized +\( \+- +[0-9]+\.[0-9]{2}% \)$' \
	"-r 3: task-clock with its variance"
has_in r3 '^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed' "-r 3: elapsed mean +- stddev"
has_in r3csv '^[0-9.]+,msec,task-clock,[0-9]+\.[0-9]{2}%,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "-r csv: variance column"
has_in r3csv '^[1-9][0-9]*,,cycles,[0-9]+\.[0-9]{2}%,[0-9]+,100\.00,[0-9.]+,GHz$' "-r csv: cycles counted (the cpu PMU), with variance and GHz"
has_in r2json '"event" : "task-clock", "variance" : [0-9]+\.[0-9]{2}, "event-runtime"' "-r json: variance key"

has_in a "^ Performance counter stats for 'system wide':\$" "-a: header"
check "-a: task-clock counts both CPUs ($(metric a task-clock) CPUs utilized)" \
	within "$(metric a task-clock)" 1.6 2.4
has_in aA '^CPU0,[0-9.]+,msec,task-clock,[0-9]+,100\.00,' "-A: CPU 0 counted"
has_in aA '^CPU1,[0-9.]+,msec,task-clock,[0-9]+,100\.00,' "-A: CPU 1 counted"
check "-A: two context-switches rows" [ "$(count_in aA '^CPU[01],[0-9]+,,context-switches,')" = 2 ]
has_in C0 "^ Performance counter stats for 'CPU\\(s\\) 0':\$" "-C 0: header"
check "-C 0: one CPU's task-clock ($(metric C0 task-clock) CPUs utilized)" within "$(metric C0 task-clock)" 0.8 1.2
check "-C 1 -A: one row" [ "$(count_in C1A '^CPU')" = 1 ]
has_in C1A '^CPU1,' "-C 1 -A: CPU 1's"

has_in I '^#           time             counts unit events$' "-I: header"
has_in I '^ +0\.1[0-9]{8} +[0-9.]+ msec task-clock +# ' "-I: the first interval counted"
has_in I '^ +0\.[3-8][0-9]{8} +<not counted> msec task-clock$' "-I: sleeping intervals are <not counted> (deltas)"
check "-I 100 over sleep 1: at least 8 intervals" [ "$(count_in I 'task-clock')" -ge 8 ]
has_in Icsv '^ +0\.[1-3][0-9]{8},[0-9.]+,msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "-I csv rows"
section Icsv
check "-I -a: each full interval counts both CPUs" \
	awk -F, 'NF == 8 && $1 < 0.45 && ($7 < 1.6 || $7 > 2.4) { bad = 1 } NF == 8 { n++ } END { exit bad || n < 3 }' "$sections"
has_in Ijson '^\{"interval" : 0\.2[0-9]{8}, "cpu" : "1", "counter-value" : "[0-9.]+", "unit" : "msec", "event" : "task-clock", ' \
	"-I json with -A: interval and cpu keys"

pf=$(csv_value uk page-faults) pfu=$(csv_value uk page-faults:u) pfk=$(csv_value uk page-faults:k)
check ":u + :k = all page faults ($pfu + $pfk = $pf)" same "$pf" "$((pfu + pfk))"
check ":u counts malloc_stress's faults ($pfu)" [ "${pfu:-0}" -gt 1000 ]
check "software/config=2/ through /sys counts the page faults" same "$pf" "$(csv_value uk software/config=2/)"
check "group {task-clock,page-faults}:u: its member counts user faults" same "$pfu" "$(csv_value uk page-faults 2)"

has_in pmu '^  type +4$' "pmu: fixture cpu PMU type"
has_in pmu '^  config +0x28001c2$' "pmu: terms placed by format/"
has_in pmu '^  \{ bp_addr, config1 \} +0x3$' "pmu: bare alias mem-loads from events/"
has_in pmu '^0,,cpu/event=0xc2,umask=0x01,inv,cmask=2/u,[0-9]+,100\.00,,$' "pmu: the type-4 PMU takes it (0: the vpmu counts only cycles)"
has_in fakesw '^[0-9]+,,fakesw/faults-alias/,[0-9]+,100\.00,' "pmu: a fixture PMU of software type counts"
check "fixture online CPUs: -a counts CPU 0 only" [ "$(count_in fxonline '^CPU')" = 1 ]

has_in pid1 "^ Performance counter stats for process id '1':\$" "-p 1: the header names the process"
has_in pid1 '^ +sh-1 +[0-9.]+ msec task-clock' "--per-thread -p 1: the shell's row (perf's comm-tid column)"
has_in pid1 '^ +sh-1 +[1-9][0-9]* +context-switches' "--per-thread -p 1: the waiting shell's switches counted"
has_in perthread '^status 2$' "--per-thread with only a program: a usage error"
has_in errors '^status 1$' "the program's exit status (false)"
has_in errors "^stat: unknown event 'no-such-event'\$" "unknown event"
has_in errors "^stat: unknown event 'nopmu/event=1/': no PMU 'nopmu' in /sys/bus/event_source/devices\$" "unknown PMU"
has_in errors '^stat: CPU 7 is not online$' "-C with an offline CPU"
check "errors exit 2" [ "$(count_in errors '^status 2$')" = 3 ]
expect_no_line '^PANIC' "no panic"

finish
