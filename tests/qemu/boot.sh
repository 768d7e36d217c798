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

finish
