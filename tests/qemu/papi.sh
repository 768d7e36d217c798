#!/usr/bin/env bash
# papi.sh: Debian's PAPI tools and likwid-topology, unmodified, inside
# baremon on the CPU the default vpmu mode shows (Skylake-Client: PAPI's
# skl presets, through libpfm4), with their libraries pushed at their
# paths (run-qemu.sh --add-dyn). papi_avail and papi_native_avail
# report the model's counters and events; tests/cpumodel/papicount
# counts a known loop of 2N instructions and N branches with
# PAPI_TOT_INS and PAPI_BR_INS within a tight bound (--icount: the
# instruction clock; branches by single-step); papi_command_line adds
# and counts presets; likwid-topology's sockets, cores and threads are
# the QEMU -smp topology's. With log_missing, no system call the tools
# make is left unimplemented but those glibc copes without. Skipped
# without papi-tools, likwid or build/cpumodel/papicount (libpapi-dev).
. "$(dirname "$0")/lib.sh"

papicount=$build/cpumodel/papicount
lib=/usr/lib/x86_64-linux-gnu
for f in "$papicount" /usr/bin/papi_avail /usr/bin/lua5.3 /usr/bin/likwid-topology; do
	if [ ! -x "$f" ]; then
		ok "skip: no $f (make cpumodel-tests; Debian papi-tools, libpapi-dev, likwid)"
		finish
	fi
done
adds=(--add-dyn "$papicount:/bin/papicount")
for p in /usr/bin/papi_avail /usr/bin/papi_native_avail /usr/bin/papi_command_line \
	/usr/bin/lua5.3 /bin/bash "$lib/liblikwid.so.5.2"; do
	adds+=(--add-dyn "$p:$p")
done
# likwid.lua requires liblikwid from $lib/?.so (the -dev symlink's name)
adds+=(--add /usr/bin/likwid-topology:/usr/bin/likwid-topology
	--add /usr/share/lua/likwid.lua:/usr/share/lua/likwid.lua
	--add "$lib/liblikwid.so.5.2:$lib/liblikwid.so"
	--add /usr/share/papi/7.0/papi_events.csv:/usr/share/papi/7.0/papi_events.csv)

n=1000000 # papicount: 2n instructions, n branches
sockets=2 cores=1 threads=2
session=$logs/papi.session
cat > "$session" <<SESSION
echo "== count"
/bin/papicount $n PAPI_TOT_INS PAPI_BR_INS
echo "== avail"
/usr/bin/papi_avail -a
echo "== native"
/usr/bin/papi_native_avail -i INST_RETIRED
echo "== command_line"
/usr/bin/papi_command_line PAPI_TOT_INS PAPI_TOT_CYC
echo "== likwid"
/usr/bin/lua5.3 /usr/bin/likwid-topology
echo "== end"
SESSION
# One section of the log: the lines between "== NAME" and the next "==",
# without the kernel's log lines (log_missing's among them).
section() { sed -n "/^== $1\$/,/^== /p" "$log" | grep -Ev '^(== |baremon> |\[ *[0-9.]+\] )'; }
within() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
has_text() { grep -Eq -- "$2" <<< "$1"; }

guest_timeout=$((${GUEST_TIMEOUT:-90} * 4))
guest papi --smp "$((sockets * cores * threads)),sockets=$sockets,cores=$cores,threads=$threads" \
	--icount 4 --mem 1G --cmdline log_missing --session "$session" "${adds[@]}"
expect_rc 0
expect_line '^== end$' "the session ran to its end"
expect_no_line '^PANIC' "no panic"

count=$(section count)
ins=$(sed -n 's/^PAPI_TOT_INS: //p' <<< "$count")
br=$(sed -n 's/^PAPI_BR_INS: //p' <<< "$count")
check "papicount: PAPI's cpu is the Skylake the default mode shows" \
	has_text "$count" '^papi: cpu "Intel Core Processor \(Skylake\)", [1-9][0-9]* counters, component perf_event$'
check "papicount: PAPI_TOT_INS of the loop's $((2 * n)) instructions: ${ins:-none} in [$((2 * n)), $((2 * n + 2000))]" \
	within "$ins" $((2 * n)) $((2 * n + 2000))
check "papicount: PAPI_BR_INS of the loop's $n branches: ${br:-none} in [$n, $((n + 500))]" \
	within "$br" $n $((n + 500))

avail=$(section avail)
check "papi_avail: the CPU is family 6 model 94 (Skylake)" \
	has_text "$avail" '^CPUID +: Family/Model/Stepping 6/94/'
check "papi_avail: the model's counters (Number Hardware Counters > 0)" \
	has_text "$avail" '^Number Hardware Counters : [1-9]'
for e in PAPI_TOT_INS PAPI_TOT_CYC PAPI_BR_INS; do
	check "papi_avail -a: $e is available" has_text "$avail" "^$e +0x"
done
native=$(section native)
check "papi_native_avail: skl's INST_RETIRED" has_text "$native" '^\| INST_RETIRED '
check "papi_native_avail: INST_RETIRED's ANY_P umask" has_text "$native" '^\|     :ANY_P ' 

cl=$(section command_line)
for e in PAPI_TOT_INS PAPI_TOT_CYC; do
	check "papi_command_line: $e added" has_text "$cl" "^Successfully added: $e"
done
# "PAPI_TOT_INS : <TAB>200852268": its built-in workload. Under
# --icount 4 the model's cycles are the TSC's, 16 a user instruction.
cl_ins=$(sed -n 's/^PAPI_TOT_INS[[:space:]]*:[[:space:]]*\([0-9]*\).*/\1/p' <<< "$cl")
cl_cyc=$(sed -n 's/^PAPI_TOT_CYC[[:space:]]*:[[:space:]]*\([0-9]*\).*/\1/p' <<< "$cl")
check "papi_command_line: PAPI_TOT_INS ${cl_ins:-none}, PAPI_TOT_CYC ${cl_cyc:-none}: 16 cycles an instruction (--icount 4)" \
	awk -v i="${cl_ins:-0}" -v c="${cl_cyc:-0}" 'BEGIN { exit !(i > 1000000 && c / i > 15.9 && c / i < 16.1) }'

topo=$(section likwid)
field() { sed -n "s/^$1:[[:space:]]*//p" <<< "$topo" | head -1; }
check "likwid-topology: CPU name Intel Core Processor (Skylake) ($(field 'CPU name'))" \
	[ "$(field 'CPU name')" = "Intel Core Processor (Skylake)" ]
check "likwid-topology: CPU type Intel Skylake processor, from CPUID's family and model ($(field 'CPU type'))" \
	[ "$(field 'CPU type')" = "Intel Skylake processor" ]
got="$(field Sockets)/$(field 'Cores per socket')/$(field 'Threads per core')"
check "likwid-topology: sockets/cores per socket/threads per core $got, -smp says $sockets/$cores/$threads" \
	[ "$got" = "$sockets/$cores/$threads" ]
check "likwid-topology: hwloc read sysfs's topology (no fallback)" \
	eval '! has_text "$topo" "failed to find sysfs cpu topology"'

# What the tools ask for and cope without, on Linux too: clone3 (glibc
# falls back to clone), rseq (glibc's; ENOSYS on purpose).
others=$(grep -o 'missing: [^ ]* [a-z0-9_]*(' "$log" | sed 's/.* //; s/($//' |
	grep -vxE 'clone3|rseq' | sort -u | tr '\n' ' ')
check "no other system call the tools make is missing (${others:-none})" test -z "$others"
finish
