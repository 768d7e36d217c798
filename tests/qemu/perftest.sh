#!/bin/bash
# perftest.sh: Debian's own perf, unmodified, runs `perf test` inside
# baremon, and its results are held to Linux 6.1's in the same QEMU
# (tests/perf-test/linux-6.1.tsv, from `make perf-test-linux`): every
# test Linux passes, and the hardware-counter tests Linux must skip
# there, must pass on baremon, but for the known gaps listed in
# tests/perf-test/known-gaps.tsv. Only those tests run (one boot). Needs
# the build machine's /usr/bin/perf (Debian linux-perf) and its
# libraries; without it the test says so and passes.
. "$(dirname "$0")/lib.sh"

perf_bin=/usr/bin/perf
linux_tsv=$top/tests/perf-test/linux-6.1.tsv
hw=${PERF_TEST_HW:-"4.2 4.3 71.2"}
if [ ! -x "$perf_bin" ]; then
	ok "skipped: no $perf_bin (Debian package linux-perf)"
	finish
fi
# The tests baremon is not held to, as perf numbers them at the top
# level (a test with a held subtest runs), for perf test --skip: the
# rest runs (naming them all would pass baremon's shell too many words).
skip=$(awk -F '\t' -v hw=" $hw " '!/^#/ {
		t = $1; sub(/\..*/, "", t); if (!(t in held)) { held[t] = 0; order[++n] = t }
		if ($2 == "Ok" || (index(hw, " " $1 " ") && $2 ~ /^Skip/)) held[t] = 1 }
	END { for (i = 1; i <= n; i++) if (!held[order[i]]) { printf "%s%s", sep, order[i]; sep = "," } }' "$linux_tsv")
PERF_TEST_OUT=$logs PERF_TEST_TIMEOUT=${PERF_TEST_TIMEOUT:-1200} \
	"$top/tools/perf-test.sh" baremon -- --skip "$skip" > "$logs/run.out" 2>&1
log=$logs/baremon.log err=$logs/run.out name=perftest
check "baremon ran perf test ($(wc -l < "$logs/baremon.tsv" 2>/dev/null || echo 0) results)" \
	test -s "$logs/baremon.tsv"
PERF_TEST_KNOWN=$top/tests/perf-test/known-gaps.tsv \
	"$top/tools/perf-test-compare.sh" "$linux_tsv" "$logs/baremon.tsv" |
	grep -E '^(ok|not ok|# known gap|# perf-test|perf-test)' > "$logs/compare.out"
cat "$logs/compare.out"
passed=$((passed + $(grep -c '^ok - ' "$logs/compare.out")))
failed=$((failed + $(grep -c '^not ok - ' "$logs/compare.out")))
finish
