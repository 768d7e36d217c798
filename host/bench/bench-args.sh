# bench-args.sh: turn nanoBench's command line into a baremon `bench`
# command and the files it needs in the initrd. Sourced by bench-qemu.sh
# and bench-sweep.sh (bash; `top` is the repository root).
#
#   bench_args WORK TAG BENCH-OPTIONS...
#
# -asm, -asm_init, -asm_late_init and -asm_one_time_init are assembled
# into WORK (bench-asm.sh; NASM's errors go to stderr and the call
# fails); they and the -code*, -config and -msr_config files go into the
# initrd under /bench/TAG-N. Sets bench_adds (run-qemu.sh --add options)
# and bench_cmd (the shell line); -cpu 1 is added unless given.

bench_quote() { printf " '%s'" "${1//\'/\'\\\'\'}"; }

bench_args() {
	local work=$1 tag=$2 n=0 cpu_given=0 opt
	shift 2
	bench_adds=() bench_cmd=bench
	while [ $# -gt 0 ]; do
		opt=$1
		case $opt in
		-asm|-asm_init|-asm_late_init|-asm_one_time_init)
			[ $# -ge 2 ] || { echo "bench: $opt needs a value" >&2; return 2; }
			n=$((n + 1))
			"$top/host/bench/bench-asm.sh" "$2" "$work/$tag-$n.bin" || return 2
			bench_adds+=(--add "$work/$tag-$n.bin:/bench/$tag-$n")
			bench_cmd+=$(bench_quote "-code${opt#-asm}")$(bench_quote "/bench/$tag-$n")
			shift 2 ;;
		-code|-code_init|-code_late_init|-code_one_time_init|-config|-msr_config)
			[ $# -ge 2 ] || { echo "bench: $opt needs a value" >&2; return 2; }
			[ -r "$2" ] || { echo "bench: $opt: cannot read '$2'" >&2; return 2; }
			n=$((n + 1))
			bench_adds+=(--add "$2:/bench/$tag-$n")
			bench_cmd+=$(bench_quote "$opt")$(bench_quote "/bench/$tag-$n")
			shift 2 ;;
		-cpu) cpu_given=1; bench_cmd+=$(bench_quote "$1"); shift ;;
		*) bench_cmd+=$(bench_quote "$1"); shift ;;
		esac
	done
	[ "$cpu_given" = 1 ] || bench_cmd+=" -cpu 1"
	return 0
}
