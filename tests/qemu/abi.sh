#!/usr/bin/env bash
# abi.sh: the ABI test programs (tests/abi/), built with libc-lite, musl
# and glibc, run on baremon with 1 and with 4 CPUs; each must pass the
# same assertions it passes on the host Linux (tests/abi/run-host.sh).
. "$(dirname "$0")/lib.sh"

# orphans and proclist fork about 1,500 processes each: procmodel.sh
# runs them once (their musl builds), not three times at two CPU counts.
# hrsleep asserts how late sleeps wake: it runs under -icount, where the
# guest's clocks follow its own instructions and a busy host cannot make
# them late (on a loaded machine, real time lost 4 ms per 200 us sleep).
THREE_BUILDS_SKIP="orphans proclist hrsleep"
# Each guest runs every program three times (libc-lite, musl, glibc):
# about 90 s of QEMU's CPU on one CPU now, so the hang detector waits
# longer than the default.
guest_timeout=${GUEST_TIMEOUT:-240}
three_builds abi 1 4

THREE_BUILDS_SKIP="" THREE_BUILDS_ONLY=hrsleep THREE_BUILDS_OPTS="--icount 4" \
	THREE_BUILDS_TAG=-icount three_builds abi 1 4

# migrexit again with the hand-off to another CPU stretched
# (sched_handoff_spin, docs/cmdline.md): each child may then exit and be
# reaped while its old CPU is still in sched_finish, which must not
# touch it any more. Without the stretch that window is a few
# instructions wide and the bug showed once in many runs.
THREE_BUILDS_SKIP="" THREE_BUILDS_ONLY=migrexit \
	THREE_BUILDS_OPTS="--cmdline sched_handoff_spin=200000" \
	THREE_BUILDS_TAG=-handoff three_builds abi 4

# pidrace again with the window between a lookup by pid and its use
# stretched (task_find_spin, docs/cmdline.md), on the debug kernel that
# poisons freed memory: a call that used the task it found without a pin
# then reads (or writes) a reaped child's freed memory every few rounds.
debug=${BAREMON_DEBUG_BUILD:-$top/build-debug}
[ -f "$debug/kernel.elf" ] || debug=$build
BAREMON_BUILD=$debug THREE_BUILDS_SKIP="" THREE_BUILDS_ONLY=pidrace \
	THREE_BUILDS_OPTS="--cmdline task_find_spin=200000" \
	THREE_BUILDS_TAG=-findspin three_builds abi 4

finish
