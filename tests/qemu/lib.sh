# shellcheck shell=bash
# lib.sh: helpers for the QEMU integration tests; source it from a test.
#
# A test boots guests with `guest NAME OPTIONS...` and checks the last one
# with the expect_* helpers. Each check prints one line, "ok - NAME: WHAT"
# or "not ok - NAME: WHAT"; the first failure of a guest adds "#"-prefixed
# context (run-qemu's messages and the tail of the serial log). `finish`
# ends the test; its status is non-zero if any check failed.
#
# Logs go to $QEMU_TEST_LOGS/<test>/ (run-all.sh sets it and cleans up) or,
# when a test runs alone, to a fresh build/qemu-tests.XXXXXX removed when
# every check passed. A private directory per run lets runs overlap.
# GUEST_TIMEOUT (seconds, default 90) bounds every boot, counted as
# run-qemu.sh --cpu-timeout does (a busy host stretches it); BAREMON_BUILD
# (default build/) is where the kernel and ESP are, as for run-qemu.sh;
# BAREMON_SELFTEST_BUILD (default build-selftest/) the same for the
# kernel with the self-tests.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck disable=SC2034 # the tests use it
build=${BAREMON_BUILD:-$top/build}
# The kernel with its self-tests (make selftest-esp): the release kernel
# in $build has none, so a guest that runs them boots this one
# (st_guest).
selftest_build=${BAREMON_SELFTEST_BUILD:-$top/build-selftest}
suite=$(basename "$0" .sh)
guest_timeout=${GUEST_TIMEOUT:-90}
own_logs=0
if [ -z "${QEMU_TEST_LOGS:-}" ]; then
	mkdir -p "$top/build" &&
		QEMU_TEST_LOGS=$(mktemp -d "$top/build/qemu-tests.XXXXXX") || exit 1
	own_logs=1
fi
logs=$QEMU_TEST_LOGS/$suite
mkdir -p "$logs" || exit 1
# The host tool's warm target (docs/host.md): none here, whatever the
# user has up; warm.sh makes its own.
export BAREMON_STATE=$logs/no-warm-target

passed=0
failed=0
name=$suite rc=none log=/dev/null err=/dev/null secs=0 shown=0

# perf ARGS...: the host's perf, reading what a guest recorded, in a PID
# namespace of its own. perf looks a sample's program up in the mount
# namespace of the host process that has the sample's pid
# (/proc/PID/ns/mnt): a guest pid that is a host kernel thread's or a
# container process's hides the program, and --symfs with it (perf
# script gave [unknown] for all 704 branch entries of a guest's twofunc
# that was pid 25, on a host whose pid 25 is kdevtmpfs). Alone in its
# namespace, perf finds no such process. Plain perf where unshare is not
# allowed.
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	perf() { unshare --pid --fork --mount-proc perf "$@"; }
fi

# guest NAME [RUN-QEMU OPTION...]: boot a guest and wait for it to stop.
# Sets rc (run-qemu's exit status), log (the serial console with CRs and
# the firmware's escape codes removed), err (run-qemu's own messages) and
# secs (wall time).
guest() {
	name=$1
	shift
	log=$logs/$name.log
	err=$logs/$name.err
	local start=$SECONDS
	"$top/run-qemu.sh" --quiet --cpu-timeout "$guest_timeout" \
		--log "$log.raw" "$@" 2>"$err"
	rc=$?
	secs=$((SECONDS - start))
	shown=0
	sed 's/\r//g; s/\x1b\[[0-9;=?]*[A-Za-z]//g' "$log.raw" > "$log" 2>/dev/null
}

# st_guest NAME [RUN-QEMU OPTION...]: guest, on the kernel with the
# self-tests (its user programs are $build's).
st_guest() {
	BAREMON_BUILD=$selftest_build guest "$@"
}

ok() {
	echo "ok - $name: $1"
	passed=$((passed + 1))
}

not_ok() {
	echo "not ok - $name: $1"
	failed=$((failed + 1))
	[ "$shown" = 1 ] && return
	shown=1 # the context once per guest
	echo "#   run-qemu exit status $rc after ${secs}s; it said:"
	awk '{ print "#   | " $0 }' "$err"
	echo "#   last lines of the serial log $log:"
	tail -n 15 "$log" | awk '{ print "#   | " $0 }'
}

# check WHAT COMMAND...: ok if COMMAND succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# has REGEX: the serial log has a line matching the extended REGEX.
has() { grep -Eq -- "$1" "$log"; }

# lacks REGEX: no line matches.
lacks() { ! has "$1"; }

# count REGEX: how many lines of the serial log match.
count() { grep -Ec -- "$1" "$log"; }

expect_rc() {
	if [ "$rc" = "$1" ]; then
		ok "exit status $1"
	else
		not_ok "exit status $1 (got $rc)"
	fi
}

# expect_line REGEX [WHAT] / expect_no_line REGEX [WHAT]
expect_line() { check "${2:-serial has /$1/}" has "$1"; }
expect_no_line() { check "${2:-serial lacks /$1/}" lacks "$1"; }

# expect_err REGEX [WHAT]: run-qemu said something matching REGEX.
expect_err() { check "${2:-run-qemu says /$1/}" grep -Eq -- "$1" "$err"; }

finish() {
	if [ "$failed" -gt 0 ]; then
		echo "# logs kept in $logs"
		exit 1
	fi
	[ "$own_logs" = 0 ] || rm -rf "$QEMU_TEST_LOGS"
	exit 0
}

# three_builds SUITE SMP...: the programs of tests/SUITE/, in their three
# builds (libc-lite, musl, glibc: build/SUITE/BUILD/NAME), run in one
# session per CPU count; each must exit 0, as it does on the host.
# THREE_BUILDS_ONLY: just these programs; THREE_BUILDS_OPTS: more
# run-qemu options (perf.sh's --icount); THREE_BUILDS_TAG: a suffix that
# keeps such a second set's guests and session apart.
three_builds() {
	local suite=$1 smp b n bin tag=${THREE_BUILDS_TAG:-}
	shift
	local names session=$logs/$suite$tag.session
	names=${THREE_BUILDS_ONLY:-$(cd "$top/tests/$suite" && ls ./*.c | sed 's|^\./||; s|\.c$||')}
	# THREE_BUILDS_SKIP: programs another test runs on baremon instead
	for n in ${THREE_BUILDS_SKIP:-}; do
		names=$(printf '%s\n' $names | grep -vx "$n")
	done
	local adds=()
	: > "$session"
	for b in libc-lite musl host; do
		for n in $names; do
			bin=$build/$suite/$b/$n
			if [ ! -x "$bin" ]; then
				echo "not ok - $suite: $bin not built"
				failed=$((failed + 1))
				continue
			fi
			adds+=(--add "$bin:/bin/$suite-$b-$n")
			printf '%s-%s-%s\necho "status %s-%s $?"\n' "$suite" "$b" "$n" "$b" "$n" >> "$session"
		done
	done
	for smp in "$@"; do
		# shellcheck disable=SC2086 # options, split on purpose
		guest "$suite$tag-smp$smp" --smp "$smp" --mem 1G ${THREE_BUILDS_OPTS:-} \
			--session "$session" "${adds[@]}"
		expect_rc 0
		for b in libc-lite musl host; do
			for n in $names; do
				expect_line "^status $b-$n 0\$" "$b build of $suite/$n passes (exit 0)"
			done
		done
		expect_no_line '^not ok' "no assertion failed"
		expect_no_line '^PANIC' "no panic"
	done
}
