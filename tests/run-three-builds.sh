#!/bin/sh
# run-three-builds.sh SUITE [NAME...]: run every test program of
# tests/SUITE/ on the host, in its three builds (build/SUITE/libc-lite,
# musl, host), and count them: a binary passes when it exits 0. A failing
# binary's output is shown. Last line: "SUITE-host: N passed, N failed";
# exit status 1 on any failure. Used by tests/abi and tests/perf.
suite=$1
shift
cd "$(dirname "$0")/.." || exit 2
names=$*
[ -n "$names" ] || names=$(for f in tests/"$suite"/*.c; do basename "$f" .c; done)
passed=0 failed=0
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
for name in $names; do
	for build in libc-lite musl host; do
		bin=build/$suite/$build/$name
		if [ ! -x "$bin" ]; then
			echo "FAIL $build/$name: not built (make $suite-tests or make abi)"
			failed=$((failed + 1))
			continue
		fi
		start=$(date +%s%N)
		"$bin" >"$out" 2>&1 </dev/null
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		summary=$(tail -n 1 "$out")
		if [ $rc -eq 0 ]; then
			echo "PASS $build/$name ($summary, ${ms} ms)"
			passed=$((passed + 1))
		else
			echo "FAIL $build/$name (exit $rc, $summary)"
			grep -v '^ok ' "$out" | sed 's/^/    /'
			failed=$((failed + 1))
		fi
	done
done
echo "$suite-host: $passed passed, $failed failed"
[ $failed -eq 0 ]
