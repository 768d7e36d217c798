#!/bin/sh
# bench-host.sh: `noise` and `bench` (static libc-lite programs, the same
# binaries baremon runs: tests/qemu/bench.sh) on the host Linux. The host
# has no PMU and a busy scheduler, so values are not asserted here, only
# that both programs work on Linux: noise calibrates the TSC, measures,
# and counts gaps (a 1 ns threshold makes every step one); bench runs a
# snippet in user mode with text, CSV and JSON output, names a faulting
# instruction, refuses -kernel without /dev/kbench and bad config lines.
# Needs `make` (build/apps) and nasm. Last line: "bench-host: N passed,
# N failed"; exit status 1 on any failure.
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
noise=$top/build/apps/noise
bench=$top/build/apps/bench
. "$top/tests/apps/harness.sh"
status() { check "$2 (status $1)" [ "$rc" = "$1" ]; }
expect() { check "$2" has "$1"; }
asm() { "$top/host/bench/bench-asm.sh" "$1" "$tmp/$2.bin"; }

# --- noise ---------------------------------------------------------------
run "$noise" -c 0 -s 0.2
status 0 "noise -c 0 -s 0.2"
expect '^noise: TSC [0-9]+\.[0-9]{3} MHz \(calibrated\), threshold 5000 ns, 0\.200000 s per CPU$' \
	"the TSC is calibrated against CLOCK_MONOTONIC_RAW on Linux"
expect '^ cpu interruptions +median_us +p99_us +p99\.9_us +max_us +lost_%$' "the column header"
expect '^ +0 +[0-9]+ ' "one row for CPU 0"
run "$noise" -c 0 -s 0.1 -t 1 -f 1000000000
status 0 "noise -t 1"
expect '^noise: TSC 1000\.000 MHz \(-f\)' "-f sets the TSC frequency"
expect '^ +0 +[1-9][0-9]* +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{4}$' \
	"a 1 ns threshold counts gaps and gives their percentiles"
run "$noise" -c 200
status 1 "noise on a CPU that does not exist"
expect '^noise: cannot run on CPU 200$' "says which CPU"
run "$noise" -s 0
status 2 "noise -s 0"
expect "^noise: bad duration '0'$" "a bad duration is named"

# --- bench ---------------------------------------------------------------
asm 'add rax, rbx' add && asm 'ud2' ud2 && asm 'nop; nop; mov rax, [0]' null
run "$bench" -code "$tmp/add.bin" -n_measurements 5 -unroll_count 100
status 0 "bench -code add.bin"
expect '^RDTSC: -?[0-9]+\.[0-9]{2}$' "RDTSC: value with two decimals"
run "$bench" -code "$tmp/add.bin" -range -median -loop_count 10 -unroll 10
status 0 "bench -range -median -loop_count (abbreviated -unroll)"
expect '^RDTSC: -?[0-9]+\.[0-9]{2} \[-?[0-9]+\.[0-9]{2};-?[0-9]+\.[0-9]{2}\]$' "-range: [min;max]"
run "$bench" -code "$tmp/add.bin" --csv -n_measurements 3 -unroll_count 10
status 0 "bench --csv"
expect '^event,value,min,max,copies,measurement,raw$' "CSV header"
check "CSV: 3 measurements of each run" [ "$(lines '^RDTSC,')" = 6 ]
run "$bench" -code "$tmp/add.bin" --json -basic_mode -n_measurements 2
status 0 "bench --json -basic_mode"
expect '^\{"mode":"user","aggregate":"avg","unroll_count":1000,"loop_count":0,"basic_mode":true,' "JSON settings"
run "$bench" -code "$tmp/add.bin" -fixed_counters -n_measurements 2
status 0 "bench -fixed_counters"
expect '^(Core cycles: |bench: Core cycles: not supported)' "fixed counters counted or said to be missing"
run "$bench" -code "$tmp/add.bin" -no_mem -verbose -n_measurements 2
status 0 "bench -no_mem"
expect 'read with inline rdtsc/rdpmc \(-no_mem\)' "-no_mem reads inline"
expect '^RDTSC: -?[0-9]+\.[0-9]{2}$' "-no_mem: RDTSC"
run "$bench" -code "$tmp/ud2.bin"
status 1 "a faulting snippet"
expect '^bench: the snippet died of ILL at offset 0 of -code \(copy 1\)' "SIGILL named with its offset"
run "$bench" -code_init "$tmp/null.bin" -code "$tmp/add.bin"
status 1 "a faulting -code_init"
expect 'died of SEGV at offset 0x2 of -code_init' "SIGSEGV in -code_init, offset 2"
run "$bench" -code "$tmp/add.bin" -kernel
status 1 "-kernel on Linux"
expect "^bench: -kernel needs baremon's /dev/kbench" "-kernel needs /dev/kbench"
printf '# events\nC0.00 INST_RETIRED.ANY_P\n\nC0.00.CMSK=300 BAD\n' > "$tmp/bad.cfg"
run "$bench" -code "$tmp/add.bin" -config "$tmp/bad.cfg"
status 2 "a bad config file"
expect "bad.cfg: line 4: bad counter mask 'CMSK=300'" "the bad line is named"
printf 'C0.00.CTR=1 PINNED\n' > "$tmp/ctr.cfg"
run "$bench" -code "$tmp/add.bin" -config "$tmp/ctr.cfg"
status 2 ".CTR= in user mode"
expect "ctr.cfg: line 1: .CTR=1 needs -kernel" "refused: perf chooses the counter"
printf 'C0.00.MSR_1A4=0xf NO_PREFETCH\n' > "$tmp/msr.cfg"
run "$bench" -code "$tmp/add.bin" -config "$tmp/msr.cfg"
status 2 "an MSR write in user mode"
expect "msr.cfg: line 1: .MSR_1A4= needs -kernel" "refused: user mode writes no MSR"
printf 'msr_10 TSC\n' > "$tmp/msrcfg.txt"
run "$bench" -code "$tmp/add.bin" -msr_config "$tmp/msrcfg.txt"
status 2 "-msr_config in user mode"
expect "^bench: -msr_config needs -kernel" "refused with the reason"
run "$bench" -asm 'add rax, rbx'
status 2 "-asm on the target"
expect 'baremon bench assembles -asm strings' "-asm points to the host side"
run "$bench" -code "$tmp/add.bin" -m
status 2 "an ambiguous abbreviation"
expect '^bench: -m is ambiguous' "-m is ambiguous"

# --- sweeps (host/bench/bench-sweep.sh, with a stand-in for run-qemu.sh) -----
sweep() { BENCH_RUN_QEMU="$top/tests/apps/fake-run-qemu.sh" "$top/host/bench/bench-sweep.sh" "$@"; }
run sweep --param unroll_count --from 1 --to 100 --csv "$tmp/s.csv" --plot "$tmp/s.png" -asm 'add rax, rbx'
status 0 "bench-sweep.sh --from 1 --to 100 (x2)"
check "the CSV: a header and one row per value, 1 to 64" \
	[ "$(tr '\n' ' ' < "$tmp/s.csv")" = "unroll_count,RDTSC 1,1.00 2,2.00 4,4.00 8,8.00 16,16.00 32,32.00 64,64.00 " ]
check "the parameter column increases" awk -F, 'NR > 2 && $1 <= last { exit 1 } { last = $1 }' "$tmp/s.csv"
check "the plot is a PNG" sh -c "head -c 4 '$tmp/s.png' | grep -q PNG"
run sweep --param unroll_count --from 10 --to 30 --step 10 -asm 'add rax, rbx'
check "--step 10: three rows, on standard output" [ "$(lines '^[0-9]+,[0-9]+\.00$')" = 3 ]
run sweep --param x --from 8 --to 4 -asm 'add rax, rbx'
status 2 "--from above --to"
expect 'is above --to' "says so"
run sweep --param x --from 1 --to 2 -asm 'mov {x}, rax'
status 2 "a NASM error in a swept -asm"
expect 'error' "NASM's error is shown"

# --- make bench's table (tools/linux-ref/table.sh) --------------------------
printf 'bench on cpu 1\ngetppid round trip: 120\r\nopen+close (x): 500 (open alone 300)\nPMI sample: no cpu PMU\nonly baremon: 7\n' > "$tmp/b.txt"
printf '[    0.1] kernel: 5\ngetppid round trip: 400\nopen+close (x): 0\nonly Linux: 9\nloop: min 5 max 6\n' > "$tmp/l.txt"
run sh "$top/tools/linux-ref/table.sh" "$tmp/b.txt" "$tmp/l.txt"
status 0 "table.sh merges two outputs"
expect '^operation +baremon +Linux +ratio$' "the table's header"
expect '^getppid round trip +120 +400 +0\.30$' "both sides and their ratio (a CR dropped)"
expect '^open\+close \(x\) +500 +0 +-$' "the first number only; no ratio against 0"
expect '^only baremon +7 +- +-$' "a baremon-only operation"
expect '^only Linux +- +9 +-$' "a Linux-only operation, after baremon's"
check "lines that are not results are left out" [ "$(lines 'PMI|kernel|loop|bench on')" = 0 ]
check "one row per operation" [ "$(lines '.')" = 5 ]
run sh "$top/tools/linux-ref/table.sh" "$tmp/b.txt" "$tmp/missing.txt"
status 0 "table.sh without Linux's output"
expect '^getppid round trip +120 +- +-$' "a missing side shows -"

echo "bench-host: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
