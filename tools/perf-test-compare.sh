#!/bin/sh
# perf-test-compare.sh LINUX.tsv BAREMON.tsv: `perf test` on baremon held
# to `perf test` on Linux 6.1 in the same QEMU (tools/perf-test.sh writes
# both files). A test Linux passes must pass on baremon; a test Linux
# skips for want of hardware counters (QEMU TCG gives Linux no PMU:
# "Skip (permissions)", "Skip (missing hardware support)" and the like on
# a counter test) must pass on baremon, whose vpmu counts; any other
# result of Linux's asks nothing of baremon, and the table says what
# baremon did. Prints the table, an "ok"/"not ok" line per test that is
# held, and "perf-test: N passed, N failed".
set -eu
[ $# -eq 2 ] || { echo "usage: $0 LINUX.tsv BAREMON.tsv" >&2; exit 2; }
linux=$1
bare=$2
# Tests whose Linux skip is the missing PMU (perf's test numbers in 6.1):
# 4.2/4.3 user-space counter reading, 71.2 perf time to TSC.
hw_tests=${PERF_TEST_HW:-"4.2 4.3 71.2"}
awk -F '\t' -v hw=" $hw_tests " '
	NR == FNR { lx[$1] = $2; name[$1] = $3; order[++n] = $1; next }
	{ bm[$1] = $2; if (!($1 in name)) { name[$1] = $3; order[++n] = $1 } }
	END {
		printf "%-6s %-26s %-26s %s\n", "test", "Linux 6.1", "baremon", "name"
		for (i = 1; i <= n; i++) {
			t = order[i]
			l = (t in lx) ? lx[t] : "-"; b = (t in bm) ? bm[t] : "-"
			printf "%-6s %-26s %-26s %s\n", t, l, b, name[t]
		}
		pass = fail = 0
		for (i = 1; i <= n; i++) {
			t = order[i]
			l = (t in lx) ? lx[t] : "-"; b = (t in bm) ? bm[t] : "-"
			want = (l == "Ok") || (index(hw, " " t " ") && l ~ /^Skip/)
			if (!want)
				continue
			if (b == "Ok") {
				printf "ok - perf test %s: %s\n", t, name[t]; pass++
			} else {
				printf "not ok - perf test %s: %s: Linux %s, baremon %s\n", t, name[t], l, b; fail++
			}
		}
		printf "perf-test: %d passed, %d failed\n", pass, fail
		exit fail != 0
	}' "$linux" "$bare"
