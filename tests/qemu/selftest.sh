#!/usr/bin/env bash
# selftest.sh: the in-kernel self-tests all pass on 1 and 2 CPUs, at
# least MIN_SELFTESTS of them ran (so losing tests does not go unnoticed),
# and what they print is KTAP that tests/ktap.py accepts.
. "$(dirname "$0")/lib.sh"

min=${MIN_SELFTESTS:-10}
result='^(not )?ok [0-9]+ [a-z0-9_]+( # SKIP .*)?$'
summary='^selftest: [0-9]+ passed, [0-9]+ failed$'
# shellcheck disable=SC2317 # called by check
ktap() { python3 "$top/tests/ktap.py" "$@"; }

for n in 1 2; do
	st_guest selftest-smp$n --smp $n --run selftest
	expect_rc 0
	ran=$(count "$result")
	check "at least $min self-tests ran (ran $ran)" [ "$ran" -ge "$min" ]
	# Every result must be ok; a test with nothing to check on this
	# machine says why ("ok 7 amd_pmc # SKIP no AMD cpu PMU").
	bad=$(grep -E "$result" "$log" | grep -v '^ok ')
	if [ -z "$bad" ]; then
		ok "all $ran self-tests are ok"
	else
		not_ok "self-tests failed: $(echo "$bad" | cut -d' ' -f4 | sort -u | xargs)"
	fi
	expect_line "$summary" "summary line"
	pass=$(count '^ok [0-9]+ ')
	expect_line "^selftest: $pass passed, 0 failed\$" "summary says $pass passed, 0 failed"
	# The output is KTAP version 1 (Linux's ktap.rst), which a parser
	# reads: the plan matches the results, numbered 1..N in order.
	check "the self-tests' output is KTAP version 1 with $ran results" \
		ktap check --expect "$ran" --expect-failed 0 "$log"
done

# The hrtimer storm tests again under -icount with 2 CPUs (QEMU's
# round-robin vCPUs, where a write to the APIC timer can cost a vCPU its
# turn: docs/timers.md), where the interrupt count is exact.
st_guest selftest-icount --smp 2 --icount 4 --run 'selftest hrtimer_'
expect_rc 0
expect_line '^ok [0-9]+ hrtimer_storm_past$' "icount: past expiries cost a bounded number of interrupts"
expect_line '^ok [0-9]+ hrtimer_storm_slow$' "icount: a timer slower than its period leaves the CPU time"
expect_line '^selftest: [0-9]+ passed, 0 failed$' "icount: every hrtimer self-test passes"

# The release kernel (make) has no self-tests: it links no test_*.o,
# and `selftest` says so and fails.
name=release
check "the release kernel links no self-test" [ -z "$(nm "$build/kernel.elf" | grep -E ' selftest_entry_| selftest_(knob|set_knob|fail)$')" ]
guest release-selftest --run selftest
expect_rc 1
expect_line '^selftest: self-tests are not built in this kernel \(make SELFTEST=1\)$' \
	"release kernel: selftest says they are not built in"
expect_no_line "$result" "release kernel: no self-test ran"

# The debug kernel (make debug-esp): its checks' self-tests provoke a
# double free, an overflow, a write to freed memory's poison, a write to
# and a kfree of an object waiting in an object cache (heap_cache.c) and
# a spinlock taken twice, and each report must name the site.
debug=${BAREMON_DEBUG_BUILD:-$top/build-debug}
if [ -f "$debug/kernel.elf" ]; then
	# Then a program whose children free inherited event groups as
	# others fork (the debug heap once caught a write after free there).
	printf 'selftest debug_\ninherit --group\necho "status inherit $?"\n' \
		> "$logs/selftest-debug.session"
	BAREMON_BUILD=$debug guest selftest-debug --smp 2 \
		--session "$logs/selftest-debug.session" \
		--add "$build/perf/musl/inherit:/bin/inherit"
	expect_rc 0
	for t in heap_double_free heap_overflow heap_poison heap_cache_poison spinlock_owner; do
		expect_line "^ok [0-9]+ debug_$t\$" "debug build: $t is caught and named"
	done
	expect_line '^selftest: 5 passed, 0 failed$' "debug build: 5 checks' self-tests"
	expect_line '^status inherit 0$' "debug build: tests/perf/inherit --group passes"
	expect_no_line '^PANIC' "debug build: no heap report under inherit"
else
	not_ok "no debug kernel in $debug (make debug-esp)"
fi

finish
