#!/usr/bin/env bash
# bench-sweep.sh: one parameter of a benchmark stepped over a range, in
# one QEMU boot, as a CSV table and a plot (docs/bench.md, "Sweeps").
#
#   host/bench/bench-sweep.sh [RUN-QEMU OPTIONS --] SWEEP OPTIONS BENCH OPTIONS
#     --param NAME    the swept parameter: {NAME} in a bench argument (an
#                     -asm string, say) is replaced by each value; when no
#                     argument has it, "-NAME VALUE" is added (-unroll_count)
#     --from A --to B the range, integers (0x.. allowed), A <= B
#     --mul F         next value = value * F (default 2), or
#     --step S        next value = value + S
#     --csv FILE      the table (default: standard output)
#     --plot FILE.png every event against the parameter (gnuplot; a log
#                     scale for x with --mul)
#
#   host/bench/bench-sweep.sh --param unroll_count --from 1 --to 64 \
#       --plot u.png -asm 'add rax, rbx' -fixed_counters
#
# The CSV has a header "NAME,event,event,..." and one row per value, in
# increasing order; an event bench did not print for a value is empty.
# Each value's -asm strings are assembled on the host; all the runs go
# into one session (a marker line "@@sweep VALUE" before each), so the
# boot is paid once. Exit status: 0, 1 if a run failed or printed
# nothing, 2 for bad options, or run-qemu.sh's (124 timeout, ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/host/bench/bench-args.sh"
die() { echo "bench-sweep: $*" >&2; exit 2; }
qemu_opts=()
if [[ " $* " == *" -- "* ]]; then
	while [ "$1" != "--" ]; do qemu_opts+=("$1"); shift; done
	shift
fi
param="" from="" to="" mul=2 step="" csv="" plot=""
bench=()
while [ $# -gt 0 ]; do
	case $1 in
	--param|--from|--to|--mul|--step|--csv|--plot)
		[ $# -ge 2 ] || die "$1 needs a value"
		v=$2
		case $1 in
		--param) param=$v ;; --from) from=$v ;; --to) to=$v ;;
		--mul) mul=$v step="" ;; --step) step=$v mul="" ;;
		--csv) csv=$v ;; --plot) plot=$v ;;
		esac
		shift 2 ;;
	*) bench+=("$1"); shift ;;
	esac
done
[[ $param =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "--param NAME is required (letters, digits, _)"
number() { [[ $1 =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] || die "'$1' is not a whole number"; echo $(($1)); }
[ -n "$from" ] && [ -n "$to" ] || die "--from and --to are required"
from=$(number "$from") to=$(number "$to")
[ "$from" -le "$to" ] || die "--from $from is above --to $to"
if [ -n "$step" ]; then
	step=$(number "$step"); [ "$step" -ge 1 ] || die "--step must be at least 1"
else
	mul=$(number "$mul"); [ "$mul" -ge 2 ] || die "--mul must be at least 2"
	[ "$from" -ge 1 ] || die "--mul needs --from of at least 1"
fi
[ -z "$plot" ] || command -v gnuplot >/dev/null || die "--plot needs gnuplot (Debian: gnuplot-nox; make deps)"

values=()
for ((v = from; v <= to; )); do
	values+=("$v")
	if [ -n "$step" ]; then v=$((v + step)); else v=$((v * mul)); fi
done
[ ${#values[@]} -le 256 ] || die "${#values[@]} values: at most 256"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
has_placeholder=0
for a in ${bench[@]+"${bench[@]}"}; do [[ $a == *"{$param}"* ]] && has_placeholder=1; done
adds=()
: > "$work/session"
i=0
for v in "${values[@]}"; do
	args=()
	for a in ${bench[@]+"${bench[@]}"}; do args+=("${a//\{$param\}/$v}"); done
	[ "$has_placeholder" = 1 ] || args+=("-$param" "$v")
	i=$((i + 1))
	bench_args "$work" "s$i" ${args[@]+"${args[@]}"} || exit 2
	adds+=(${bench_adds[@]+"${bench_adds[@]}"})
	printf 'echo @@sweep %s\n%s\n' "$v" "$bench_cmd" >> "$work/session"
done

rc=0
# BENCH_RUN_QEMU: another runner with run-qemu.sh's interface (tests).
"${BENCH_RUN_QEMU:-$top/run-qemu.sh}" --smp 2 --cmdline isolcpus=1 ${qemu_opts[@]+"${qemu_opts[@]}"} \
	${adds[@]+"${adds[@]}"} --session "$work/session" > "$work/out" || rc=$?
tr -d '\r' < "$work/out" > "$work/clean"

# The runs' "NAME: value" lines into NAME,event... rows (one per marker).
awk -v param="$param" '
	/^@@sweep [0-9]+$/ { row = $2; rows[++n] = row; next }
	n && match($0, /^[A-Za-z][^:]*: -?[0-9]+\.[0-9]+/) {
		name = substr($0, 1, index($0, ":") - 1)
		val = substr($0, index($0, ":") + 2); sub(/ .*/, "", val)
		if (!(name in seen)) { seen[name] = 1; names[++m] = name }
		cell[n, name] = val
	}
	END {
		line = param
		for (j = 1; j <= m; j++) line = line "," names[j]
		print line
		for (k = 1; k <= n; k++) {
			line = rows[k]
			for (j = 1; j <= m; j++) line = line "," cell[k, names[j]]
			print line
		}
	}' "$work/clean" > "$work/table.csv"

rows=$(($(wc -l < "$work/table.csv") - 1))
if [ "$rows" != "${#values[@]}" ] || ! awk -F, 'NR > 1 && NF < 2 { bad = 1 } END { exit bad }' "$work/table.csv"; then
	cat "$work/clean" >&2
	echo "bench-sweep: $rows of ${#values[@]} runs reported" >&2
	[ "$rc" != 0 ] || rc=1
fi
if [ -n "$csv" ]; then cp "$work/table.csv" "$csv"; else cat "$work/table.csv"; fi

if [ -n "$plot" ] && [ "$rows" -gt 0 ]; then
	ncol=$(head -n 1 "$work/table.csv" | awk -F, '{ print NF }')
	{
		echo "set terminal pngcairo size 900,560 noenhanced"
		echo "set output '$plot'"
		echo "set datafile separator ','"
		echo "set key autotitle columnhead outside right"
		echo "set xlabel '$param'"
		echo "set ylabel 'per copy'"
		echo "set grid"
		[ -z "$mul" ] || echo "set logscale x $mul"
		printf "plot for [c=2:%d] '%s' using 1:c with linespoints\n" "$ncol" "$work/table.csv"
	} > "$work/plot.gp"
	gnuplot "$work/plot.gp" || { echo "bench-sweep: gnuplot failed" >&2; rc=1; }
fi
exit "$rc"
