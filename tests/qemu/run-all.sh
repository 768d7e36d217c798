#!/bin/sh
# run-all.sh [TEST...]: run the QEMU integration tests (default: all of
# them), at most JOBS (default 2) at a time, print each test's output whole
# and in order, and end with the line "qemu: N passed, N failed".
# The output is KTAP version 1 (tests/ktap.py checks it): one result per
# test, its checks ("ok - WHAT" lines) as a numbered subtest
# (tests/ktap-nest.awk). JUNIT=FILE also writes the results as JUnit XML.
# Exit status is non-zero if any check failed. Needs `make esp` first.
# The logs of a run with failures stay in build/qemu-tests.XXXXXX.
# QEMU_TESTS_DIR: run the tests of another directory (tests/ktap/run.sh
# holds the runner's own output to KTAP with two tests that boot nothing).
# (POSIX sh has no local variables: each function uses its own names.)

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${QEMU_TESTS_DIR:-$top/tests/qemu}
jobs=${JOBS:-2}
# Every test file here, the longest first so that the lanes end together;
# a new test runs without being listed (it goes last).
if [ $# -eq 0 ] && [ -n "${QEMU_TESTS_DIR:-}" ]; then
	for f in "$dir"/*.sh; do
		set -- "$@" "$(basename "$f" .sh)"
	done
elif [ $# -eq 0 ]; then
	set -- host-tool perf session pmu boot process panic abi fuzz bench loader \
		selftest runner image initrd
	for f in "$dir"/*.sh; do
		t=$(basename "$f" .sh)
		case " lib run-all $* " in
		*" $t "*) ;;
		*) set -- "$@" "$t" ;;
		esac
	done
fi
tests=""
for t in "$@"; do
	tests="$tests $(basename "$t" .sh)"
done

mkdir -p "$top/build" &&
	QEMU_TEST_LOGS=$(mktemp -d "$top/build/qemu-tests.XXXXXX") || exit 1
export QEMU_TEST_LOGS
out=$QEMU_TEST_LOGS/results
mkdir "$out" || exit 1
passed=0
failed=0
# Everything printed goes to the KTAP copy too (for JUNIT).
ktap=$QEMU_TEST_LOGS/ktap
say() { printf '%s\n' "$@" | tee -a "$ktap"; }

# report TEST: print a finished test's output as a KTAP subtest and its
# result, and add up its checks. A test that made no checks, or failed
# without saying which check, counts as one more failure.
number=0
report() {
	read -r rc secs < "$out/$1.rc"
	oks=$(grep -c '^ok - ' "$out/$1.out")
	bads=$(grep -c '^not ok - ' "$out/$1.out")
	extra=""
	if [ "$oks$bads" = 00 ] || { [ "$rc" != 0 ] && [ "$bads" = 0 ]; }; then
		extra="$1: the test exited with status $rc after $oks checks"
		bads=$((bads + 1))
	fi
	number=$((number + 1))
	say "# $1 (${secs}s)"
	awk -v name="$1" -v plan=$((oks + bads)) -v extra="$extra" \
		-f "$top/tests/ktap-nest.awk" "$out/$1.out" | tee -a "$ktap"
	if [ "$bads" = 0 ]; then say "ok $number $1"; else say "not ok $number $1"; fi
	passed=$((passed + oks))
	failed=$((failed + bads))
}

# flush: report the finished tests at the head of the list, in order.
pending=$tests
flush() {
	for done_test in $pending; do
		[ -f "$out/$done_test.rc" ] || return 0
		report "$done_test"
		pending=${pending#*" $done_test"}
	done
}

running() {
	echo $((started - $(find "$out" -name '*.rc' | wc -l)))
}

# shellcheck disable=SC2086 # the names, split on purpose
set -- $tests
say "KTAP version 1" "1..$#"
start=$(date +%s)
started=0
for t in $tests; do
	while [ "$(running)" -ge "$jobs" ]; do
		sleep 0.5
		flush
	done
	(
		s=$(date +%s)
		bash "$dir/$t.sh" > "$out/$t.out" 2>&1
		echo "$? $(($(date +%s) - s))" > "$out/$t.rc.tmp"
		mv "$out/$t.rc.tmp" "$out/$t.rc"
	) &
	started=$((started + 1))
done
wait
flush
say "# all tests: $(($(date +%s) - start))s"
if [ -n "${JUNIT:-}" ]; then
	python3 "$top/tests/ktap.py" junit --name qemu "$ktap" > "$JUNIT" ||
		{ echo "# JUNIT: could not write $JUNIT"; failed=$((failed + 1)); }
fi
if [ "$failed" = 0 ]; then
	rm -rf "$QEMU_TEST_LOGS"
else
	echo "# logs kept in $QEMU_TEST_LOGS"
fi
echo "qemu: $passed passed, $failed failed"
[ "$failed" = 0 ]
