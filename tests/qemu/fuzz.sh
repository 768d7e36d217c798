#!/usr/bin/env bash
# fuzz.sh: the system-call fuzzer (tests/fuzz/fuzz.c) on baremon with 2
# CPUs, a short budget per run: two seeds, two workers each. It must
# find no errno outside Linux's, no worker that stops making calls for
# 20 s (the guest-side watchdog), and no panic. FUZZ_SEED picks the
# first seed (default: fixed, so a failure replays); FUZZ_CALLS the
# calls per worker.
. "$(dirname "$0")/lib.sh"

seed=${FUZZ_SEED:-1}
calls=${FUZZ_CALLS:-1500}
guest_timeout=${GUEST_TIMEOUT:-180}
for s in "$seed" $((seed + 100)); do
	guest "fuzz-seed$s" --smp 2 --add "$build/fuzz/fuzz" --run "fuzz $s $calls 2 20"
	expect_rc 0
	expect_line '^fuzz: 2 passed, 0 failed$' "seed $s: both workers pass"
	expect_no_line '^PANIC' "seed $s: no panic"
done
finish
