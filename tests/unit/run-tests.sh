#!/bin/sh
# run-tests.sh BINARY...: run cmocka test binaries, show their output and
# print one summary line, "unit: N passed, N failed", summed over all.
#
# Counts come from cmocka's per-test lines: a test that printed
# "[ RUN      ]" but neither "[       OK ]" nor "[  SKIPPED ]" failed
# (this also catches a binary killed by a sanitizer mid-test). A binary
# that exits non-zero with no failed test counted adds one failure (for
# example a leak reported at exit). Exit status is non-zero on any failure.

export CMOCKA_MESSAGE_OUTPUT=STDOUT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

passed=0
failed=0
for t in "$@"; do
	log=$(mktemp)
	"$t" > "$log" 2>&1
	rc=$?
	cat "$log"
	run=$(grep -c '^\[ RUN      \]' "$log")
	ok=$(grep -c '^\[       OK \]' "$log")
	skip=$(grep -c '^\[  SKIPPED \] [^0-9]' "$log")
	rm -f "$log"
	bad=$((run - ok - skip))
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		echo "$(basename "$t"): exited with status $rc"
		bad=1
	fi
	if [ "$run" -eq 0 ] && [ "$rc" -eq 0 ]; then
		echo "$(basename "$t"): ran no tests"
		bad=1
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
