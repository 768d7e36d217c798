#!/usr/bin/env bash
# runner.sh: run-qemu.sh itself: --timeout kills a guest that runs too long
# (124), and bad usage is refused with a message (127) before any boot.
. "$(dirname "$0")/lib.sh"

# --timeout counts wall time only: a day-long sleep is cut at the limit.
# secs includes run-qemu's set-up and the boot, which a busy host
# stretches (the guest may still be booting at the limit there).
limit=20
echo "sleep 100000" > "$logs/sleep.session"
guest timeout --session "$logs/sleep.session" --timeout $limit
expect_rc 124
expect_err "^run-qemu: timeout after ${limit}s$" "run-qemu reports the timeout"
check "stopped at the limit, not at the end of the sleep (took ${secs}s)" \
	test "$secs" -ge $limit -a "$secs" -le $((limit * 4))

# --cpu-timeout (what every guest of the suites gets, lib.sh): a guest
# that keeps QEMU busy (noise spins reading the TSC) is stopped once it
# has had the limit in both wall and QEMU CPU time, enough to boot and
# start the session however busy the host is; never past 8 times the
# limit of wall time.
cpu_limit=30
echo "noise -c 0 -s 100000" > "$logs/spin.session"
guest cpu-timeout --session "$logs/spin.session" --cpu-timeout $cpu_limit
expect_rc 124
expect_err "^run-qemu: timeout after ${cpu_limit}s of QEMU CPU time \\([0-9]+s wall, [0-9]+s CPU" \
	"run-qemu reports the CPU-time timeout"
expect_line '^baremon> noise -c 0 -s 100000$' "the session was spinning"
qemu_wall=$(sed -n 's/.*(\([0-9]*\)s wall.*/\1/p' "$err")
check "stopped after the limit, within 8 times it (QEMU ran ${qemu_wall}s)" \
	test "${qemu_wall:-0}" -ge $cpu_limit -a "${qemu_wall:-0}" -le $((cpu_limit * 8 + 2))

guest bad-cpu-timeout --cpu-timeout later
expect_rc 127
expect_err '^run-qemu: --cpu-timeout ' "explains --cpu-timeout"

guest bad-option --no-such-option
expect_rc 127
expect_err "^run-qemu: unknown option '--no-such-option'" "names the bad option"

guest bad-smp --smp zero
expect_rc 127
expect_err '^run-qemu: --smp ' "explains --smp"

guest bad-timeout --timeout soon
expect_rc 127
expect_err '^run-qemu: --timeout ' "explains --timeout"

guest no-session --session "$logs/no-such-file"
expect_rc 127
expect_err "^run-qemu: session file .* not found" "names the missing session file"

# A session can come from a pipe (process substitution).
guest piped-session --session <(printf 'echo piped\nexit 5\n')
expect_rc 5
expect_line '^piped$' "the piped session ran"

finish
