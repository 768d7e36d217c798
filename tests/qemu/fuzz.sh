#!/usr/bin/env bash
# fuzz.sh: the system-call fuzzer (tests/fuzz/fuzz.c) on baremon with 2
# CPUs, a short budget per run: two seeds, two workers each. It must
# find no errno outside Linux's, no worker that stops making calls for
# 20 s (the guest-side watchdog), and no panic. The seeds are fixed, so
# a failure replays (`fuzz SEED CALLS 2 20` in a guest); seed 21 hung
# the kernel before the prctl livelock fix (sched_want_tick).
# FUZZ_SEEDS and FUZZ_CALLS (per worker) change the budget.
. "$(dirname "$0")/lib.sh"

seeds=${FUZZ_SEEDS:-21 1}
calls=${FUZZ_CALLS:-1000}
guest_timeout=${GUEST_TIMEOUT:-180}
for s in $seeds; do
	guest "fuzz-seed$s" --smp 2 --add "$build/fuzz/fuzz" --run "fuzz $s $calls 2 20"
	expect_rc 0
	expect_line '^fuzz: 2 passed, 0 failed$' "seed $s: both workers pass"
	expect_no_line '^PANIC' "seed $s: no panic"
done
finish
