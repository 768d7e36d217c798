#!/usr/bin/env bash
# pmu.sh: the "cpu" PMU under QEMU TCG, where the software model (vpmu)
# stands in for the PMU QEMU lacks: its boot line, its sysfs directory
# as Linux lays it out, tests/musl/pmu_cycles (cycles in all modes and
# user-only around real work, Linux's errnos) on 1 and 2 CPUs, stat
# counting cycles, instructions:u and branches:u (single-step), and under
# -icount an exact user-mode cycle count and instructions in both modes.
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
	echo 'pmu_cycles'
	echo 'echo "status $?"'
	echo 'stat -e cycles,instructions -- pmu_cycles'
	echo 'stat -e cycles,instructions:u,branches:u -- true'
} > "$session"

# after COMMAND N: the N lines the session command COMMAND printed.
after() { grep -A"$2" -x -F "baremon> $1" "$log" | sed -n "2,$(($2 + 1))p"; }

guest sysfs --smp 2 --session "$session" --add "$build/musl/pmu_cycles"
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
expect_line '^pmu_cycles: [0-9]+ passed, 0 failed$' "pmu_cycles passes"
expect_line '^status 0$' "pmu_cycles exits 0"
expect_no_line '^not ok' "no pmu_cycles check failed"
expect_line '^ +[1-9][0-9]* +cycles( |$)' "stat counts cycles"
expect_line '^ +<not supported> +instructions( |$)' \
	"stat: kernel-mode instructions not supported without the instruction clock"
expect_line '^ +[1-9][0-9]* +instructions:u( |$)' "stat: instructions:u counted (single-step)"
expect_line '^ +[1-9][0-9]* +branches:u( |$)' "stat: branches:u counted (single-step)"
expect_no_line '^PANIC' "no panic"

guest smp1 --smp 1 --add "$build/musl/pmu_cycles" --run pmu_cycles
expect_rc 0
expect_line '^pmu_cycles: [0-9]+ passed, 0 failed$' "pmu_cycles passes on 1 CPU"

# -icount shift=4: the TSC, hence the model's cycles, is 16 x instructions.
guest icount --icount 4 --add "$build/musl/pmu_cycles" --run 'pmu_cycles --exact 16'
expect_rc 0
expect_line '^ok - user-only cycles = the loop' "user-only cycles are the loop's instructions, exactly"

# The instruction clock: instructions in both modes, exact in user mode.
# Stepping branches:u costs ~2,000 kernel instructions each: room for it.
guest_timeout=$((${GUEST_TIMEOUT:-90} * 2))
printf '%s\n' 'stat -e cycles,instructions -- exact --icount 4' 'rdpmc --icount 4' \
	> "$logs/icount-insns.session"
guest icount-insns --icount 4 --add "$build/perf/musl/exact" --add "$build/perf/musl/rdpmc" \
	--session "$logs/icount-insns.session"
guest_timeout=${GUEST_TIMEOUT:-90}
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: vpmu: instruction clock: TSC = 2\^4 x instructions' \
	"the kernel checked icount=4 and uses the instruction clock"
expect_line '^ +[1-9][0-9]* +instructions( |$)' "stat counts instructions (user and kernel) under -icount"
expect_line '^exact: [0-9]+ passed, 0 failed$' "exact passes under -icount"
expect_line '^rdpmc: [0-9]+ passed, 0 failed$' "rdpmc (self-monitoring, RDPMC emulated) passes under -icount"

# Throttling on an isolated CPU, whose tick stops while one task runs
# there: a throttled event asks for it back, or it stays throttled.
guest throttle-isolated --smp 2 --cmdline isolcpus=1 --add "$build/perf/musl/throttle" --run 'throttle 1'
expect_rc 0
expect_line '^ok - cycles, period 20000: each THROTTLE followed by an UNTHROTTLE' "throttled cycles unthrottled on an isolated CPU"
expect_line '^throttle: [0-9]+ passed, 0 failed$' "throttle passes on an isolated CPU"

finish
