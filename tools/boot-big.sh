#!/usr/bin/env bash
# boot-big.sh: boot time to the prompt against the CPU count under TCG,
# with the system's QEMU (7.2 on bookworm) and QEMU 10 (tools/qemu-new.sh).
# `make boot-big` runs it; not part of `make test` (the big boots take
# minutes on a loaded machine).
#
#   tools/boot-big.sh [--qemu old|new|both] [--mem SIZE] [COUNT...]
#
# COUNT defaults to 1 16 64 288 512 1024. Each boot runs `true` at the
# prompt and powers off; one table row per boot: the QEMU, the CPU count
# asked, the CPUs the kernel brought up, the kernel's start-up time
# ("init: done in"), the SMP bring-up time, and the wall time from
# starting QEMU to the exit (firmware included). A count QEMU refuses
# gets a row saying so.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BAREMON_BUILD:-$top/build}
which=both mem=2G counts=()
while [ $# -gt 0 ]; do
	case $1 in
	--qemu) which=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	-h|--help) sed -n 2,15p "$0"; exit 0 ;;
	*) counts+=("$1"); shift ;;
	esac
done
[ ${#counts[@]} -gt 0 ] || counts=(1 16 64 288 512 1024)
qemus=()
case $which in
old) qemus=(qemu-system-x86_64) ;;
new) qemus=("$("$top/tools/qemu-new.sh")") || exit 2 ;;
both) qemus=(qemu-system-x86_64 "$("$top/tools/qemu-new.sh")") || exit 2 ;;
*) echo "boot-big: --qemu old|new|both" >&2; exit 2 ;;
esac
out=$build/boot-big
mkdir -p "$out"

printf '%-6s %6s %7s %12s %12s %8s  %s\n' qemu cpus online init_ms smp_ms wall_s note
for q in "${qemus[@]}"; do
	ver=$("$q" --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
	for n in "${counts[@]}"; do
		log=$out/qemu$ver-smp$n.log
		start=$(date +%s.%N)
		"$top/run-qemu.sh" --qemu "$q" --smp "$n" --mem "$mem" --quiet \
			--timeout "${BOOT_BIG_TIMEOUT:-3600}" --log "$log" --run true \
			>/dev/null 2>"$log.err"
		rc=$?
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		sed -i 's/\r//g' "$log"
		online=$(sed -n 's/.*smp: \([0-9]*\) cpus online.*/\1/p' "$log" | head -n 1)
		[ -n "$online" ] || { grep -q 'init: done' "$log" && online=1; }
		init=$(sed -n 's/.*init: done in \([0-9]*\) us.*/\1/p' "$log" | head -n 1)
		smp=$(sed -n 's/.*smp: [0-9]* cpus online.* in \([0-9]*\) us$/\1/p' "$log" | head -n 1)
		note="exit $rc"
		[ "$rc" = 0 ] || note="$note: $(grep -h -m1 -E 'run-qemu: |qemu' "$log.err" | cut -c1-90)"
		printf '%-6s %6s %7s %12s %12s %8.1f  %s\n' "$ver" "$n" "${online:--}" \
			"$([ -n "$init" ] && echo $((init / 1000)) || echo -)" \
			"$([ -n "$smp" ] && echo $((smp / 1000)) || echo -)" "$wall" "$note"
	done
done
