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

# /bin/fault panics the same way from a user program: the backtrace runs
# through its write(2) to /proc/baremon/fault.
guest user-fault --smp 2 --run 'fault ud'
expect_report 'vector 6 invalid opcode \(#UD\)' fault_ud fault_write sys_write syscall_dispatch

finish
