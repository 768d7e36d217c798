#!/usr/bin/env bash
# bench-qemu.sh: run `bench` on baremon under QEMU with nanoBench's -asm
# options, end to end (docs/bench.md).
#
#   host/bench/bench-qemu.sh [RUN-QEMU OPTIONS --] BENCH OPTIONS
#   host/bench/bench-qemu.sh -asm 'add rax, rbx' -fixed_counters
#   host/bench/bench-qemu.sh --icount -- -asm 'mov rax, cr0' -kernel
#
# -asm, -asm_init, -asm_late_init and -asm_one_time_init are assembled on
# the host (bench-asm.sh) and put into the initrd with the -code*,
# -config and -msr_config files (bench-args.sh); the other options go to
# bench unchanged. The guest has 2 CPUs with CPU 1 isolated and bench
# runs there (-cpu 1) unless the options say otherwise. The exit status
# is bench's (or run-qemu.sh's: 124 timeout, 125 panic, ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/host/bench/bench-args.sh"
qemu_opts=()
if [[ " $* " == *" -- "* ]]; then
	while [ "$1" != "--" ]; do qemu_opts+=("$1"); shift; done
	shift
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench_args "$work" b "$@" || exit $?
"$top/run-qemu.sh" --smp 2 --cmdline isolcpus=1 ${qemu_opts[@]+"${qemu_opts[@]}"} \
	${bench_adds[@]+"${bench_adds[@]}"} --run "$bench_cmd"
