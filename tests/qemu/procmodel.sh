#!/usr/bin/env bash
# procmodel.sh: the fork-heavy process-model programs of tests/abi/ on
# baremon, once each (their musl builds; the host runs all three builds:
# tests/abi/run-host.sh): orphans handed to pid 1 are reaped while their
# creator still runs and their memory comes back (orphans), and /proc
# lists more than 1024 processes (proclist). abi.sh skips them.
. "$(dirname "$0")/lib.sh"

session=$logs/procmodel.session
cat > "$session" <<'SESSION'
orphans
echo "status orphans $?"
proclist
echo "status proclist $?"
SESSION

# About 1,500 forks: 10-30 s under TCG on a loaded host.
guest_timeout=${GUEST_TIMEOUT:-180}
guest procmodel --smp 2 --mem 1G --session "$session" \
	--add "$build/abi/musl/orphans" --add "$build/abi/musl/proclist"
expect_rc 0
expect_line '^orphans: [0-9]+ passed, 0 failed$' "orphans: every check passes"
expect_line '^status orphans 0$' "orphans exits 0"
expect_line '^proclist: [0-9]+ passed, 0 failed$' "proclist: every check passes"
expect_line '^status proclist 0$' "proclist exits 0"
expect_no_line '^not ok' "no assertion failed"
expect_no_line '^PANIC' "no panic"

finish
