#!/usr/bin/env bash
# x2apic.sh: under QEMU 10 (tools/qemu-new.sh: bookworm-backports; QEMU
# 7.2 has no x2APIC under TCG) the kernel runs in x2APIC mode with a CPU
# whose APIC ID is 256: the MADT's x2APIC entry names it, `cpus`,
# /proc/cpuinfo and sysfs show it, a program moves itself there (the
# scheduler's IPI to APIC ID 256) and counts there with per-CPU events
# opened from another CPU (the pmu's cross-CPU call). `nox2apic` is
# refused while that CPU exists (same guest), and gives xAPIC mode on a
# machine without one (a second guest). Skipped, with the reason, only when QEMU 10 cannot be
# downloaded and $CI is unset.
. "$(dirname "$0")/lib.sh"

if ! qemu10=$("$top/tools/qemu-new.sh" 2>"$logs/qemu-new.err"); then
	name=x2apic
	if [ -n "${CI:-}" ]; then
		not_ok "tools/qemu-new.sh failed: $(tail -n 1 "$logs/qemu-new.err")"
	else
		ok "skipped: no QEMU 10 ($(tail -n 1 "$logs/qemu-new.err"))"
	fi
	finish
fi

# Two sockets of 256 cores: APIC IDs are [socket:1][core:8], so the CPU
# cold-plugged at socket 1, core 0 has APIC ID 256.
# The cold-plugged CPU's type must be the machine's: -cpu max (the
# default CPU model of a vpmu mode is another, tcg_cpu_model in run-qemu.sh).
high_cpu=(--qemu "$qemu10" --cpu max,vendor=GenuineIntel --smp 2,sockets=2,cores=256,maxcpus=512
	--qemu-arg -device
	--qemu-arg max-x86_64-cpu,vendor=GenuineIntel,socket-id=1,core-id=0,thread-id=0)

cat > "$logs/x2apic.session" <<'EOS'
cpus
echo =cpu2-package
cat /sys/devices/system/cpu/cpu2/topology/physical_package_id
cat /proc/cpuinfo
pinhigh 2
EOS
# nox2apic cannot hold with APIC ID 256 present: refused, with a line.
guest x2apic "${high_cpu[@]}" --cmdline nox2apic --add "$build/musl/pinhigh" \
	--session "$logs/x2apic.session"
expect_rc 0
expect_line '^\[ *[0-9.]+\] apic: nox2apic ignored: apic id 256 needs x2apic$' "nox2apic refused, said why"
expect_line '^\[ *[0-9.]+\] apic: x2apic mode, boot cpu apic id 0' "x2APIC mode"
expect_line '^\[ *[0-9.]+\] acpi: highest apic id 256, [1-9][0-9]* local apic nmi entr' \
	"the MADT's x2APIC entry and its NMI entries"
expect_line '^\[ *[0-9.]+\] smp: 3 cpus online of 3 in the MADT \(0 failed' "all three CPUs start"
expect_line '^\[ *[0-9.]+\] smp: online: cpus 0-2$' "the log names the CPUs online"
expect_line '^cpus: 3 in MADT, apic x2apic$' "cpus: x2apic"
expect_line '^  cpu2 apic-id 256 node 0 package 1 core 0 thread 0$' "cpus: APIC ID 256 in package 1"
expect_line '^apicid[[:space:]]+: 256$' "/proc/cpuinfo: apicid 256"
after() { awk -v m="=$1" 'hit && !/^baremon> / { print; exit } $0 == m { hit = 1 }' "$log"; }
check "sysfs: cpu2 in package 1" [ "$(after cpu2-package)" = 1 ]
expect_line '^pinhigh: cpu 2, cpu-clock [0-9]+ ns, cycles [1-9][0-9]*$' "pinhigh counted on cpu 2"
expect_line '^[1-9][0-9]* passed, 0 failed$' "pinhigh: every check passed"
expect_no_line '^PANIC' "no panic"

# Without such a CPU, nox2apic gives xAPIC on the same QEMU.
guest nox2apic --qemu "$qemu10" --smp 2 --cmdline nox2apic --run cpus
expect_rc 0
expect_line '^cpus: 2 in MADT, apic xapic$' "nox2apic: xapic mode"
expect_line '^\[ *[0-9.]+\] smp: 2 cpus online of 2' "both CPUs start in xAPIC mode"
finish
