#!/usr/bin/env bash
# perf.sh: perf_event_open on baremon — the stat program in perf stat's
# three formats counting software events of a real workload, and the
# ABI conformance programs in tests/perf/ that run here (the same
# binaries pass on the host: tests/perf/run-host.sh).
. "$(dirname "$0")/lib.sh"

session=$logs/stat.session
cat > "$session" <<'SESSION'
stat -- malloc_stress
stat -x, -e task-clock,page-faults,context-switches,cpu-migrations,instructions -- malloc_stress
stat -j -e task-clock,page-faults -- true
stat -e no-such-event -- true
echo "status $?"
SESSION
# malloc_stress takes its 180,000 page faults in about 4 s, 6 s with
# cycles counted by the vpmu (a hook at every kernel entry and exit):
# four runs need more than the default timeout on a loaded host.
guest_timeout=120
guest stat --smp 2 --session "$session" --add "$build/musl/malloc_stress"
guest_timeout=${GUEST_TIMEOUT:-90}
expect_rc 0
expect_line "^ Performance counter stats for 'malloc_stress':\$" "text: header"
expect_line '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9]+\.[0-9]{3} CPUs utilized$' "text: task-clock in msec with CPUs utilized"
expect_line '^ +[1-9][0-9]* +page-faults ' "text: page faults counted"
expect_line '^ +[1-9][0-9]* +cycles +#' "text: cycles counted (the cpu PMU, the vpmu under TCG)"
expect_line '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "text: elapsed time"
expect_line '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "csv: task-clock row with 7 columns"
# the rate's unit follows the rate: K/sec, or /sec on a host so loaded
# that malloc_stress took minutes
expect_line '^[1-9][0-9]*,,page-faults,[0-9]+,100\.00,[0-9.]+,[KM]?/sec$' "csv: page-faults row"
expect_line '^<not supported>,,instructions,0,100\.00,,$' "csv: unsupported event row"
expect_line '^\{"counter-value" : "[0-9.]+", "unit" : "msec", "event" : "task-clock", "event-runtime" : [0-9]+, "pcnt-running" : 100\.00' "json: task-clock object"
expect_line "^stat: unknown event 'no-such-event'\$" "unknown event is an error"
expect_line '^status 2$' "with status 2"

# tracefs: each format file is Linux 6.18's text (tests/perf/tracefs/),
# apart from the ID line.
formats=$top/tests/perf/tracefs
session=$logs/tracefs.session
: > "$session"
for f in "$formats"/*/*.format; do
	ev=${f#"$formats"/}
	ev=${ev%.format}
	printf 'echo "=== %s"\ncat /sys/kernel/tracing/events/%s/format\n' "$ev" "$ev" >> "$session"
done
echo 'echo "=== end"' >> "$session"
guest tracefs --session "$session"
expect_rc 0
for f in "$formats"/*/*.format; do
	ev=${f#"$formats"/}
	ev=${ev%.format}
	got=$logs/$(echo "$ev" | tr / .).got
	awk -v want="=== $ev" '$0 == want { on = 1; next }
		on && /^=== / { exit } on && !/^baremon> / && !/^ID: / &&
		!/^\[ *[0-9]+\.[0-9]+\] /' "$log" > "$got" # not a kernel log line
	check "$ev/format is Linux 6.18's (but for the ID)" cmp -s "$f" "$got"
done

# The conformance programs: each build must pass what it passes on Linux.
# One session runs all of them three times (25-40 s on an idle host):
# give it room beyond the default 90 s when the host is loaded.
# The programs whose checks weigh samples and counts against time run
# apart under -icount: there the guest's clocks advance with the
# instructions it runs, so a busy host cannot stretch them. Without it
# the time a QEMU thread waits for a host CPU is the running task's
# time, and the host's load showed in: clocksample's spacing, sample's
# and records2's sample counts per ms of work, inherit's task-clock of a
# parent whose fork was slow; multiplex's rotation (enabled times 30%
# apart, a flexible event that never ran), hwsample's samples per
# period and per second (a stall skips periods), the task-clock that
# execflags finds still running after an exec and swcount across a
# sleep, the context switch of readfmt's sleeps (a stall between
# arming the timer and blocking: it expired first), and ioctl's count
# just after a RESET (6.5 ms of a 3 ms bound at load 15: the vCPU was
# descheduled between the RESET and the read).
# Under -icount a guest runs about 4 times slower: only these run so,
# each kept to a few seconds of guest time (docs/testing.md).
guest_timeout=${GUEST_TIMEOUT:-240}
timed="clocksample inherit records2 sample multiplex swcount execflags hwsample readfmt ioctl"
THREE_BUILDS_SKIP="${THREE_BUILDS_SKIP:-} $timed killspin" three_builds perf 1 2
# The -icount session is some 36 s of guest time (clocksample 6 s and
# hwsample 3.5 s a build); beside a CPU hog on a machine already loaded
# 15 times over (load average 33 on 2 cores) it took more than 240 s,
# every check passing. The bound is for a hang.
guest_timeout=${GUEST_TIMEOUT:-480}
THREE_BUILDS_ONLY=$timed THREE_BUILDS_OPTS="--icount 4" THREE_BUILDS_TAG=-icount \
	three_builds perf 1 2

# killspin (open inherited, fork a spinner, close, SIGKILL, poll, never
# reap) once hung 3 runs of 5 at 300 rounds on 2 CPUs under --icount 4,
# a killed child left spinning in user mode (issue 34): 300 rounds a
# build here, on that machine, about 5 s of guest time a build (57
# rounds per guest second). Without -icount a round can take a third of
# a second on a loaded host, so the plain session above skips it.
session=$logs/killspin.session
adds=()
: > "$session"
for b in libc-lite musl host; do
	adds+=(--add "$build/perf/$b/killspin:/bin/perf-$b-killspin")
	printf 'perf-%s-killspin 300\necho "status %s-killspin $?"\n' "$b" "$b" >> "$session"
done
guest killspin-icount --smp 2 --mem 1G --icount 4 --session "$session" "${adds[@]}"
expect_rc 0
for b in libc-lite musl host; do
	expect_line "^status $b-killspin 0\$" "$b build of killspin passes (exit 0)"
done
check "killspin: every build's 300 children reported killed" \
	test "$(count '^ok - 300 rounds of open inherited')" = 3
expect_no_line '^not ok' "killspin: no assertion failed"

finish
