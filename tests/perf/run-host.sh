#!/bin/sh
# run-host.sh: run every perf_event_open test binary on the host, in all
# three builds (build/perf/libc-lite, musl, host: see tests/perf/perf.mk),
# and count them: a binary passes when it exits 0. A failing binary's
# output is shown.
# Last line: "perf-host: N passed, N failed"; exit status 1 on any failure.
#   sh tests/perf/run-host.sh [NAME...]     (default: every tests/perf/*.c)
# Linux needs perf_event_open for software events (any perf_event_paranoid
# for root; cpuwide needs root or paranoid <= 0).
cd "$(dirname "$0")/../.." || exit 2
names=$*
[ -n "$names" ] || names=$(for f in tests/perf/*.c; do basename "$f" .c; done)
passed=0 failed=0
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
for name in $names; do
	for build in libc-lite musl host; do
		bin=build/perf/$build/$name
		if [ ! -x "$bin" ]; then
			echo "FAIL $build/$name: not built (make perf-tests)"
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
echo "perf-host: $passed passed, $failed failed"
[ $failed -eq 0 ]
