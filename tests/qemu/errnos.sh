#!/usr/bin/env bash
# errnos.sh: differential errno fuzzing against Linux (tests/fuzz/errnos.c).
# The same static binary draws the same seeded perf_event_open and ioctl
# cases on the host Linux and on a 2-CPU baremon; every case must end
# the same way (it works, or the same errno). A mismatch is listed with
# what the case was; the ones baremon keeps on purpose are in docs/perf.md
# and errnos-known.txt (regular expressions matched against "case N:
# DESCRIPTION host ERRNO baremon ERRNO").
# ERRNOS_SEED and ERRNOS_CASES change the budget (default 2000 cases).
. "$(dirname "$0")/lib.sh"

bin=$build/fuzz/errnos
seed=${ERRNOS_SEED:-7}
cases=${ERRNOS_CASES:-2000}
known=$top/tests/fuzz/errnos-known.txt

host=$logs/host.out
if ! "$bin" "$seed" "$cases" > "$host" 2>&1 || ! grep -q "^errnos: $cases cases\$" "$host"; then
	echo "not ok - errnos: the host run failed: $(tail -n 1 "$host")"
	failed=$((failed + 1))
	finish
fi
guest errnos --smp 2 --add "$bin" --run "errnos $seed $cases"
expect_rc 0
expect_line "^errnos: $cases cases\$" "baremon ran all $cases cases"
grep -E '^[0-9]+:[0-9]+$' "$host" > "$logs/host.cases"
grep -E '^[0-9]+:[0-9]+$' "$log" > "$logs/guest.cases"
# mismatches: "N host guest" for each case that ended differently.
awk -F: 'NR == FNR { h[$1] = $2; next } ($1 in h) && h[$1] != $2 { print $1, h[$1], $2 }' \
	"$logs/host.cases" "$logs/guest.cases" > "$logs/mismatches"
total=0 unexplained=0
while read -r n h g; do
	total=$((total + 1))
	what=$("$bin" --describe "$seed" "$n")
	if [ -s "$known" ] && printf 'case %s: %s host %s baremon %s\n' "$n" "$what" "$h" "$g" |
		grep -Eqf <(grep -v '^#' "$known" | grep .); then
		continue
	fi
	unexplained=$((unexplained + 1))
	[ "$unexplained" -le 20 ] &&
		echo "# case $n: Linux errno $h, baremon errno $g: $what"
done < "$logs/mismatches"
echo "# $total of $cases cases differ, $unexplained not explained in errnos-known.txt"
check "each case ends as on the host Linux ($unexplained unexplained mismatches)" \
	test "$unexplained" = 0 -a "$(wc -l < "$logs/guest.cases")" = "$cases"
finish
