#!/bin/sh
# run-tests.sh: the `make test` driver. Runs the host unit tests, then the
# ABI programs on the host, then the QEMU integration tests (build the
# ESP first: `make test` does), and ends
# with the one line "N passed, N failed", the sum of the suites' summary
# lines ("unit: N passed, N failed", "qemu: N passed, N failed").
# Exit status is non-zero if anything failed. A suite that prints no
# summary line, or fails with none of its checks failing, adds a failure.

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# suite NAME COMMAND...: run COMMAND, show its output, add up its summary.
suite() {
	name=$1
	shift
	{ "$@" 2>&1; echo $? > "$tmp/$name.rc"; } | tee "$tmp/$name.out"
	summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed\$" "$tmp/$name.out" | tail -n 1)
	if [ -z "$summary" ]; then
		echo "$name: no summary line; counted as one failure"
		failed=$((failed + 1))
		return
	fi
	p=${summary#*: } # "NAME: P passed, F failed"
	f=${summary#*, }
	passed=$((passed + ${p%% *}))
	failed=$((failed + ${f%% *}))
	if [ "$(cat "$tmp/$name.rc")" != 0 ] && [ "${f%% *}" = 0 ]; then
		echo "$name: exited with status $(cat "$tmp/$name.rc"); counted as one failure"
		failed=$((failed + 1))
	fi
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
suite qemu sh "$top/tests/qemu/run-all.sh"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
