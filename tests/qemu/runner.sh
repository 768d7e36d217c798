#!/usr/bin/env bash
# runner.sh: run-qemu.sh itself: --timeout kills a guest that runs too long
# (124), and bad usage is refused with a message (127) before any boot.
. "$(dirname "$0")/lib.sh"

# Long enough for the session to start sleeping on a busy machine (OVMF
# alone can take 10 s there), short enough to be cheap.
limit=30
echo "sleep 100000" > "$logs/sleep.session"
guest timeout --session "$logs/sleep.session" --timeout $limit
expect_rc 124
expect_err "^run-qemu: timeout after ${limit}s" "run-qemu reports the timeout"
expect_line '^baremon> sleep 100000$' "the session was sleeping"
check "stopped within 3s of the limit (took ${secs}s)" [ "$secs" -le $((limit + 3)) ]

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
