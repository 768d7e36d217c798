#!/usr/bin/env bash
# warm.sh: the warm target (docs/host.md, "The warm target"):
# - baremon up boots one; status says so; a second up is "already up";
# - 20 consecutive commands against it, stat and run in turn, each of
#   a program (tests/qemu/warmcheck.c) that checks it finds a fresh
#   machine (no process left by the one before, /tmp empty but for
#   itself, perf_event_paranoid as booted) and then leaves a mess for
#   the next one (a detached process, files in /tmp, the sysctl set);
#   none of them boots, says anything on stderr, or finds a mess;
# - QEMU killed between two commands: the next one works, on a fresh
#   machine, with one line on stderr; the keeper killed (QEMU goes with
#   it): the same;
# - a command with other target options boots its own and says so in
#   one line, on a terminal with a status line saying what it waits
#   for (a tight --timeout is no check here: at load 70 the agent's
#   start was seen 5 s apart from the kernel's last line, QEMU idle);
# - with no flags, stat counts instructions (user and kernel) and
#   cycles, exactly (a fixed loop's count is the same twice), and bench
#   shows its fixed counters;
# - baremon down: the keeper and QEMU gone, the state directory too.
# No wall-clock figure decides a check (only generous timeouts end a hang).
. "$(dirname "$0")/lib.sh"

tool=$build/baremon
tmo=${WARM_TIMEOUT:-900}
# The state directory: private to this run (a socket path must stay
# short, so not under the logs).
state=$(mktemp -d "${TMPDIR:-/tmp}/bm-warm.XXXXXX")
export BAREMON_STATE=$state/s
down() { timeout 120 "$tool" down >/dev/null 2>&1; rm -rf "$state"; }
trap down EXIT

# bm NAME ARGS...: run the tool (bounded); rc, out and err set.
bm() {
	name=$1
	shift
	out=$logs/$name.out
	err=$logs/$name.err
	log=$err
	local start=$SECONDS
	timeout "$tmo" "$tool" "$@" >"$out" 2>"$err"
	rc=$?
	secs=$((SECONDS - start))
	shown=0
}
in_out() { grep -Eq -- "$1" "$out"; }
in_err() { grep -Eq -- "$1" "$err"; }
tool_lines() { grep -c '^baremon: ' "$err"; }
# alive PID: a process, not a zombie (a killed keeper waits for init).
alive() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null &&
		! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
gone() { ! alive "$1"; }

wc=$logs/warmcheck
check "warmcheck builds" musl-gcc -static -O2 -Wall -Wextra -Werror -o "$wc" \
	"$top/tests/qemu/warmcheck.c"
[ -x "$wc" ] || finish
cd "$logs" || exit 1

bm up up
check "exit status 0 (got $rc)" test "$rc" = 0
check "says the warm target is up" in_err '^baremon: the warm target is up'
bm status status
check "up, with its pids" in_out '^warm target up: keeper pid [0-9]+, QEMU pid [0-9]+'
bm up2 up
check "a second up: already up, status 0" sh -c "[ $rc = 0 ] && grep -q 'already up' '$err'"

# 20 commands, each on a fresh machine, each leaving a mess.
fresh=0 quiet=0 statok=0
for i in $(seq 1 20); do
	if [ $((i % 2)) = 1 ]; then
		bm "cmd$i" stat ./warmcheck
		grep -q 'Performance counter stats' "$err" && statok=$((statok + 1))
	else
		bm "cmd$i" run ./warmcheck
		[ -s "$err" ] || quiet=$((quiet + 1))
	fi
	[ "$rc" = 0 ] && grep -qx fresh "$out" && fresh=$((fresh + 1))
	grep -q '^baremon: ' "$err" && echo "# cmd$i said: $(grep '^baremon: ' "$err")"
	[ "$rc" = 0 ] || echo "# cmd$i: status $rc: $(cat "$out" "$err" | head -5)"
done
check "20 commands on the warm target: each found a fresh machine ($fresh of 20)" \
	test "$fresh" = 20
check "the 10 stat commands printed their counts ($statok of 10)" test "$statok" = 10
check "the 10 run commands said nothing on stderr ($quiet of 10)" test "$quiet" = 10

# QEMU killed between two commands: replaced, with one line.
qemu=$(cat "$BAREMON_STATE/qemu.pid" 2>/dev/null)
check "the warm target's QEMU runs" alive "$qemu"
kill -9 "$qemu" 2>/dev/null
bm killed run ./warmcheck
check "QEMU killed: the next command works on a fresh machine" \
	sh -c "[ $rc = 0 ] && grep -qx fresh '$out'"
check "QEMU killed: one line says it was replaced" \
	sh -c "[ $(tool_lines) = 1 ] && grep -q '^baremon: the warm target stopped (.*): a new one was booted' '$err'"
bm after-killed run ./warmcheck --clean
check "the new machine is warm: the next command says nothing" \
	sh -c "[ $rc = 0 ] && [ ! -s '$err' ]"

# The keeper killed (its QEMU stops with it): replaced, with one line.
keeper=$(cat "$BAREMON_STATE/keeper.pid" 2>/dev/null)
qemu=$(cat "$BAREMON_STATE/qemu.pid" 2>/dev/null)
kill -9 "$keeper" 2>/dev/null
for _ in $(seq 1 300); do alive "$qemu" || break; sleep 0.2; done
check "keeper killed: its QEMU stopped too" gone "$qemu"
bm keeper-killed run ./warmcheck --clean
check "keeper killed: the next command works on a fresh machine" \
	sh -c "[ $rc = 0 ] && grep -qx fresh '$out'"
check "keeper killed: one line says a new one boots" \
	sh -c "[ $(tool_lines) = 1 ] && grep -q '^baremon: the warm target had stopped' '$err'"
bm status2 status
check "status: up again, a new keeper" \
	sh -c "grep -q '^warm target up' '$out' && ! grep -q 'keeper pid $keeper,' '$out'"

# Other target options: a QEMU of its own, said in one line; a cold
# boot on a terminal.
name=cold
out=$logs/cold.out
err=$out
timeout "$tmo" script -qec "'$tool' --mem 256M run ./warmcheck --clean" \
	/dev/null >"$out" 2>&1
rc=$?
check "other options: boots its own and runs (status $rc)" \
	sh -c "[ $rc = 0 ] && grep -q fresh '$out'"
check "other options: one line says so" \
	sh -c "[ \$(grep -c 'runs with other options' '$out') = 1 ]"
check "on a terminal: a status line says what the tool waits for" \
	grep -q 'waiting for the firmware (OVMF)' "$out"

# Exact by default: with no flags, stat counts instructions (user and
# kernel) and cycles, and the user count of a fixed loop is exact: the
# same twice.
bm exact stat ./warmcheck --spin
check "stat with no flags: instructions counted" grep -Eq '^ +[0-9]+ +instructions ' "$err"
check "stat with no flags: cycles counted" grep -Eq '^ +[0-9]+ +cycles ' "$err"
bm exact1 stat -e instructions:u ./warmcheck --spin
n1=$(awk '/ instructions:u/ { print $1 }' "$err")
bm exact2 stat -e instructions:u ./warmcheck --spin
n2=$(awk '/ instructions:u/ { print $1 }' "$err")
check "the default target's instruction count is exact: the same twice ($n1, $n2)" \
	sh -c "[ -n '$n1' ] && [ '$n1' -gt 100000 ] && [ '$n1' = '$n2' ]"
bm benchfixed bench -asm 'add rax, rbx'
check "bench with no flags shows its fixed counters" \
	sh -c "[ $rc = 0 ] && grep -q '^Instructions retired: 1.00' '$out'"

# down: nothing left.
keeper=$(cat "$BAREMON_STATE/keeper.pid" 2>/dev/null)
qemu=$(cat "$BAREMON_STATE/qemu.pid" 2>/dev/null)
bm down down
check "down: exit status 0, says so" sh -c "[ $rc = 0 ] && grep -q 'is down' '$err'"
check "down: the keeper is gone" gone "$keeper"
check "down: its QEMU is gone" gone "$qemu"
check "down: the state directory is gone" test ! -e "$BAREMON_STATE"
bm status3 status
check "status after down: status 1" test "$rc" = 1
finish
