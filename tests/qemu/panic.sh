#!/usr/bin/env bash
# panic.sh: injected faults give a complete, symbolised panic report and
# run-qemu exit status 125. The page fault gets the full check; the other
# kinds check the report's key lines. A guest whose fault does not fire
# runs `true` and exits 0 (instead of waiting at the prompt).
. "$(dirname "$0")/lib.sh"

hex='[0-9a-f]{16}'
frame='^  #[0-9]+ 0x[0-9a-f]+ '

# expect_report VECTOR-LINE FUNCTION...: the common part of every report.
expect_report() {
	local vector=$1
	shift
	expect_rc 125
	expect_err '^run-qemu: kernel panic: ' "run-qemu reports the panic"
	expect_line '^PANIC: .+' "PANIC line"
	[ -z "$vector" ] || expect_line "^  $vector" "vector: ${vector//[\\$]/}"
	expect_line '^backtrace:$' "backtrace header"
	for fn in "$@"; do
		expect_line "$frame$fn\+0x[0-9a-f]+\$" "backtrace names $fn"
	done
	expect_line '^end of panic report$' "end of panic report"
	expect_line '^baremon: exit status 125$' "exit status line"
}

# expect_registers NAME...: each register is printed as "NAME <16 hex>".
expect_registers() {
	local missing=""
	for r in "$@"; do
		has "^ (.* )?$r +$hex( |\$)" || missing="$missing $r"
	done
	check "registers printed: $*${missing:+ (missing:$missing)}" [ -z "$missing" ]
}

guest pagefault --smp 1 --run true --cmdline fault=pagefault
expect_report 'vector 14 page fault \(#PF\), error code 0x2$' \
	fault_page fault_inject kmain
expect_line '^PANIC: .*page fault' "PANIC line names the page fault"
expect_line '^  cpu 0$' "cpu number"
expect_line '^  page fault: not present, write, kernel$' "error code decoded"
expect_registers rip rsp rax rbx rcx rdx rsi rdi rbp \
	r8 r9 r10 r11 r12 r13 r14 r15 cr0 cr2 cr3 cr4
expect_line " cr2 0{15}8( |\$)" "cr2 is the faulting address 0x8"
rip=$(grep -Eo "^  rip $hex" "$log" | cut -c7-)
check "backtrace #0 is rip ($rip)" has "^  #0 0x$rip fault_page\+"

guest gp --smp 1 --run true --cmdline fault=gp
expect_report 'vector 13 general protection \(#GP\)' fault_gp kmain

guest ud --smp 1 --run true --cmdline fault=ud
expect_report 'vector 6 invalid opcode \(#UD\)' fault_ud kmain

guest divide --smp 1 --run true --cmdline fault=divide
expect_report 'vector 0 divide error \(#DE\)' fault_divide kmain

guest panic --smp 1 --run true --cmdline fault=panic
expect_report '' fault_inject kmain
expect_line '^PANIC: injected by request' "PANIC line gives the reason"

# Kernel stack guard pages (mm/kstack.h): recursion on the boot stack,
# then on a task's kernel stack (on CPU 1 of 2), runs into the guard
# page; the #DF on its IST stack reports the overflow, not a silent
# corruption of the memory below.
guest stack --smp 1 --run true --cmdline fault=stack
expect_report 'vector 8 double fault \(#DF\)' fault_stack_recurse
expect_line '^PANIC: kernel stack overflow: swapper\[0\] on cpu 0 ran into the guard page at 0x[0-9a-f]+ \(kernel stack of the running task\)$' \
	"overflow names the task, CPU and guard page"
guard=$(grep -Eo 'guard page at 0x[0-9a-f]+' "$log" | head -1 | sed 's/.*0x//')
cr2=$(grep -Eo " cr2 $hex" "$log" | head -1 | sed 's/.* 0*//')
check "cr2 ($cr2) is inside the guard page ($guard)" test -n "$guard" -a "${cr2%???}000" = "$guard"

guest stack-task --smp 2 --run 'fault stack'
expect_report 'vector 8 double fault \(#DF\)' fault_stack_recurse
expect_line '^PANIC: kernel stack overflow: fault\[[0-9]+\] on cpu [01] ran into the guard page at 0xffff8[0-9a-f]+000 \(kernel stack of the running task\)$' \
	"a task's overflow names /bin/fault and its guard page"

# No silent stop (issue 32). A page fault whose frame cannot be pushed
# (the stack pointer on an unmapped page) becomes a double fault, taken
# on its own IST stack: a report with the broken rsp.
guest doublefault --smp 1 --run true --cmdline fault=doublefault
expect_report 'vector 8 double fault \(#DF\)' fault_double
expect_line '^  rsp 0{12}1000 ' "the report shows the broken stack pointer"

# No IDT: the CPU shuts down. The kernel's last word is the injection
# line; run-qemu names the triple fault (QEMU's -d cpu_reset log).
guest triplefault --smp 2 --run true --cmdline fault=triplefault
expect_rc 125
expect_err '^run-qemu: kernel crash: triple fault' "run-qemu reports the triple fault"
expect_line "fault: injecting 'triplefault'" "the kernel's log line before it"

# Each NMI sends the next: the interrupted code never runs, and the
# storm detector (core/arch/nmi.c) panics with a report. Under --icount
# (found after 11,453 NMIs): without it a loaded host stretches gaps
# between NMIs, each of which halves the count (8.3 M NMIs at load 80).
guest_timeout=${GUEST_TIMEOUT:-240}
guest nmistorm --smp 2 --icount 4 --run true --cmdline fault=nmistorm
guest_timeout=${GUEST_TIMEOUT:-90}
expect_report '' 
expect_line '^PANIC: NMI storm on cpu 0: 10000 NMIs too close together left the interrupted code [0-9]+ TSC cycles against [0-9]+ in their handlers' \
	"the storm is named, with its figures"

# /bin/fault panics the same way from a user program: the backtrace runs
# through its write(2) to /proc/baremon/fault.
guest user-fault --smp 2 --run 'fault ud'
expect_report 'vector 6 invalid opcode \(#UD\)' fault_ud fault_write sys_write syscall_dispatch

finish
