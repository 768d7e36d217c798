#!/usr/bin/env bash
# boot.sh: the kernel boots on 1 and 2 CPUs, finds them all, reports its
# init time and exits 0.
. "$(dirname "$0")/lib.sh"

for n in 1 2; do
	guest boot-smp$n --smp $n --run cpus
	expect_rc 0
	expect_line '^baremon-loader: kernel .* entry [0-9A-Fa-f]+' "loader hand-off line"
	expect_line '^baremon [^ ]+ booting \(boot-info v1 from baremon-loader 1\)$' "banner"
	expect_line '^\[ *[0-9]+\.[0-9]{6}\] init: done in [0-9]+ us' "init time line"
	expect_line '^baremon> cpus$' "prompt echo of the command"
	expect_line "^cpus: $n in MADT, apic (xapic|x2apic)\$" "cpus reports $n CPU(s)"
	check "cpus lists $n apic id(s)" [ "$(count '^  cpu[0-9]+ apic-id ')" = $n ]
	expect_no_line '^PANIC' "no panic"
	expect_line '^baremon: exit status 0$' "exit status line"
done

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
guest no-hpet --machine q35,hpet=off --run cpus
expect_rc 0
expect_line '^tsc: [0-9]+ Hz from acpi pm timer$' "PM timer used when there is no HPET"

finish
