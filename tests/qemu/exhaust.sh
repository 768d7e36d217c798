#!/usr/bin/env bash
# exhaust.sh: resource exhaustion (tests/fuzz/exhaust.c) on a 2-CPU,
# 256 MiB baremon: descriptors until EMFILE, 100,000 event opens and
# closes, ring buffers until the mlock limit's EPERM, memory until ENOMEM
# or the kill, processes until fork fails; each time the errno Linux
# gives, and memory and objects come back. The session goes on after it
# (the kernel survived). The host Linux runs the parts that are safe on
# a shared machine (descriptors, a shorter churn, the mlock limit) with
# the same expectations.
. "$(dirname "$0")/lib.sh"

bin=$build/fuzz/exhaust
host=$logs/host.out
"$bin" 2000 > "$host" 2>&1
check "on the host Linux: $(tail -n 1 "$host")" grep -q '^exhaust: [0-9]* passed, 0 failed$' "$host"
grep '^not ok' "$host" | sed 's/^/# host: /'

session=$logs/exhaust.session
cat > "$session" <<'SESSION'
exhaust --all
echo "status $?"
cat /proc/baremon/objects
echo "the session goes on"
SESSION
guest_timeout=${GUEST_TIMEOUT:-240}
guest exhaust --smp 2 --mem 256M --session "$session" --add "$bin"
expect_rc 0
expect_line '^exhaust: [0-9]+ passed, 0 failed$' "every check passes on baremon"
expect_line '^status 0$' "exhaust exits 0"
expect_line '^the session goes on$' "the session survives"
expect_line 'oom: killed exhaust\[[0-9]+\]: no memory for a page at ' \
	"a fault with no page to give kills the process with a log line"
expect_line 'oom: out of memory: no run of 1 free page \([0-9]+ KiB free of [0-9]+ KiB; [0-9]+ heap pages' \
	"the first exhaustion is reported on the console, with the figures"
expect_no_line '^PANIC' "no panic"
finish
