#!/bin/sh
# run-all.sh [TEST...]: run the QEMU integration tests (default: all of
# them), at most JOBS (default 2) at a time, print each test's output whole
# and in order, and end with the line "qemu: N passed, N failed".
# Exit status is non-zero if any check failed. Needs `make esp` first.
# The logs of a run with failures stay in build/qemu-tests.XXXXXX.
# (POSIX sh has no local variables: each function uses its own names.)

dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$dir/../.." && pwd)
jobs=${JOBS:-2}
# Every test file here, the longest first so that the lanes end together;
# a new test runs without being listed (it goes last).
if [ $# -eq 0 ]; then
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

# report TEST: print a finished test's output and add up its checks. A test
# that made no checks, or failed without saying which check, counts as one
# more failure.
report() {
	read -r rc secs < "$out/$1.rc"
	echo "# $1 (${secs}s)"
	cat "$out/$1.out"
	oks=$(grep -c '^ok - ' "$out/$1.out")
	bads=$(grep -c '^not ok - ' "$out/$1.out")
	if [ "$oks$bads" = 00 ] || { [ "$rc" != 0 ] && [ "$bads" = 0 ]; }; then
		echo "not ok - $1: the test exited with status $rc after $oks checks"
		bads=$((bads + 1))
	fi
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
echo "# all tests: $(($(date +%s) - start))s"
if [ "$failed" = 0 ]; then
	rm -rf "$QEMU_TEST_LOGS"
else
	echo "# logs kept in $QEMU_TEST_LOGS"
fi
echo "qemu: $passed passed, $failed failed"
[ "$failed" = 0 ]
