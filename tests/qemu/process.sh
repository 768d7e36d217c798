#!/usr/bin/env bash
# process.sh: unmodified static musl programs (tests/musl/) on baremon:
# arguments and exit status, heavy stdio, malloc, pthreads, fork+exec
# chains, signals; programs that crash die of the right signal and the
# next command still runs; an isolated CPU takes no interrupts.
. "$(dirname "$0")/lib.sh"

musl=$build/musl
# malloc_stress alone took 19 s of a session's 90 on a machine at load
# 19: room for a busy host, not a limit on a quiet one.
guest_timeout=${GUEST_TIMEOUT:-240}
adds=()
for p in hello printf_heavy malloc_stress threads forkexec signals crash isolated; do
	adds+=(--add "$musl/$p")
done

# The same program on the host gives the reference output.
printf_ref=$("$musl/printf_heavy" | tail -n 1)

session=$logs/process.session
cat > "$session" <<'SESSION'
hello one two
echo "status hello $?"
printf_heavy
malloc_stress
echo "status malloc $?"
threads
echo "status threads $?"
threads exec 100
echo "status threads-exec $?"
forkexec 4
echo "status forkexec $?"
signals
echo "status signals $?"
crash null
echo "status crash-null $?"
crash privileged
echo "status crash-privileged $?"
crash divide
echo "status crash-divide $?"
crash abort
echo "status crash-abort $?"
echo still running
SESSION

for smp in 1 4; do
	guest process-smp$smp --smp "$smp" --session "$session" "${adds[@]}"
	expect_rc 0
	expect_line '^hello from hello with 2 argument\(s\)$' "argv reaches main"
	expect_line '^argv\[2\] = two$' "second argument"
	expect_line '^status hello 3$' "exit status of main's return"
	expect_line "^${printf_ref}\$" "printf output matches the host's ($printf_ref)"
	expect_line '^malloc stress ok$' "malloc stress"
	expect_line '^counter 80000 \(expected 80000\)$' "pthreads with mutex and condvar"
	expect_line '^status threads 0$' "threads exit 0"
	expect_line '^exec from 100 threads: ok$' "exec kills all 100 other threads"
	expect_line '^status threads-exec 0$' "exec from many threads exits 0"
	expect_line '^depth 4: child [0-9]+ exited 7$' "fork+exec+wait chain of depth 4"
	expect_line '^status forkexec 7$' "status passed up the chain"
	expect_line '^usr1 handled: 10, si_code 0' "SA_SIGINFO handler"
	expect_line '^blocked: 0, after unblock: 10$' "blocked signal delivered on unblock"
	expect_line '^segv recovered: 1$' "siglongjmp out of a SIGSEGV handler"
	expect_line '^status signals 0$' "signals exit 0"
	expect_line '^sh: crash: terminated by signal 11 \(SIGSEGV\)' "NULL dereference: SIGSEGV"
	expect_line '^status crash-null 139$' "status 128+11"
	expect_line '^status crash-privileged 139$' "privileged instruction: SIGSEGV"
	expect_line '^sh: crash: terminated by signal 8 \(SIGFPE\)' "divide by zero: SIGFPE"
	expect_line '^status crash-divide 136$' "status 128+8"
	expect_line '^status crash-abort 134$' "abort: SIGABRT"
	expect_line 'crash\[[0-9]+\]: killed by SIGSEGV at rip 0x[0-9a-f]+' "kernel reports the core-dumping signal"
	expect_line '^still running$' "the next command still runs"
	expect_no_line '^PANIC' "no kernel panic"
done

# isolcpus: one busy task on an isolated CPU takes no interrupts at all;
# the same program on a CPU that is not isolated sees the timer.
guest isolated --smp 2 --cmdline isolcpus=1 --run 'isolated 1' "${adds[@]}"
expect_rc 0
expect_line '^cpu1: 0 interrupts during 1 s of computing$' "isolated cpu1: 0 interrupts"
guest not-isolated --smp 2 --run 'isolated 1' "${adds[@]}"
expect_rc 1
expect_line '^cpu1: [1-9][0-9]* interrupts during 1 s of computing$' "cpu1 not isolated: timer ticks"

finish
