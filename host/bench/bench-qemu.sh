#!/usr/bin/env bash
# bench-qemu.sh: run `bench` on baremon under QEMU with nanoBench's -asm
# options, end to end (docs/bench.md).
#
#   host/bench/bench-qemu.sh [RUN-QEMU OPTIONS --] BENCH OPTIONS
#   host/bench/bench-qemu.sh -asm 'add rax, rbx' -fixed_counters
#   host/bench/bench-qemu.sh --icount -- -asm 'mov rax, cr0' -kernel
#
# -asm, -asm_init, -asm_late_init and -asm_one_time_init are assembled on
# the host (bench-asm.sh) and put into the initrd with -code, -code_init,
# -code_late_init, -code_one_time_init and -config files; the other
# options go to bench unchanged. The guest has 2 CPUs with CPU 1 isolated
# and bench runs there (-cpu 1) unless the options say otherwise. The exit
# status is bench's (or run-qemu.sh's: 124 timeout, 125 panic, ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
qemu_opts=()
if [[ " $* " == *" -- "* ]]; then
	while [ "$1" != "--" ]; do qemu_opts+=("$1"); shift; done
	shift
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
adds=() args=() cpu_given=0 n=0
while [ $# -gt 0 ]; do
	opt=$1
	case $opt in
	-asm|-asm_init|-asm_late_init|-asm_one_time_init)
		[ $# -ge 2 ] || { echo "$0: $opt needs a value" >&2; exit 2; }
		n=$((n + 1))
		"$top/host/bench/bench-asm.sh" "$2" "$work/asm$n.bin"
		adds+=(--add "$work/asm$n.bin:/bench/asm$n.bin")
		args+=("-code${opt#-asm}" "/bench/asm$n.bin")
		shift 2 ;;
	-code|-code_init|-code_late_init|-code_one_time_init|-config)
		[ $# -ge 2 ] || { echo "$0: $opt needs a value" >&2; exit 2; }
		n=$((n + 1))
		adds+=(--add "$2:/bench/file$n")
		args+=("$opt" "/bench/file$n")
		shift 2 ;;
	-cpu) cpu_given=1; args+=("$1"); shift ;;
	*) args+=("$1"); shift ;;
	esac
done
[ "$cpu_given" = 1 ] || args+=(-cpu 1)
cmd=bench
for a in "${args[@]}"; do cmd+=" '${a//\'/\'\\\'\'}'"; done
exec "$top/run-qemu.sh" --smp 2 --cmdline isolcpus=1 "${qemu_opts[@]}" "${adds[@]}" --run "$cmd"
