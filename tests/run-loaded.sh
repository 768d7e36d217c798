#!/bin/sh
# run-loaded.sh: `make test-loaded`, the whole suite (tests/run-tests.sh)
# beside a CPU hog: one busy `yes > /dev/null` per core (HOGS=N for
# another count), started first and killed by their pids when the suite
# ends. A suite that fails only on a busy machine is a suite nobody
# trusts (issue 11). Ends with the suite's "N passed, N failed" and its
# exit status.
top=$(cd "$(dirname "$0")/.." && pwd)
n=${HOGS:-$(nproc)}
pids=""
i=0
while [ "$i" -lt "$n" ]; do
	yes > /dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # the pids are words
trap 'kill $pids 2>/dev/null' EXIT INT TERM
echo "test-loaded: $n CPU hog(s) running (pids$pids)"
sh "$top/tests/run-tests.sh"
rc=$?
exit $rc
