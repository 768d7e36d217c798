#!/usr/bin/env bash
# nmi.sh: the PMI as an NMI (the default) against the maskable one
# (pmi=irq), on the software model: tests/musl/pmi_kernel samples a
# getppid loop with cycles, kernel included, and checks that with the
# NMI some samples land where interrupts are off and with pmi=irq none
# does; /proc/interrupts has Linux's NMI and PMI rows, counting.
. "$(dirname "$0")/lib.sh"

session=$logs/nmi.session
{
	echo 'pmi_kernel nmi'
	echo 'echo "status $?"'
	echo 'cat /proc/interrupts'
} > "$session"

guest nmi --smp 2 --session "$session" --add "$build/musl/pmi_kernel"
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: cpu: PMI delivered as an NMI$' "boot log: the PMI is an NMI by default"
expect_line '^pmi_kernel: [0-9]+ passed, 0 failed$' "pmi=nmi: interrupts-off kernel code is sampled"
expect_line '^status 0$' "pmi_kernel nmi exits 0"
expect_line '^NMI: +[0-9]* *[1-9][0-9]* .*Non-maskable interrupts$|^NMI: +[1-9][0-9]* .*Non-maskable interrupts$' \
	"/proc/interrupts: the NMI row counts the PMIs"
expect_line '^PMI: +[0-9]* *[1-9][0-9]* .*Performance monitoring interrupts$|^PMI: +[1-9][0-9]* .*Performance monitoring interrupts$' \
	"/proc/interrupts: the PMI row counts them"
expect_no_line '^PANIC' "no panic"

guest irq --smp 2 --cmdline 'pmi=irq' --add "$build/musl/pmi_kernel" --run 'pmi_kernel irq'
expect_rc 0
expect_line '^\[ *[0-9.]+\] pmu: cpu: PMI delivered as a maskable interrupt \(pmi=irq\)$' "boot log: pmi=irq"
expect_line '^pmi_kernel: [0-9]+ passed, 0 failed$' "pmi=irq: no sample where interrupts are off"
expect_no_line '^PANIC' "no panic"

finish
