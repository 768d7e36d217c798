#!/usr/bin/env bash
# boot.sh: the kernel boots on 1 and 2 CPUs, finds them all, reports its
# init time and exits 0; on 2 packages x 2 cores x 2 threads, 2 NUMA
# nodes and 8 GiB it reports the topology, the nodes and the memory, and
# names the CPUs a limit kept out and places per-CPU memory by node;
# unknown command-line words get a line; each TSC reference works, and
# the PIT when there is neither HPET nor PM timer.
. "$(dirname "$0")/lib.sh"

for n in 1 2; do
	guest boot-smp$n --smp $n --run cpus
	expect_rc 0
	expect_line '^baremon-loader: kernel .* entry [0-9A-Fa-f]+' "loader hand-off line"
	expect_line '^baremon [^ ]+ booting \(boot-info v[0-9]+ from baremon-loader 1\)$' "banner"
	expect_line '^\[ *[0-9]+\.[0-9]{6}\] init: done in [0-9]+ us' "init time line"
	expect_line '^baremon> cpus$' "prompt echo of the command"
	expect_line "^cpus: $n in MADT, apic (xapic|x2apic)\$" "cpus reports $n CPU(s)"
	check "cpus lists $n apic id(s)" [ "$(count '^  cpu[0-9]+ apic-id ')" = $n ]
	expect_no_line '^PANIC' "no panic"
	expect_line '^baremon: exit status 0$' "exit status line"
done

# 2 packages x 2 cores x 2 threads, one NUMA node each, 8 GiB; maxcpus=6
# leaves two CPUs out, and both the log and `cpus` say so. APIC IDs are
# [package|core|thread]. Each AP's stacks and per-CPU table entries lie
# in its node's memory (the self-test).
cat > "$logs/topology.session" <<'EOS'
cpus
selftest percpu_node_placement
echo =cpu5-package
cat /sys/devices/system/cpu/cpu5/topology/physical_package_id
echo =cpu5-core
cat /sys/devices/system/cpu/cpu5/topology/core_id
echo =cpu5-threads
cat /sys/devices/system/cpu/cpu5/topology/thread_siblings_list
echo =cpu0-package-cpus
cat /sys/devices/system/cpu/cpu0/topology/package_cpus_list
cat /proc/cpuinfo
EOS
st_guest topology --smp 8,sockets=2,cores=2,threads=2 --numa 2 --mem 8G \
	--cmdline 'maxcpus=6 no_such_option=1' --session "$logs/topology.session"
expect_rc 0
expect_line '^\[ *[0-9.]+\] smp: 6 cpus online of 8 in the MADT \(0 failed, 2 beyond the limit of 6, 0 disabled\)' \
	"the log counts the CPUs left out"
expect_line '^  cpu5 apic-id 5 node 1 package 1 core 0 thread 1$' "cpus shows node, package, core, thread"
expect_line '^\[ *[0-9.]+\] numa: node 1 \(domain 1\): 4096 MiB in 1 range, 4 cpus$' "the SRAT's second node"
expect_line '^\[ *[0-9.]+\] pmm: (8[0-9]{3}) MiB usable' "8 GiB of RAM found"
expect_line '^  --- apic-id 7: beyond the cpu limit' "cpus names a CPU beyond maxcpus"
expect_line '^\[ *[0-9.]+\] percpu: [0-9]+ tables for 6 cpus: [0-9]+ KiB$' \
	"per-CPU tables sized for the CPUs numbered, not MAX_CPUS"
expect_line '^ok [0-9]+ percpu_node_placement$' "per-CPU memory on its CPU's node"
check "cpus lists 6 online CPUs" [ "$(count '^  cpu[0-9]+ apic-id ')" = 6 ]
# after MARK: the first output line after the session's "echo =MARK"
# (the prompt's echo of the next command skipped).
after() { awk -v m="=$1" 'hit && !/^baremon> / { print; exit } $0 == m { hit = 1 }' "$log"; }
check "sysfs physical_package_id" [ "$(after cpu5-package)" = 1 ]
check "sysfs core_id" [ "$(after cpu5-core)" = 0 ]
check "sysfs thread_siblings_list" [ "$(after cpu5-threads)" = 4-5 ]
check "sysfs package_cpus_list" [ "$(after cpu0-package-cpus)" = 0-3 ]
check "/proc/cpuinfo has one block per online CPU" [ "$(count '^processor[[:space:]]+: ')" = 6 ]
expect_line '^physical id[[:space:]]+: 1$' "/proc/cpuinfo names package 1"
expect_line "^cmdline: unknown option 'no_such_option' ignored" "an unknown option is named"
expect_no_line "unknown option 'maxcpus'" "a known option is not"

# Without QEMU's exit port the kernel powers off through ACPI S5; QEMU
# then exits 0 and run-qemu.sh takes the status from the console.
guest poweroff-s5 --cmdline qemu_exit=0 --run 'exit 3'
expect_rc 3
expect_line '^baremon: exit status 3$' "exit status line"
expect_no_line 'power-off failed' "ACPI S5 powered the machine off"

# Each TSC reference gives a frequency (tsc_ref=); without an HPET the
# ACPI PM timer is the automatic choice.
for ref in "pmtimer:acpi pm timer" "pit:pit"; do
	guest "tsc-${ref%%:*}" --cmdline "tsc_ref=${ref%%:*}" --run cpus
	expect_rc 0
	expect_line "^tsc: [0-9]+ Hz from ${ref#*:}\$" "calibrated against ${ref#*:}"
done
# QEMU's TCG CPUs have no leaf 15H/16H: tsc_ref=cpuid is refused with
# a line, and the automatic order goes on (no HPET: the PM timer).
guest no-hpet --machine q35,hpet=off --cmdline tsc_ref=cpuid --run cpus
expect_rc 0
expect_line '^\[ *[0-9.]+\] tsc: tsc_ref=cpuid is not available here; choosing another$' \
	"no CPUID frequency leaves: said so"
expect_line '^tsc: [0-9]+ Hz from acpi pm timer$' "PM timer used when there is no HPET"

# Neither HPET nor PM timer (nopmtimer hides q35's, which QEMU cannot
# remove): the PIT calibrates the TSC. Under TCG the guest's TSC is the
# host's, so the result must be near the host's clock.
guest no-pmtimer --machine q35,hpet=off --cmdline nopmtimer --run cpus
expect_rc 0
expect_line '^\[ *[0-9.]+\] acpi: pm timer 0x[0-9a-f]+ ignored \(nopmtimer\)$' "the PM timer is ignored"
expect_line '^\[ *[0-9.]+\] acpi: pm timer 0 \(' "and reported absent"
expect_line '^tsc: [0-9]+ Hz from pit$' "the PIT used without HPET and PM timer"
mhz=$(sed -n 's/^tsc: \([0-9]*\)[0-9]\{6\} Hz from pit$/\1/p' "$log" | head -n 1)
host_mhz=$(awk -F: '/^cpu MHz/ { printf "%d", $2; exit }' /proc/cpuinfo)
in_range() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
if [ -n "$host_mhz" ] && [ "$host_mhz" -gt 0 ]; then
	check "PIT-calibrated TSC ${mhz:-?} MHz within 10% of the host's $host_mhz MHz" \
		in_range "$mhz" $((host_mhz * 9 / 10)) $((host_mhz * 11 / 10))
else
	check "PIT-calibrated TSC ${mhz:-?} MHz between 500 and 10000" in_range "$mhz" 500 10000
fi

finish
