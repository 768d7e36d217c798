#!/bin/sh
# run-tests.sh: the `make test` driver. Runs the host unit tests, then the
# ABI programs on the host, then the QEMU integration tests (build the
# ESP first: `make test` does), and ends
# with the one line "N passed, N failed", the sum of the suites' summary
# lines ("unit: N passed, N failed", "qemu: N passed, N failed").
# Exit status is non-zero if anything failed. A suite that prints no
# summary line, or fails with none of its checks failing, adds a failure.
# The output is KTAP version 1 (tests/ktap.py checks it): one result per
# suite, the suite's output as its subtest (tests/ktap-nest.awk), the
# line "N passed, N failed" last. JUNIT=FILE also writes JUnit XML.

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ktap=$tmp/ktap
say() { printf '%s\n' "$@" | tee -a "$ktap"; }
# The plan: one result per `suite` line below.
say "KTAP version 1" "1..$(grep -c '^suite [a-z]' "$0")"
number=0

# suite NAME COMMAND...: run COMMAND, show its output as a KTAP subtest,
# add up its summary, print its result.
suite() {
	name=$1
	shift
	number=$((number + 1))
	{ "$@" 2>&1; echo $? > "$tmp/$name.rc"; } | tee "$tmp/$name.out" |
		awk -v name="$name" -f "$top/tests/ktap-nest.awk" | tee -a "$ktap"
	summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed\$" "$tmp/$name.out" | tail -n 1)
	if [ -z "$summary" ]; then
		say "# $name: no summary line; counted as one failure" "not ok $number $name"
		failed=$((failed + 1))
		return
	fi
	p=${summary#*: } # "NAME: P passed, F failed"
	f=${summary#*, }
	passed=$((passed + ${p%% *}))
	failed=$((failed + ${f%% *}))
	if [ "$(cat "$tmp/$name.rc")" != 0 ] && [ "${f%% *}" = 0 ]; then
		say "# $name: exited with status $(cat "$tmp/$name.rc"); counted as one failure"
		failed=$((failed + 1))
		f=1
	fi
	if [ "${f%% *}" = 0 ]; then say "ok $number $name"; else say "not ok $number $name"; fi
}

suite unit make --no-print-directory -C "$top/tests/unit" check
suite fuzz sh "$top/tests/fuzz/run.sh"
# The ABI programs and the apps on the host Linux: the reference that
# tests/qemu/abi.sh holds baremon to.
suite abi-host sh "$top/tests/abi/run-host.sh"
suite apps-host sh "$top/tests/abi/apps-host.sh"
suite perf-host sh "$top/tests/perf/run-host.sh"
suite dyn-host sh "$top/tests/dyn/run-host.sh"
suite stat-host sh "$top/tests/apps/stat-host.sh"
suite record-host sh "$top/tests/apps/record-host.sh"
suite bench-host sh "$top/tests/apps/bench-host.sh"
# The KTAP checker and JUnit writer, and the runners' output through them.
suite ktap sh "$top/tests/ktap/run.sh"
# (JUNIT is this runner's file, not run-all.sh's.)
suite qemu env -u JUNIT sh "$top/tests/qemu/run-all.sh"

if [ -n "${JUNIT:-}" ]; then
	python3 "$top/tests/ktap.py" junit --name make-test "$ktap" > "$JUNIT" ||
		{ echo "# JUNIT: could not write $JUNIT"; failed=$((failed + 1)); }
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
