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
guest stat --smp 2 --session "$session" --add "$build/musl/malloc_stress"
expect_rc 0
expect_line "^ Performance counter stats for 'malloc_stress':\$" "text: header"
expect_line '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9]+\.[0-9]{3} CPUs utilized$' "text: task-clock in msec with CPUs utilized"
expect_line '^ +[1-9][0-9]* +page-faults ' "text: page faults counted"
expect_line '^ +[1-9][0-9]* +cycles +#' "text: cycles counted (the cpu PMU, the vpmu under TCG)"
expect_line '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "text: elapsed time"
expect_line '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9.]+,CPUs utilized$' "csv: task-clock row with 7 columns"
expect_line '^[1-9][0-9]*,,page-faults,[0-9]+,100\.00,[0-9.]+,K/sec$' "csv: page-faults row"
expect_line '^<not supported>,,instructions,0,100\.00,,$' "csv: unsupported event row"
expect_line '^\{"counter-value" : "[0-9.]+", "unit" : "msec", "event" : "task-clock", "event-runtime" : [0-9]+, "pcnt-running" : 100\.00' "json: task-clock object"
expect_line "^stat: unknown event 'no-such-event'\$" "unknown event is an error"
expect_line '^status 2$' "with status 2"

# The conformance programs: each build must pass what it passes on Linux.
three_builds perf 1 2

finish
