#!/usr/bin/env bash
# perf-test.sh linux|baremon [-- TEST...]: run Debian's own perf's
# `perf test` (the host's /usr/bin/perf, unmodified, with the libraries
# ld.so finds for it here) inside a guest and write its results, one
# "NUMBER<TAB>RESULT<TAB>NAME" line per test and subtest, to
# build/perf-test/KERNEL.tsv (the whole console in KERNEL.log).
#   linux    Debian's Linux 6.1 in QEMU (tools/linux-ref.sh): the oracle
#   baremon  baremon in QEMU (run-qemu.sh), same CPUs, memory and files
# RESULT is perf's word: Ok, Skip, FAILED!. tools/perf-test-compare.sh
# puts the two side by side.
#   PERF_TEST_OUT      where KERNEL.tsv and KERNEL.log go (build/perf-test)
#   PERF_TEST_TIMEOUT  seconds the guest may take (1800)
#   PERF_TEST_LDSO     on baremon, start perf through this loader, as
#                      `LDSO /usr/bin/perf test` (default: none, exec
#                      runs perf through its own PT_INTERP)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BAREMON_BUILD:-$top/build}
die() { echo "perf-test: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: $0 linux|baremon [-- TEST...]"
kernel=$1
shift
[ "${1:-}" = -- ] && shift
perf=/usr/bin/perf
[ -x "$perf" ] || die "no $perf (Debian package linux-perf)"
out=${PERF_TEST_OUT:-$build/perf-test}
mkdir -p "$out"
log=$out/$kernel.log

adds=()
while IFS= read -r spec; do
	adds+=(--add "$spec")
done < <("$top/tools/ldd-closure.sh" "$perf")
adds+=(--add "$perf:$perf")
ldso=${PERF_TEST_LDSO:-}
# perf test runs ~90 tests, several of them for tens of seconds under TCG.
timeout=${PERF_TEST_TIMEOUT:-1800}
rc=0
case $kernel in
linux)
	"$top/tools/linux-ref.sh" --smp 2 --timeout "$timeout" "${adds[@]}" \
		-- "$perf:$perf" test "$@" > "$log" 2>&1 || rc=$?
	;;
baremon)
	# The CPU linux-ref.sh gives Linux (and tests/perf-test/linux-6.1.tsv
	# was recorded on), not run-qemu.sh's per-mode model: the tests that
	# read the CPU's pmu-events then see the same (no) table on both.
	"$top/run-qemu.sh" --smp 2 --mem 1G --quiet --timeout "$timeout" --log "$log" \
		--cpu max,vendor=GenuineIntel \
		"${adds[@]}" --run "$ldso${ldso:+ }$perf test $*" > /dev/null 2>&1 || rc=$?
	;;
*) die "unknown kernel '$kernel' (linux or baremon)" ;;
esac
# perf test prints " 4: name    : Ok" and subtests "  4.1: name  : Ok"
# (a parent with subtests ends its line with ":" alone); perf colours its
# words on a terminal, so the escapes are dropped first, and baremon's
# kernel log lines ("[    4.89] ...", whole lines) can land inside
# perf's, so they are cut out wherever they start.
tr -d '\r' < "$log" | sed 's/\x1b\[[0-9;]*m//g' |
	perl -0pe 's/\[ *[0-9]+\.[0-9]+\] [^\n]*\n//g' |
	sed -n 's/^ *\([0-9][0-9.]*\): \(.*[^ ]\) *: *\(Ok\|Skip.*\|FAILED!\)$/\1\t\3\t\2/p' |
	sort -V > "$out/$kernel.tsv"
n=$(wc -l < "$out/$kernel.tsv")
echo "perf-test: $kernel: $n results in $out/$kernel.tsv (guest status $rc)"
[ "$n" -gt 0 ]
