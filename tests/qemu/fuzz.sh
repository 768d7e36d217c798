#!/usr/bin/env bash
# fuzz.sh: the system-call fuzzer (tests/fuzz/fuzz.c, calls.c) on baremon
# with 2 CPUs, a short budget: two fixed seeds, two workers each. It
# must find no failure without an errno, no worker killed, no worker that
# stops making calls for 20 s (the guest-side watchdog), no leak (heap
# blocks, pages and processes in /proc/baremon/objects back to their
# start) and no panic. The seeds are fixed, so a failure replays (the
# fuzzer prints the reduced sequence and its `fuzz --replay` line).
# About 400 calls a worker take 30-60 s on a busy 2-core host.
# Then the reducer itself: with --plant, opens of type 99 count as
# failures, and the sequence must reduce to that one call; and the
# replay of the soak's failure (below).
# FUZZ_SEEDS and FUZZ_CALLS (per worker) change the budget.
. "$(dirname "$0")/lib.sh"

seeds=${FUZZ_SEEDS:-21 1}
calls=${FUZZ_CALLS:-400}
guest_timeout=${GUEST_TIMEOUT:-240}
# The debug kernel (make debug-esp) when there is one: its heap and
# spinlock checks turn a quiet corruption into a named report.
debug=${BAREMON_DEBUG_BUILD:-$top/build-debug}
[ -f "$debug/kernel.elf" ] && export BAREMON_BUILD=$debug
for s in $seeds; do
	guest "fuzz-seed$s" --smp 2 --add "$build/fuzz/fuzz" --run "fuzz $s $calls 2 20"
	expect_rc 0
	expect_line '^ok - seed [0-9]+: heap, pages and processes come back after the workers$' \
		"seed $s: no leak"
	expect_line '^fuzz: 3 passed, 0 failed$' "seed $s: both workers pass, nothing leaks"
	expect_no_line '^PANIC' "seed $s: no panic"
done

# In the same boot, the soak's one failure (seed 20261163, 4 calls): a
# pointer meant to straddle into an unmapped page pointed into a ring
# buffer that a later mmap had put in the hole, so rt_sigaction read a
# struct half from the ring and installed SIG_DFL for SIGUSR2, and
# kill(self, SIGUSR2) ended the worker, as it would on Linux. The guard
# page is kept PROT_NONE now: the replay must pass.
session=$logs/plant.session
cat > "$session" <<'SESSION'
fuzz --plant 3 300 1 20
fuzz --replay 1058,1060-1061,1098 20261163 2000 1 60
echo "replay status $?"
SESSION
guest fuzz-plant --smp 2 --add "$build/fuzz/fuzz" --session "$session"
expect_line '^ok - worker 0 \(seed 20261163\): 4 calls, every failure an errno$' \
	"the soak's failure (seed 20261163) replays without the worker dying"
expect_line '^replay status 0$' "the replay passes"
expect_line '^not ok - worker 0 \(seed 3\): [0-9]+ calls, a failure without an errno$' \
	"a planted failure is reported with its seed"
expect_line '^# reduced to 1 call in [0-9]+ replays; it fails again: yes$' \
	"it reduces to one call that fails again"
expect_line '^# +[0-9]+: perf_event_open\(.* type 99 .*\[planted\]$' \
	"the call left is the planted open"
expect_line '^# replay: fuzz --plant --replay [0-9]+ 3 [0-9]+ 1 20$' "the replay line"
expect_no_line '^PANIC' "no panic"

# The mix of issue 34 (tests/fuzz/mix.c: the calls above plus control-page
# trashing, overflow signal handlers and the perf files in /proc and /sys,
# beside a busy child), first on the host Linux, then on baremon under
# --icount 4 (virtual time: the host's load does not stretch it). The
# fuzzing task's system time over the elapsed time may exceed the host's
# by MIX_MARGIN points at most (a spinning kernel put it at 94%), it must
# keep making calls, and SIGKILL of its process group must end it, after
# which the next shell command runs.
mix_secs=${MIX_SECONDS:-30}
margin=${MIX_MARGIN:-40}
host_line=$(cd "$logs" && "$build/fuzz/fuzz" --mix 10 7 | grep '^# mix: .* calls in')
host_pct=$(echo "$host_line" | sed -n 's/.*in the kernel \([0-9.]*\)% of the time.*/\1/p')
if [ -n "$host_pct" ]; then
	name=mix-host
	ok "$host_line"
	max=$(awk -v h="$host_pct" -v m="$margin" 'BEGIN { print h + m }')
	session=$logs/mix.session
	printf 'fuzz --mix --max-share %s %s 7\necho "after mix $?"\n' "$max" "$mix_secs" > "$session"
	guest fuzz-mix --smp 2 --mem 1G --icount 4 --add "$build/fuzz/fuzz" --session "$session"
	expect_line '^ok - the fuzzing task kept making calls to the end' "mix: the fuzzing task keeps making calls"
	expect_line '^ok - in the kernel [0-9.]+% of the time, at most' \
		"mix: in the kernel at most $margin points more of its time than on the host ($host_pct%)"
	expect_line '^ok - SIGKILL ends the fuzzing task.s group' "mix: SIGKILL ends the fuzzing task's group"
	expect_line '^after mix 0$' "mix: the next shell command runs"
	expect_no_line '^PANIC' "mix: no panic"
	line=$(grep '^# mix: .* calls in' "$log")
	[ -n "$line" ] && ok "baremon --icount 4: ${line#\# mix: }"
else
	not_ok "the mix did not run on the host"
fi
finish
