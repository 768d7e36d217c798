#!/usr/bin/env bash
# abi.sh: the ABI test programs (tests/abi/), built with libc-lite, musl
# and glibc, run on baremon with 1 and with 4 CPUs; each must pass the
# same assertions it passes on the host Linux (tests/abi/run-host.sh).
. "$(dirname "$0")/lib.sh"

# orphans and proclist fork about 1,500 processes each: procmodel.sh
# runs them once (their musl builds), not three times at two CPU counts.
THREE_BUILDS_SKIP="orphans proclist"
# Three builds of every program (hrsleep alone times ~500 sleeps) take
# over 30 s with one CPU on a loaded host.
guest_timeout=${GUEST_TIMEOUT:-90}
three_builds abi 1 4

finish
