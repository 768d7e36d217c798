#!/bin/sh
# table.sh: one table of two runs of the same benchmark program, baremon
# and Linux (make bench; docs/bench.md, "Linux in the same run").
#
#   tools/linux-ref/table.sh BAREMON-OUTPUT LINUX-OUTPUT
#
# A result is a line "NAME: N ..." (N a whole number, what follows it is
# ignored; a carriage return is dropped). Prints operation, baremon,
# Linux and ratio (baremon / Linux, two decimals) in the order of the
# baremon output, then the operations only Linux printed (the first
# column as wide as the longest name); "-" where a
# side has no result or the ratio is undefined. A missing file counts as
# empty output. Exit status 0, 2 for bad usage.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 BAREMON-OUTPUT LINUX-OUTPUT" >&2; exit 2; }
b=$1 l=$2
[ -f "$b" ] || b=/dev/null
[ -f "$l" ] || l=/dev/null
awk '
	function parse(line,    name, rest) {
		sub(/\r$/, "", line)
		if (!match(line, /^[A-Za-z][^:]*: [0-9]+([^0-9.]|$)/))
			return 0
		name = substr(line, 1, index(line, ": ") - 1)
		rest = substr(line, index(line, ": ") + 2)
		sub(/[^0-9].*/, "", rest)
		pname = name; pval = rest
		return 1
	}
	{ side = FILENAME == ARGV[1] ? 1 : 2 }
	parse($0) {
		if (!(pname in known)) { known[pname] = 1; order[++n] = pname }
		val[side, pname] = pval
	}
	END {
		w = length("operation")
		for (i = 1; i <= n; i++)
			if (length(order[i]) > w)
				w = length(order[i])
		printf "%-*s %12s %12s %7s\n", w, "operation", "baremon", "Linux", "ratio"
		for (i = 1; i <= n; i++) {
			k = order[i]
			bv = ((1, k) in val) ? val[1, k] : "-"
			lv = ((2, k) in val) ? val[2, k] : "-"
			r = (bv != "-" && lv != "-" && lv + 0 > 0) ? sprintf("%.2f", bv / lv) : "-"
			printf "%-*s %12s %12s %7s\n", w, k, bv, lv, r
		}
	}' "$b" "$l"
