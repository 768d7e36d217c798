#!/usr/bin/env bash
# pmu.sh: the "cpu" PMU under QEMU TCG, where the software model (vpmu)
# stands in for the PMU QEMU lacks: its boot line, its sysfs directory
# as Linux lays it out, tests/musl/pmu_cycles (cycles in all modes and
# user-only around real work, Linux's errnos) on 1 and 2 CPUs, stat
# counting cycles, instructions:u and branches:u (single-step), and under
# -icount an exact user-mode cycle count and instructions in both modes,
# and what a stepped instruction costs the model (exact's cost line);
# the cap on stepping for CPU-wide events (stepcap) and a long stepped
# loop counted exactly (steploop).
# Then every other vpmu mode (intel-v2, intel-v5, hybrid, amd: docs/pmu.md)
# boots once (hybrid on one CPU, then on two for its two PMUs): its conformance and mode self-tests, a core subset of
# tests/perf that does not depend on the host's speed (on hybrid exact
# and rdpmc find cpu_core/, there being no cpu/), tests/abi/vendor,
# /proc/interrupts' PMI row, and for amd the AMD driver's boot line,
# sysfs and self-tests, with the PMI as an NMI (the default) and, in one
# more boot, as the maskable interrupt (pmi=irq). Branch stacks: the LBR
# self-tests and the driver's boot line on every mode, caps/branches its
# depth (none without LBR), hw_idx Linux's (legacy: the top of stack,
# which moves; arch and AMD: 0), and tests/perf/lbr
# with a record -b read by the host's perf on one mode per face (arch on
# intel-v5, LbrExtV2 on amd; the default mode's legacy LBR runs them in
# perf.sh and record.sh; hybrid's arch LBR is intel-v5's code), intel-v2
# without.
. "$(dirname "$0")/lib.sh"

dev=/sys/bus/event_source/devices/cpu
session=$logs/pmu.session
{
	echo "cat $dev/type"
	echo "ls $dev/format"
	for f in event umask edge pc any inv cmask; do echo "cat $dev/format/$f"; done
	echo "ls $dev/events"
	for f in cpu-cycles bus-cycles ref-cycles instructions; do echo "cat $dev/events/$f"; done
	echo "ls $dev/caps"
	echo "cat $dev/caps/pmu_name"
	echo "cat $dev/caps/max_precise"
	echo "cat $dev/caps/branches"
	echo "cat $dev/caps/model_clock"
	echo 'pmu_cycles'
	echo 'echo "status $?"'
	echo 'stat -e cycles,instructions -- pmu_cycles'
	echo 'stat -e cycles,instructions:u,branches:u -- true'
	echo 'lbr'
} > "$session"

# after COMMAND N: the N lines the session command COMMAND printed.
after() { grep -A"$2" -x -F "baremon> $1" "$log" | sed -n "2,$(($2 + 1))p"; }

guest sysfs --smp 2 --session "$session" --add "$build/musl/pmu_cycles" --add "$build/perf/musl/lbr"
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: cpu: vpmu, a software model of intel arch perfmon v4: 4 gp x 48 bits, 3 fixed x 48 bits' \
	"boot log says the vpmu models arch perfmon v4, 4 + 3 counters of 48 bits"
expect_line '^4$' "cpu/type is 4 (PERF_TYPE_RAW)"
for v in 'config:0-7' 'config:8-15' 'config:18' 'config:19' 'config:21' 'config:23' 'config:24-31'; do
	expect_line "^$v\$" "a format file says $v"
done
check "format/ holds event umask edge pc any inv cmask" \
	[ "$(after "ls $dev/format" 7 | sort | xargs)" = "any cmask edge event inv pc umask" ]
check "events/ holds branch-instructions bus-cycles cpu-cycles instructions ref-cycles" \
	[ "$(after "ls $dev/events" 5 | xargs)" = "branch-instructions bus-cycles cpu-cycles instructions ref-cycles" ]
expect_line '^event=0x3c$' "events/cpu-cycles is event=0x3c"
expect_line '^event=0x3c,umask=0x01$' "events/bus-cycles is event=0x3c,umask=0x01"
expect_line '^event=0x00,umask=0x03$' "events/ref-cycles is event=0x00,umask=0x03"
expect_line '^event=0xc0$' "events/instructions is event=0xc0 (the model counts them)"
expect_line '^vpmu$' "caps/pmu_name is vpmu"
check "caps/max_precise is 0" [ "$(after "cat $dev/caps/max_precise" 1)" = 0 ]
# lbr_depth: the depth the driver's boot line gives ("N-deep ... LBR").
lbr_depth() { sed -n 's/.*pmu: cpu: \([0-9]*\)-deep .*/\1/p' "$log" | head -1; }
check "caps/branches is the legacy LBR's depth ($(lbr_depth))" \
	[ "$(after "cat $dev/caps/branches" 1)" = "$(lbr_depth)" -a -n "$(lbr_depth)" ]
expect_line '^pmu_cycles: [0-9]+ passed, 0 failed$' "pmu_cycles passes"
expect_line '^status 0$' "pmu_cycles exits 0"
expect_no_line '^not ok' "no pmu_cycles check failed"
expect_line '^ +[1-9][0-9]* +cycles( |$)' "stat counts cycles"
expect_line '^ +<not supported> +instructions( |$)' \
	"stat: kernel-mode instructions not supported without the instruction clock"
expect_line '^ +[1-9][0-9]* +instructions:u( |$)' "stat: instructions:u counted (single-step)"
expect_line '^ +[1-9][0-9]* +branches:u( |$)' "stat: branches:u counted (single-step)"
check "caps/model_clock is tsc (no instruction clock)" [ "$(after "cat $dev/caps/model_clock" 1)" = tsc ]
expect_line '^stat: note: the software PMU model counts user instructions and user branches by single-stepping' \
	"stat: a note names what is stepped"
expect_line '^stat: note: cycles on the software PMU model are the TSC' "stat: a note says what cycles are"
# (perf.sh runs lbr on this mode in full; here its hw_idx alone)
expect_line '^# cond, hw_index: hw_idx in \[[0-9]+, [1-9][0-9]*\]$' \
	"legacy LBR: hw_idx is the top of stack, which moves (Linux's)"
expect_no_line '^PANIC' "no panic"

guest smp1 --smp 1 --add "$build/musl/pmu_cycles" --run pmu_cycles
expect_rc 0
expect_line '^pmu_cycles: [0-9]+ passed, 0 failed$' "pmu_cycles passes on 1 CPU"

# -icount shift=4: the TSC, hence the model's cycles, is 16 x instructions.
guest icount --icount 4 --add "$build/musl/pmu_cycles" --run 'pmu_cycles --exact 16'
expect_rc 0
expect_line '^ok - user-only cycles = the loop' "user-only cycles are the loop's instructions, exactly"

# The instruction clock: instructions in both modes, exact in user mode.
# Stepping branches:u costs ~200 kernel instructions each: room for it.
guest_timeout=$((${GUEST_TIMEOUT:-90} * 2))
printf '%s\n' 'stat -e cycles,instructions -- exact --icount 4' 'rdpmc --icount 4' \
	'exactmix --icount 4' 'stat -e instructions:u,branches:u -- true' > "$logs/icount-insns.session"
guest icount-insns --icount 4 --add "$build/perf/musl/exact" --add "$build/perf/musl/rdpmc" \
	--add "$build/perf/musl/exactmix" --session "$logs/icount-insns.session"
guest_timeout=${GUEST_TIMEOUT:-90}
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: vpmu: instruction clock: TSC = 2\^4 x instructions' \
	"the kernel checked icount=4 and uses the instruction clock"
expect_line '^ +[1-9][0-9]* +instructions( |$)' "stat counts instructions (user and kernel) under -icount"
expect_line '^exact: [0-9]+ passed, 0 failed$' "exact passes under -icount"
expect_line '^stat: note: the software PMU model counts user branches by single-stepping' \
	"stat under -icount: the note names branches alone as stepped (instructions from the clock)"
expect_line "^stat: note: cycles on the software PMU model are QEMU's instruction clock \\(-icount shift=4\\): 16 per instruction" \
	"stat under -icount: cycles are the instruction clock, 16 an instruction"
expect_line '^rdpmc: [0-9]+ passed, 0 failed$' "rdpmc (self-monitoring, RDPMC emulated) passes under -icount"
expect_line '^exactmix: [0-9]+ passed, 0 failed$' \
	"exactmix: exact and stepped events together, the model's traps in none, under -icount"
# The lean step path (pmu/vpmu/step_fast.c), in instructions, not time:
# exact's cost line under -icount must stay 10x under the 2,446 kernel
# instructions per stepped instruction of the full trap path (186 now).
per_step=$(sed -n 's/^# cost: .* stepped: \([0-9]*\) kernel instructions per stepped instruction.*/\1/p' "$log" | head -n 1)
check "stepping costs ${per_step:-?} kernel instructions per stepped instruction (< 245)" \
	[ "${per_step:-99999}" -lt 245 ]

# The cap on stepping for CPU-wide events (perf_cpu_time_max_percent:
# tests/perf/stepcap.c), its log line once, and a long stepped loop
# counted exactly (steploop prints its wall time, which is not checked).
guest_timeout=$((${GUEST_TIMEOUT:-90} * 2))
printf '%s\n' 'stepcap' 'steploop 100000' > "$logs/stepcap.session"
guest stepcap --add "$build/perf/musl/stepcap" --add "$build/perf/musl/steploop" \
	--session "$logs/stepcap.session"
guest_timeout=${GUEST_TIMEOUT:-90}
expect_rc 0
expect_line '^stepcap: [1-9][0-9]* passed, 0 failed$' \
	"stepcap: the cap throttles stepping for a CPU-wide event, 0 lifts it"
check "the cap's log line comes once" \
	[ "$(grep -c 'pmu: vpmu: single-stepping for CPU-wide events took over' "$log")" = 1 ]
expect_line '^steploop: 1 passed, 0 failed$' \
	"steploop: 200,000 and 400,000 stepped instructions counted exactly"

# Throttling on an isolated CPU, whose tick stops while one task runs
# there: a throttled event asks for it back, or it stays throttled.
# Under -icount: its rates are samples per second of the task's time,
# which a busy host stretched (43 samples a second and 1 throttle at
# load 18, where 2000 and 50 are due).
guest throttle-isolated --icount 4 --smp 2 --cmdline isolcpus=1 --add "$build/perf/musl/throttle" --run 'throttle 1'
expect_rc 0
expect_line '^ok - cycles, period 20000: each THROTTLE followed by an UNTHROTTLE' "throttled cycles unthrottled on an isolated CPU"
expect_line '^throttle: [0-9]+ passed, 0 failed$' "throttle passes on an isolated CPU"

# Every other vpmu mode, one boot each (~15 s on an idle host). The perf
# subset counts exactly (no rates or timings, which a loaded host skews);
# the PMI's sample path runs in exact's instructions:u sampling.
mode_progs="exact rdpmc groups"
mode_session=$logs/modes.session
{
	echo 'selftest conformance'
	echo 'selftest vpmu_mode'
	echo 'selftest amd_'
	echo 'selftest lbr'
	for p in $mode_progs vendor; do printf '%s\necho "status %s $?"\n' "$p" "$p"; done
	echo 'stat -e cycles,instructions:u,branches:u -- true'
	echo 'cat /proc/interrupts'
	echo "cat $dev/format/event"
	echo "ls $dev/events"
	echo "ls $dev/caps"
	echo "cat $dev/caps/branches"
	echo 'list'
	echo 'echo end'
} > "$mode_session"
mode_adds=(--add "$build/abi/musl/vendor" --add "$build/perf/musl/lbr" --add "$build/musl/twofunc")
symfs=$logs/symfs
mkdir -p "$symfs/bin" && cp "$build/musl/twofunc" "$symfs/bin/twofunc"
for p in $mode_progs; do mode_adds+=(--add "$build/perf/musl/$p"); done
# The amd run boots QEMU's plain `-cpu max`, which says AuthenticAMD, and
# asks for an Intel mode: the model must refuse it and follow the vendor.
lbr_face() { case $1 in intel-v2) echo none ;; amd) echo LbrExtV2 ;; *) echo architectural ;; esac; }
for mode in intel-v2 intel-v5 hybrid amd; do
	session=$mode_session
	lbr_runs=0
	case $mode in intel-v5|amd) lbr_runs=1 ;; esac
	if [ "$lbr_runs" = 1 ]; then
		session=$logs/modes-$mode.session
		{
			cat "$mode_session"
			printf 'lbr\necho "status lbr $?"\n'
			echo 'record -b -e instructions:u -c 997 -o /tmp/br.data -- twofunc 1000'
			echo 'b64 /tmp/br.data'
		} > "$session"
	fi
	if [ "$mode" = amd ]; then
		st_guest "vpmu-$mode" --smp 2 --cpu max --cmdline "vpmu=intel" --session "$session" "${mode_adds[@]}"
		expect_line '^\[ *[0-9.]+\] pmu: vpmu: vpmu=intel refused: the CPU says AuthenticAMD' \
			"-cpu max (AuthenticAMD): vpmu=intel is refused"
	elif [ "$mode" = hybrid ]; then
		# One CPU, a Core one: cpu_core alone, which the plain events
		# of the subset reach (two types: the hybrid boot below).
		st_guest "vpmu-$mode" --smp 1 --cmdline "vpmu=$mode" --session "$mode_session" "${mode_adds[@]}"
	else
		st_guest "vpmu-$mode" --smp 2 --cmdline "vpmu=$mode" --session "$session" "${mode_adds[@]}"
	fi
	expect_rc 0
	expect_line "^\[ *[0-9.]+\] pmu: vpmu: mode $mode " "vpmu=$mode: the model runs in that mode"
	expect_no_line '^(not ok [0-9]+ |# [a-z0-9_]+: FAIL)' "vpmu=$mode: no self-test fails"
	check "vpmu=$mode: the conformance, mode, AMD and LBR self-tests ran" \
		[ "$(grep -c -E '^selftest: [0-9]+ passed, 0 failed$' "$log")" = 4 ]
	if [ "$(lbr_face "$mode")" = none ]; then
		expect_no_line '^\[ *[0-9.]+\] pmu: cpu: .*LBR' "vpmu=$mode: no LBR (a Core 2's is not modelled)"
		expect_line '^ok [0-9]+ intel_lbr_none$' "vpmu=$mode: branch stacks are EOPNOTSUPP"
		check "vpmu=$mode: caps/ has no branches (Linux shows it only with LBR)" \
			[ -z "$(after "ls $dev/caps" 2 | grep -x branches)" ]
	else
		expect_line "^\[ *[0-9.]+\] pmu: cpu: [0-9]+-deep $(lbr_face "$mode")" \
			"vpmu=$mode: the driver found $(lbr_face "$mode") LBR"
		[ "$mode" = hybrid ] || check "vpmu=$mode: caps/branches is the LBR depth ($(lbr_depth))" \
			[ "$(after "cat $dev/caps/branches" 1)" = "$(lbr_depth)" -a -n "$(lbr_depth)" ]
	fi
	if [ "$lbr_runs" = 1 ]; then
		expect_line '^status lbr 0$' "vpmu=$mode: tests/perf/lbr passes"
		expect_line '^ok - any: newest first in the loop.s order' "vpmu=$mode: lbr checked the stacks"
		expect_line '^# cond, hw_index: hw_idx in \[0, 0\]$' \
			"vpmu=$mode: hw_idx is 0 (Linux's for $(lbr_face "$mode") LBR)"
		# record -b read by the host's perf: twofunc's loop branches (a
		# short run: the last samples' stacks reach into its printf)
		data=$logs/br-$mode.data
		check "vpmu=$mode: record -b's file comes back" "$top/tools/b64-extract.sh" "$log" br.data "$data"
		perf script -i "$data" --symfs "$symfs" -F brstacksym 2>/dev/null |
			grep -oE '[^ ]+/[^ ]+/[-P]/-/-/0/' > "$logs/br-$mode.entries"
		all=$(grep -c . "$logs/br-$mode.entries")
		loops=$(grep -cE '(light|heavy|main)\+0x[0-9a-f]+/(light|heavy|main)\+0x[0-9a-f]+/' "$logs/br-$mode.entries")
		check "vpmu=$mode: perf script -F brstacksym: $loops of $all entries in twofunc's loops" \
			awk -v n="$loops" -v a="$all" 'BEGIN { exit !(a >= 200 && n >= 0.9 * a) }'
	fi
	for p in $mode_progs vendor; do
		expect_line "^status $p 0\$" "vpmu=$mode: $p passes"
	done
	if [ "$mode" = hybrid ]; then
		# no cpu/ here: the programs find cpu_core/ as Linux's perf does
		expect_line '^ok - C4H/01H conditional:u of dec;jnz: ' \
			"vpmu=hybrid: exact read cpu_core/caps/pmu_name (vpmu) and checked the model's umasks"
		expect_line '^ok - rdpmc=0: index 0, no cap_user_rdpmc$' \
			"vpmu=hybrid: rdpmc turned RDPMC off through cpu_core/rdpmc"
	fi
	expect_line '^ +[1-9][0-9]* +cycles( |$)' "vpmu=$mode: stat counts cycles"
	expect_line '^ +[1-9][0-9]* +branches:u( |$)' "vpmu=$mode: stat counts branches:u"
	expect_line '^PMI: .* [1-9][0-9]* +Performance monitoring interrupts$' \
		"vpmu=$mode: /proc/interrupts' PMI row counts the driver's PMIs"
	expect_no_line '^PANIC' "vpmu=$mode: no panic"
	[ "$mode" = amd ] || expect_no_line '\[Hardware cache event\]$' \
		"vpmu=$mode: list shows no cache events (architectural perfmon has no table)"
done
# The last run was amd: the AMD driver as Linux shows it.
expect_line '^  branch-loads +\[Hardware cache event\]$' \
	"vpmu=amd: list shows the cache event that opens (BPU reads: retired branches)"
expect_no_line '^  L1-dcache-loads +\[Hardware cache event\]$' \
	"vpmu=amd: list leaves out the cache events the model refuses, as perf list does"
expect_line '^\[ *[0-9.]+\] pmu: cpu: amd family [0-9a-f]+h model [0-9a-f]+h: vpmu, a software model of perfctr-core, 6 counters x 48 bits, perfmon-v2$' \
	"vpmu=amd: the AMD driver names family and model, perfctr-core and perfmon-v2"
expect_line '^ok - a cpu PMU without pmu_name \(AMD.s driver\) on an AMD CPU \(AuthenticAMD\)$' \
	"vpmu=amd: CPUID, /proc/cpuinfo and the cpu PMU all say AMD"
expect_line '^config:0-7,32-35$' "vpmu=amd: format/event is config:0-7,32-35"
check "vpmu=amd: events/ holds branch-instructions cpu-cycles instructions (what the model counts)" \
	[ "$(after "ls $dev/events" 4 | xargs)" = "branch-instructions cpu-cycles instructions baremon> ls $dev/caps" ]
check "vpmu=amd: caps/ holds branches and max_precise (no pmu_name)" \
	[ "$(after "ls $dev/caps" 2 | xargs)" = "branches max_precise" ]
expect_no_line '^ok [0-9]+ (amd_|vpmu_mode_amd).* # SKIP' "vpmu=amd: the AMD driver's and mode's self-tests ran"
expect_line '^\[ *[0-9.]+\] pmu: cpu: PMI delivered as an NMI$' "vpmu=amd: the PMI is an NMI by default"
expect_line '^NMI: .* [1-9][0-9]* +Non-maskable interrupts$' "vpmu=amd: the NMI row counts the PMIs"

# A hybrid CPU as Linux shows it (docs/pmu.md): CPU 0 Core, CPU 1 Atom;
# cpu_core (type 4) and cpu_atom (dynamic), each with its CPUs; events
# bound to their core type (tests/perf/hybrid); stat's per-PMU rows.
hdev=/sys/bus/event_source/devices
printf '%s\n' 'selftest vpmu_mode' 'hybrid' 'echo "status hybrid $?"' \
	"cat $hdev/cpu_core/cpus" "cat $hdev/cpu_atom/cpus" "ls $hdev/cpu_atom/events" \
	"cat $hdev/cpu_core/caps/pmu_name" "cat $hdev/cpu_atom/caps/pmu_name" \
	'stat -e cycles:u -- true' > "$logs/hybrid.session"
st_guest vpmu-hybrid-pmus --smp 2 --cmdline vpmu=hybrid --session "$logs/hybrid.session" \
	--add "$build/perf/musl/hybrid"
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: cpu_core: type 4, cpus 0: arch perfmon v5, 8 gp \+ 4 fixed counters$' \
	"hybrid: cpu_core is type 4 on CPU 0 with the Core counters"
expect_line '^\[ *[0-9.]+\] pmu: cpu_atom: type [0-9]+, cpus 1: arch perfmon v5, 6 gp \+ 3 fixed counters$' \
	"hybrid: cpu_atom has a dynamic type on CPU 1 with the Atom counters"
expect_line '^selftest: [0-9]+ passed, 0 failed$' "hybrid: the mode's self-test passes on two CPUs"
expect_line '^hybrid: [1-9][0-9]* passed, 0 failed$' "hybrid: tests/perf/hybrid passes (not skipped)"
expect_line '^status hybrid 0$' "hybrid: tests/perf/hybrid exits 0"
check "hybrid: cpu_core/cpus is 0, cpu_atom/cpus is 1" \
	[ "$(after "cat $hdev/cpu_core/cpus" 1)/$(after "cat $hdev/cpu_atom/cpus" 1)" = 0/1 ]
check "hybrid: cpu_core/caps/pmu_name and cpu_atom/caps/pmu_name are both vpmu (one name, as Linux)" \
	[ "$(after "cat $hdev/cpu_core/caps/pmu_name" 1)/$(after "cat $hdev/cpu_atom/caps/pmu_name" 1)" = vpmu/vpmu ]
check "hybrid: cpu_atom/events has no slots (3 fixed counters)" \
	[ -z "$(after "ls $hdev/cpu_atom/events" 6 | grep -x slots)" ]
expect_line '^ +([0-9]+|<not counted>) +cpu_core/cycles/u( |$)' "hybrid: stat has a cpu_core/cycles/u row"
expect_line '^ +([0-9]+|<not counted>) +cpu_atom/cycles/u( |$)' "hybrid: stat has a cpu_atom/cycles/u row"
expect_line '^ +[1-9][0-9]* +cpu_(core|atom)/cycles/u( |$)' "hybrid: one of them counted true's cycles"
expect_no_line '^PANIC' "hybrid: no panic"

# The AMD driver's maskable PMI, kept for comparison: the same
# self-tests (the late-PMI window through VEC_PMI) and sampling, on the
# CPU run-qemu.sh shows for vpmu=amd (Zen 4, family 19h: the driver's
# Zen tables), where the run above had -cpu max's family fh.
printf '%s\n' 'selftest amd_' 'exact' 'echo "status exact $?"' 'cat /proc/interrupts' \
	> "$logs/amd-irq.session"
st_guest vpmu-amd-irq --smp 2 --cmdline "vpmu=amd pmi=irq" --session "$logs/amd-irq.session" \
	--add "$build/perf/musl/exact"
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: cpu: amd family 19h model 11h: vpmu, ' \
	"vpmu=amd pmi=irq: the AMD driver on the Zen 4 (family 19h model 11h) run-qemu.sh shows"
expect_line '^\[ *[0-9.]+\] pmu: cpu: PMI delivered as a maskable interrupt \(pmi=irq\)$' \
	"vpmu=amd pmi=irq: the PMI is the maskable interrupt"
expect_line '^selftest: [0-9]+ passed, 0 failed$' "vpmu=amd pmi=irq: the AMD self-tests pass"
expect_no_line '^ok [0-9]+ amd_.* # SKIP' "vpmu=amd pmi=irq: no AMD self-test skipped"
expect_line '^status exact 0$' "vpmu=amd pmi=irq: exact passes"
expect_line '^PMI: .* [1-9][0-9]* +Performance monitoring interrupts$' \
	"vpmu=amd pmi=irq: /proc/interrupts' PMI row counts them"
expect_no_line '^PANIC' "vpmu=amd pmi=irq: no panic"

finish
