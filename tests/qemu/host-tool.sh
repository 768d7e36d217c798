#!/usr/bin/env bash
# host-tool.sh: the host tool build/baremon against QEMU (docs/host.md).
# - the default target (QEMU started by the tool): record --export -g
#   (the kernel's exporter on the console line), the file
#   read by the host's perf report / perf script / perf report --header
#   with user and kernel symbols from the build-id cache (HOME is private);
#   record -o - (pipe format) read by the same three, with the same
#   symbols and header;
# - one QEMU at its shell prompt on a socket, reached with --connect for
#   run (output, status, a pushed local program, a missing program),
#   push/pull (a 300 KiB file, mode kept, a missing file), stat (text;
#   -x and -j shaped as the host's perf stat prints them) and a
#   session script; through tests/qemu/faultrelay.c, which flips, drops
#   and duplicates bytes both ways, each at RELAY_RATE per 100000 bytes
#   (default 5: about one 1 KiB frame in seven is damaged; uploads and
#   downloads still intact,
#   the tool reports the damage, nothing hangs; record --export keeps
#   whole records and counts the frames missing); and through a pty
#   (--serial);
#   --export: frames on a virtio console (export=virtio), record -z
#   --export through it intact, perf.data zstd-compressed as perf
#   record -z writes it and read by the host's perf;
# - the console on COM2 (console=ttyS1, QEMU given a null COM1 first);
# - a PCI serial card as the export UART (export=ttyS4) paced at 115200
#   baud (export_pace), reached during boot: a record that outruns the
#   line counts LOST records (perf report sees them), then a session
#   ends with poweroff and QEMU exits 0;
# - errors: nothing to connect to, no device, a silent line (/dev/ptmx),
#   garbage only (as at a wrong baud rate), a kernel panic at boot;
# - without QEMU (tests/qemu/connstall.c): the tool reads the console
#   while a write to an unread export line waits (the -icount stall).
# - before anything starts (no QEMU, no file left): help, --version,
#   CMD -h, usage errors (status 2), local files (66, 73), event names,
#   record's --call-graph, bench's own option checks,
#   session steps;
# - signals to the tool's pid alone: SIGTERM while a command runs and
#   SIGHUP while the machine boots (default target) leave no process and
#   no file; SIGINT against --connect ends the guest command, and the
#   next call runs at once; after SIGKILL of the tool the running agent
#   announces itself to the next call; --kvm where KVM refuses names
#   QEMU's reason;
# - perf's ways: a program killed by a signal ("Segmentation fault",
#   139), list, stat -e sched:sched_switch, stat --per-thread -p 1,
#   record -e sched:sched_switch
#   decoded by perf script (file and pipe), a session's stat step pushing
#   ./prog, perf annotate of a recorded local program with no flags,
#   record --call-graph dwarf (user registers and stack perf reads),
#   perf.data.old, an event the target lacks (2, no pull message), no
#   "line damage" or "binary file matches" in normal output.
. "$(dirname "$0")/lib.sh"

tool=$build/baremon
work=$build/musl/recwork
export HOME=$logs/home
mkdir -p "$HOME"
tmo=${HOST_TOOL_TIMEOUT:-600}

# bm NAME ARGS...: run the tool (bounded); rc, out (stdout) and err set.
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

check "the tool is built" test -x "$tool"

# --- the link without QEMU: no stall while a write waits (connstall.c) ----------
cs=$logs/connstall
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$top" -D_GNU_SOURCE -o "$cs" \
	"$top/tests/qemu/connstall.c" "$top/host/conn.c" "$top/host/export_rx.c" \
	"$top/host/stop.c" "$top/host/progress.c" \
	"$top/wire/frame.c" "$top/wire/link.c" "$top/wire/pack.c"
timeout 60 "$cs" >"$logs/connstall.out" 2>&1
check "connstall: the console is read while a write to the export line waits" \
	grep -q '^connstall: 4 passed, 0 failed$' "$logs/connstall.out"

# --- before anything starts: usage, help, local inputs ---------------------------
# Each runs with a private TMPDIR: nothing may be left in it, and no
# process may name it (run-qemu.sh's and QEMU's paths are under it).
early=$logs/early-tmp
mkdir -p "$early"
left_nothing() {
	local i
	for i in $(seq 50); do
		pgrep -f "$1" >/dev/null || break
		sleep 0.2
	done
	! pgrep -f "$1" >/dev/null && [ -z "$(ls -A "$1")" ]
}
# pre NAME STATUS REGEX ARGS...: exits STATUS before anything starts,
# saying REGEX (stdout or stderr).
pre() {
	local what=$1 want=$2 re=$3
	shift 3
	TMPDIR=$early bm "pre-$(printf %s "$what" | tr -c 'a-zA-Z0-9-' _)" "$@"
	if [ "$rc" = "$want" ] && grep -Eq -- "$re" "$out" "$err" && left_nothing "$early"; then
		ok "status $want before any boot, says /$re/"
	else
		not_ok "status $want before any boot, says /$re/ (got $rc)"
	fi
}
pre "help" 0 '^usage: baremon ' help
pre "help stat" 0 '^usage: stat ' help stat
pre "help of no command" 2 "no command 'frob'" help frob
pre "--version" 0 '^baremon version ' --version
pre "record --help" 0 '^usage: record ' record --help
pre "bench -h" 0 '^usage: bench ' bench -h
pre "list -h" 0 '^usage: baremon \[TARGET\] list' list -h
pre "an unknown command" 2 "'frob' is not a baremon command" frob
pre "record -e bogus" 2 "unknown event 'bogus'" record -e bogus true
pre "record -e in a group" 2 "unknown event 'bogus'" record -e '{cycles,bogus}:u' true
pre "record --call-graph dwarf,12" 2 'dwarf,SIZE: a multiple of 8' record --call-graph dwarf,12 true
pre "record --per-thread -a" 2 'per-thread and -a/-C exclude' record --per-thread -a true
pre "record -o into no directory" 73 'cannot write /nonexistent/' record -o /nonexistent/d/p.data true
pre "stat: an unknown option" 2 "unknown option" stat --bogus true
pre "stat --per-thread with only a program" 2 'per-thread option is only available when monitoring via -p -t -a' \
	stat --per-thread true
pre "stat -p with -a" 2 '-p/-t and -a/-C exclude each other' stat -p 1 -a true
pre "stat ./nonexistent" 66 '\./nonexistent: No such file' stat ./nonexistent
pre "run ./nonexistent" 66 '\./nonexistent: No such file' run ./nonexistent
pre "push /nonexistent/file" 66 'cannot read /nonexistent/file' push /nonexistent/file
pre "push: too many arguments" 2 'FILE \[DEST\]' push a b c
pre "bench: an unknown option" 2 'unknown option -bogus' bench -bogus
pre "bench: a bad number" 2 'needs a number' bench -asm 'add rax, rbx' -n_measurements x
pre "bench: NASM refuses" 2 'cannot assemble' bench -asm 'frob rax'
printf 'run true\nfrobnicate now\n' >"$logs/bad.session"
pre "session: an unknown step" 2 'bad.session:2: cannot understand' session "$logs/bad.session"
printf 'push /nonexistent/file\n' >"$logs/nofile.session"
pre "session: a missing file to push" 66 'nofile.session:1.*cannot read' session "$logs/nofile.session"
pre "session: --junit without a file" 2 'FILE \[--junit OUT\]' session "$logs/bad.session" --junit
pre "session: --junit into a missing directory" 73 'cannot write /nonexistent/j.xml' \
	session "$logs/nofile.session" --junit /nonexistent/j.xml
printf 'intel --cmdline vpmu=intel\n  amd   vpmu=amd\n' >"$logs/bad.targets"
pre "--targets: a target's options without '-'" 2 "bad.targets:2: a target's options start with '-'" \
	--targets "$logs/bad.targets" run true
pre "--targets: no such file" 66 'nonexistent.targets' --targets "$logs/nonexistent.targets" run true
pre "--smp without its value" 2 'unknown option' --smp

# --- signals to the tool alone: nothing left -------------------------------------
sleeper=$logs/sleeper
musl-gcc -static -O2 -Wall -Wextra -Werror -o "$sleeper" "$top/tests/qemu/sleeper.c"
sigtmp=$logs/sig-tmp
mkdir -p "$sigtmp"
# signal_tool NAME SIGNAL WAIT_FOR ARGS...: start the tool (its own pid,
# no wrapper), wait until its stdout has WAIT_FOR (or "": 1 s), send
# SIGNAL to that pid alone; rc is the tool's status.
signal_tool() {
	local what=$1 sig=$2 ready=$3 pid i
	shift 3
	name=$what out=$logs/$what.out err=$logs/$what.err log=$logs/$what.err
	TMPDIR=$sigtmp "$tool" "$@" >"$out" 2>"$err" &
	pid=$!
	for i in $(seq "$tmo"); do
		if [ -z "$ready" ]; then sleep 1; break; fi
		grep -q -- "$ready" "$out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	kill "-$sig" "$pid"
	for i in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	shown=0
}
signal_tool sigterm TERM '^started$' run "$sleeper"
expect_rc 143
check "SIGTERM while a command runs: no process, no file left" left_nothing "$sigtmp"
signal_tool sighup HUP '' run "$sleeper"
expect_rc 129
check "SIGHUP while the machine boots: no process, no file left" left_nothing "$sigtmp"
# --targets on two agents on the host (exec:, no QEMU): one table with
# a column each; SIGTERM to the tool alone reaches both targets, whose
# commands end, and nothing is left.
printf 'one --connect exec:%s\ntwo --connect exec:%s\n' "$build/apps/agent" "$build/apps/agent" \
	>"$logs/exec.targets"
bm targets-exec --targets "$logs/exec.targets" run echo "copies: 42"
expect_rc 0
check "--targets: the header names both targets" in_out '^target +one +two$'
check "--targets: the measurement in both columns" in_out '^copies +42 +42$'
# (the host's sleep: both agents share this machine's /tmp, so a pushed
# program would collide)
signal_tool targets-sigterm TERM '' --targets "$logs/exec.targets" run sleep 4711
expect_rc 143
# shellcheck disable=SC2317 # called by check
no_sleeper() {
	local i
	for i in $(seq 50); do
		pgrep -x -f "sleep 4711" >/dev/null || return 0
		sleep 0.2
	done
	return 1
}
check "--targets, SIGTERM: both targets' commands ended" no_sleeper
check "--targets, SIGTERM: no file left" left_nothing "$sigtmp"
if [ -e /dev/kvm ]; then
	bm kvm --kvm run true
	if [ "$rc" = 0 ]; then
		ok "--kvm: KVM works here"
	else
		check "--kvm refused: QEMU's own reason, status 69 ($(head -c 120 "$err"))" \
			sh -c '[ "$1" = 69 ] && grep -Eq "QEMU (stopped|did not start): QEMU failed: .+" "$2"' \
			- "$rc" "$err"
	fi
fi

# --- the default target: QEMU started by the tool --------------------------------
bm record --smp 2 record --export -g -o "$logs/perf.data" -- "$work" 300
expect_rc 0
check "record: the program's output is relayed" in_out '^recwork: 64 pages'
check "record --export: the kernel streamed every buffer (console line)" \
	in_err 'exported by the kernel: 2 stream\(s\) \(2 ended\), [1-9][0-9]* bytes, .* 0 bytes of frames missing, 0 bytes cut'
perf report --stdio -i "$logs/perf.data" >"$logs/report.txt" 2>"$logs/report.err"
check "perf report reads the file" test -s "$logs/report.txt"
check "perf report: user symbols from the build-id cache (spin_loop)" \
	grep -q 'spin_loop' "$logs/report.txt"
check "perf report: kernel symbols from the build-id cache (no --vmlinux)" \
	grep -Eq '\[k\] [a-z_]+' "$logs/report.txt"
perf script -i "$logs/perf.data" >"$logs/script.txt" 2>&1
check "perf script reads the file" grep -q 'recwork' "$logs/script.txt"
check "perf script: samples name the local program, not its guest path" \
	grep -q "($(readlink -f "$work"))" "$logs/script.txt"
check "record: no 'line damage' or 'binary file matches' in normal output" \
	sh -c '! grep -Eq "line damage|binary file matches" "$1"' - "$err"
perf annotate --stdio -i "$logs/perf.data" spin_loop >"$logs/annotate.txt" 2>&1
check "perf annotate works with no flags (spin_loop disassembled)" \
	grep -Eq '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' "$logs/annotate.txt"
perf report --header-only -i "$logs/perf.data" >"$logs/header.txt" 2>&1
for f in 'hostname : baremon' 'os release : 6.1.0-baremon' 'arch : x86_64' \
	'nrcpus online : 2' 'cpudesc : ' 'cpuid : ' 'total memory : [1-9]' \
	'cmdline : baremon record' 'event : name = cpu-clock' 'perf version : baremon'; do
	check "perf report --header: $f" grep -Eq "# $f" "$logs/header.txt"
done
# -z: perf.data compressed as perf record -z writes it (zstd), which
# the host's perf reads.
bm record-initrd --export -v --smp 1 record -z --export -e page-faults -c 1 -o "$logs/cat.data" -- cat /proc/version
expect_rc 0
perf report --stdio --sort comm,dso,sym -i "$logs/cat.data" >"$logs/cat.txt" 2>&1
check "perf report: symbols of an initrd program (/bin/cat from build/apps)" \
	grep -Eq 'cat +cat +\[\.\] [a-z_]+$' "$logs/cat.txt"
perf report --header-only -i "$logs/cat.data" >"$logs/cat-header.txt" 2>&1
check "record -z: perf.data says it is zstd-compressed (HEADER_COMPRESSED)" \
	grep -Eq '^# compressed : Zstd, level = 1, ratio = [1-9]' "$logs/cat-header.txt"
perf report --stats -i "$logs/cat.data" >"$logs/cat-stats.txt" 2>&1
check "record -z: the records are in PERF_RECORD_COMPRESSED, and perf finds the samples" \
	sh -c "grep -Eq 'COMPRESSED events: +[1-9]' '$logs/cat-stats.txt' && grep -Eq 'SAMPLE events: +[1-9]' '$logs/cat-stats.txt'"
check "--export: the guest's virtio console carries the frames (export=virtio)" \
	in_err 'serial: export=virtio \(PCI [0-9a-f:.]+, io 0x[0-9a-f]+\): /dev/export'
check "record --export on the virtio console: intact, nothing lost" \
	in_err 'exported by the kernel: 1 stream\(s\) \(1 ended\), [1-9][0-9]* bytes, [0-9]+ records, [1-9][0-9]* samples, 0 LOST records .* 0 dropped unreported, 0 bytes of frames missing'
bm record-pipe record -e page-faults -c 1 -o - -- "$work" 50
expect_rc 0
check "record -o -: pipe format on stdout that perf script reads" \
	sh -c "perf script -i - < '$out' | grep -q page-faults"
perf report --stdio -i - <"$out" >"$logs/pipe-report.txt" 2>&1
check "record -o -: perf report resolves user symbols (touch_pages)" \
	grep -q '\[\.\] touch_pages' "$logs/pipe-report.txt"
perf report --header-only -i - <"$out" >"$logs/pipe-header.txt" 2>&1
for f in 'hostname : baremon' 'os release : 6.1.0-baremon' 'nrcpus online : [1-9]' \
	'cmdline : baremon record' 'event : name = page-faults'; do
	check "record -o -: perf report --header: $f" grep -Eq "# $f" "$logs/pipe-header.txt"
done

# --- a QEMU at its prompt, reached with --connect -----------------------------
sock=$logs/console.sock
# Its initrd has glibc's ld.so and libc (run-qemu.sh --add-dyn): what a
# dynamic program pushed later needs from / (read-only) is there.
"$top/run-qemu.sh" --quiet --timeout "$tmo" --serial "socket:$sock" --log "$logs/qemu.log" \
	--add-dyn "$build/dyn/dyn-tls:/bin/dyn-tls" 2>"$logs/qemu.err" &
qemu=$!
trap 'kill $qemu 2>/dev/null' EXIT
for _ in $(seq 300); do [ -S "$sock" ] && break; sleep 0.2; done
# The guest may still be booting: the tool waits for the shell's prompt
# (or a quiet console) before it types (docs/host.md). (run-qemu.sh
# writes --log only when QEMU exits, so the test cannot watch for it.)
c=(--connect "unix:$sock")

two=$logs/twostreams
musl-gcc -static -O2 -Wall -Wextra -Werror -o "$two" "$top/tests/qemu/twostreams.c"
bm run "${c[@]}" run "$two" 3 3
expect_rc 3
printf 'line 0\nline 1\nline 2\n' >"$logs/two.expected"
check "run: a local program is pushed; its stdout relayed" cmp -s "$out" "$logs/two.expected"
check "run: stderr relayed to stderr" in_err '^to-stderr$'

# A dynamic program: its library beside it ($ORIGIN) goes along to /tmp
# the first time, and not again (the agent's SUM says it is there).
bm run-dyn1 "${c[@]}" -v run "$build/dyn/dyn-tls"
expect_rc 0
check "run: a dynamic program runs with its library" in_out '^dyn-tls: 6 passed, 0 failed$'
check "run: its library beside it was pushed" in_err '^baremon: pushed 1 of the 3 files .*dyn-tls needs'
echo "# first run of dyn-tls: ${secs}s"
bm run-dyn2 "${c[@]}" -v run "$build/dyn/dyn-tls"
expect_rc 0
check "run: it runs again" in_out '^dyn-tls: 6 passed, 0 failed$'
check "run: nothing is pushed the second time" bash -c "! grep -q '^baremon: pushed .* files' '$err'"
echo "# second run of dyn-tls: ${secs}s"
# The cache holds the mode too: a library whose mode changed goes again
# (and arrives with it: the run after pushes nothing).
dyncopy=$logs/dyncopy
mkdir -p "$dyncopy"
lib=libdyntls.so
cp -p "$build/dyn/dyn-tls" "$build/dyn/$lib" "$dyncopy/"
chmod 0600 "$dyncopy/$lib"
bm run-dyn3 "${c[@]}" -v run "$dyncopy/dyn-tls"
expect_rc 0
check "run: a library whose mode changed ($lib 0600) is pushed again" \
	in_err '^baremon: pushed 1 of the 3 files .*dyn-tls needs'
bm run-dyn4 "${c[@]}" -v run "$dyncopy/dyn-tls"
expect_rc 0
check "run: it runs with the library so" in_out '^dyn-tls: 6 passed, 0 failed$'
check "run: and nothing is pushed the time after (the target has its mode now)" \
	bash -c "! grep -q '^baremon: pushed .* files' '$err'"

bm run-guest "${c[@]}" run cat /proc/version
expect_rc 0
check "run: a program of the target's" in_out '^Linux version .*baremon'

bm run-missing "${c[@]}" run no-such-program
expect_rc 127
check "run: a missing program says so" in_err 'no-such-program: No such file'

head -c 307200 /dev/urandom > "$logs/big.bin"
chmod 751 "$logs/big.bin"
bm push "${c[@]}" push "$logs/big.bin" /tmp/big.bin
expect_rc 0
check "push: reports size and rate" in_err 'pushed .* 307200 bytes in'
bm pull "${c[@]}" pull /tmp/big.bin "$logs/back.bin"
expect_rc 0
check "pull: the file comes back identical" cmp -s "$logs/big.bin" "$logs/back.bin"
check "push/pull: the mode is kept (751)" test "$(stat -c %a "$logs/back.bin")" = 751
bm pull-missing "${c[@]}" pull /no/such/file "$logs/nothing"
expect_rc 74
check "pull: a missing file is an error" in_err 'No such file'
check "pull: no local file left" test ! -e "$logs/nothing"

bm stat "${c[@]}" stat -e page-faults,task-clock -- "$work" 20
expect_rc 0
check "stat: perf stat's output relayed" in_err 'Performance counter stats for'
check "stat: the page-faults row" in_err '[0-9]+ +page-faults'
# -x and -j: the rows perf stat prints on the host, numbers aside (CSV:
# every field; JSON: the keys in order).
shape() { grep 'page-faults' "$1" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g'; }
keys() { grep 'page-faults' "$1" | grep -Eo '"[a-z-]+" :'; }
bm stat-csv "${c[@]}" stat -x, -e page-faults -- "$work" 20
expect_rc 0
perf stat -x, -e page-faults -- "$work" 20 2>"$logs/stat-csv.linux" >/dev/null
check "stat -x,: the row perf stat -x, prints ($(shape "$err"))" \
	sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' - "$(shape "$err")" "$(shape "$logs/stat-csv.linux")"
bm stat-json "${c[@]}" stat -j -e page-faults -- "$work" 20
expect_rc 0
perf stat -j -e page-faults -- "$work" 20 2>"$logs/stat-json.linux" >/dev/null
check "stat -j: the keys perf stat -j prints, in order" \
	sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' - "$(keys "$err")" "$(keys "$logs/stat-json.linux")"

cat >"$logs/s.session" <<EOF
# a session script
run echo hello session
expect hello session
status 7
run $two 1 7
expect to-stderr
push $logs/big.bin /tmp/s.bin
pull /tmp/s.bin $logs/s.back
run cat /proc/version
expect baremon
pull /proc/cpuinfo $logs/cpuinfo.txt
EOF
bm session "${c[@]}" session "$logs/s.session"
expect_rc 0
check "session: every step passed" in_out '^session: 10 passed, 0 failed$'
check "pull: a /proc file (size 0 in stat) comes whole" grep -q '^processor' "$logs/cpuinfo.txt"
check "session: the pulled file is intact" cmp -s "$logs/big.bin" "$logs/s.back"
printf 'run false\nrun echo never\n' >"$logs/f.session"
bm session-fail "${c[@]}" session "$logs/f.session" --junit "$logs/f.xml"
expect_rc 1
check "session: stops at the first failure" in_out '^session: 0 passed, 1 failed$'
# --junit: the steps as JUnit test cases that Python's xml.etree reads:
# the failed run with its exit status, the step it left unrun skipped.
junit_cases() {
	python3 -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
print(s.get("tests"), s.get("failures"), s.get("skipped"), *[
    c.get("name") + "=" + ",".join(x.tag + ":" + (x.get("message") or x.text or "").strip() for x in c)
    for c in s.findall("testcase")], sep="|")' "$1" 2>&1
}
check "session --junit: a failed run and the skipped step after it" \
	[ "$(junit_cases "$logs/f.xml")" = "2|1|1|run false=failure:exit status 1, expected 0|run echo never=skipped:not run: an earlier step failed" ]
printf 'run echo "<hello> & bye"\nexpect & bye\n' >"$logs/j.session"
bm session-junit "${c[@]}" session "$logs/j.session" --junit "$logs/j.xml"
expect_rc 0
check "session --junit: two passed cases, a run's output (markup escaped) its system-out" \
	[ "$(junit_cases "$logs/j.xml")" = '2|0|0|run echo "<hello> & bye"=system-out:<hello> & bye|expect & bye=' ]

# --- perf's ways, on the --connect target ---------------------------------------
signal_tool sigint INT '^started$' "${c[@]}" run "$sleeper"
expect_rc 130
bm after-sigint "${c[@]}" run ps
expect_rc 0
check "SIGINT: the guest command ended with the tool" sh -c '! grep -q sleeper "$1"' - "$out"
check "SIGINT: the next call is not refused as busy" sh -c '! grep -q "already running" "$1"' - "$err"
check "SIGINT: no file left" left_nothing "$sigtmp"
# A tool killed outright leaves the agent running its command; the next
# call types "agent", which the running agent answers with its
# announcement (no 20 s announcement wait), and its HELLO ends the
# command the dead tool started.
signal_tool sigkill KILL '^started$' "${c[@]}" run "$sleeper"
expect_rc 137
bm after-sigkill "${c[@]}" -v run ps
expect_rc 0
check "SIGKILL: the next call hears the running agent announce itself" \
	in_err '^baremon: the agent announced itself$'
check "SIGKILL: the dead tool's command ended with the new session" \
	sh -c '! grep -q sleeper "$1"' - "$out"
crash=$build/musl/crash
bm segv "${c[@]}" run "$crash" null
expect_rc 139
check "a program killed by SIGSEGV: 'Segmentation fault', as a shell says" in_err '^Segmentation fault$'
bm list "${c[@]}" list
expect_rc 0
check "list: perf list's heading" in_out '^List of pre-defined events \(to be used in -e or -M\):$'
check "list: software events" in_out '^  cpu-clock +\[Software event\]$'
check "list: PMU events" in_out '^  msr/tsc/ +\[Kernel PMU event\]$'
check "list: tracepoints" in_out '^  sched:sched_switch +\[Tracepoint event\]$'
bm stat-per-thread "${c[@]}" stat --per-thread -e task-clock,context-switches -p 1 -- sleep 0.2
expect_rc 0
check "stat --per-thread -p 1: perf's header for a process" in_err "^ Performance counter stats for process id '1':\$"
# (the agent, not the shell, runs the command: the shell may not run)
check "stat --per-thread -p 1: the shell's row in perf's COMM-TID column" \
	in_err '^ +sh-1 +(<not counted>|[0-9]+) +context-switches'
bm stat-tp "${c[@]}" stat -e sched:sched_switch -- "$work" 5
expect_rc 0
check "stat -e sched:sched_switch: the tracepoint by name" in_err '[0-9]+ +sched:sched_switch'
# Tracepoint samples: record carries their formats (HEADER_TRACING_DATA),
# so the host's perf decodes each sample's fields, from the seekable
# file (the TRACING_DATA feature) and from the pipe stream alike.
tp_fields='sched:sched_switch: +prev_comm=[^ ]+ prev_pid=[0-9]+ .*==> next_comm=[^ ]+ next_pid=[0-9]+'
# (sleep switches out: its samples are the switches.)
bm record-tp "${c[@]}" record -e sched:sched_switch -o "$logs/tp.data" -- sleep 0.2
expect_rc 0
check "record -e sched:sched_switch: perf script decodes the fields of perf.data's samples" \
	sh -c 'perf script -i "$1" 2>/dev/null | grep -Eq "$2"' - "$logs/tp.data" "$tp_fields"
bm record-tp-pipe "${c[@]}" record -e sched:sched_switch -o - -- sleep 0.2
expect_rc 0
check "record -e sched:sched_switch -o -: perf script decodes the pipe's samples" \
	sh -c 'perf script -i - <"$1" 2>/dev/null | grep -Eq "$2"' - "$out" "$tp_fields"
bm record-noevent "${c[@]}" record -e cpu/bogus/ -o "$logs/none.data" -- "$work" 5
expect_rc 2
check "record of an event the target lacks: record's reason" in_err "unknown event 'cpu/bogus/'"
check "record of an event the target lacks: no pull message, no file" \
	sh -c '! grep -q "pull" "$1" && [ ! -e "$2" ]' - "$err" "$logs/none.data"
bm record-dwarf "${c[@]}" record --call-graph dwarf -m 256 -e page-faults -c 1 -o "$logs/dwarf.data" -- "$work" 5
expect_rc 0
perf report -D -i "$logs/dwarf.data" >"$logs/dwarf.txt" 2>&1
check "record --call-graph dwarf: perf reads the user registers" \
	grep -q '^\.\.\. user regs: mask 0xff0fff ABI 64-bit$' "$logs/dwarf.txt"
check "record --call-graph dwarf: and the user stack dumps" \
	grep -Eq '^\.\.\. ustack: size [1-9][0-9]*, offset' "$logs/dwarf.txt"
bm record-first "${c[@]}" record -e page-faults -c 1 -o "$logs/again.data" -- "$work" 5
cp "$logs/again.data" "$logs/first.data"
bm record-again "${c[@]}" record -e page-faults -c 1 -o "$logs/again.data" -- "$work" 5
expect_rc 0
check "record over a perf.data: the old one is FILE.old, as perf" \
	sh -c 'cmp -s "$1" "$2" && [ -s "$3" ]' - "$logs/first.data" "$logs/again.data.old" "$logs/again.data"
cp "$two" "$logs/two-local"
printf 'stat -e page-faults ./two-local 2 0\nexpect page-faults\n' >"$logs/stat.session"
cd "$logs" || exit 1
bm stat-session "${c[@]}" session stat.session
cd "$top" || exit 1
expect_rc 0
check "session: a stat step pushes its local program" in_out '^session: 2 passed, 0 failed$'

# --- a damaging line ------------------------------------------------------------
relay=$logs/faultrelay
gcc -O2 -Wall -Wextra -Werror -o "$relay" "$top/tests/qemu/faultrelay.c"
check "faultrelay builds" test -x "$relay"
"$relay" "$sock" "$logs/relay.sock" "${RELAY_RATE:-5}" 7 2>"$logs/faultrelay.err" &
rpid=$!
for _ in $(seq 50); do [ -S "$logs/relay.sock" ] && break; sleep 0.1; done
r=(--timeout 120 --connect "unix:$logs/relay.sock")
cat >"$logs/r.session" <<EOF
push $logs/big.bin /tmp/r.bin
pull /tmp/r.bin $logs/r.back
push $two /tmp/two
run /tmp/two 2000 0
expect line 1999
EOF
bm relay "${r[@]}" session "$logs/r.session"
expect_rc 0
check "damaged line: every step passed" in_out '^session: 5 passed, 0 failed$'
check "damaged line: the upload and download are intact" cmp -s "$logs/big.bin" "$logs/r.back"
check "damaged line: the tool reports what it skipped" in_err 'line damage: [1-9][0-9]* bad frames'
echo "# tool: $(grep -E 'line damage|pushed .*r.bin|pulled .*r.bin' "$err" | tr '\n' ' ')"
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
cp "$logs/faultrelay.err" "$logs/faultrelay-session.err"
# The exporter's frames are not resent: a damaged one is counted
# missing and the rest of its stream left out; what is kept is whole.
# (The relay serves one connection: a second one for the record. The
# guest has 2 CPUs: a stream each, unless one CPU took no sample.)
"$relay" "$sock" "$logs/relay2.sock" "${RELAY_RATE:-5}" 8 2>"$logs/faultrelay2.err" &
rpid=$!
for _ in $(seq 50); do [ -S "$logs/relay2.sock" ] && break; sleep 0.1; done
bm relay-record --timeout 120 --connect "unix:$logs/relay2.sock" \
	record --export -e page-faults -c 1 -o "$logs/relay.data" -- "$work" 10 2048
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
expect_rc 0
check "damaged line: record --export says what arrived and what is missing" \
	in_err 'exported by the kernel: [12] stream\(s\) \([0-2] ended\), [0-9]+ bytes, .* [0-9]+ bytes of frames missing, [0-9]+ bytes cut'
check "damaged line: perf script reads what was kept" \
	sh -c "perf script -i '$logs/relay.data' >/dev/null 2>&1"
echo "# relay record: $(grep -o 'exported by the kernel: .*' "$err")"
check "damaged line: the relay did damage" grep -Eq "[1-9][0-9]* flipped, [1-9][0-9]* dropped, [1-9][0-9]* duplicated" "$logs/faultrelay-session.err"
echo "# relay: $(cat "$logs/faultrelay-session.err" "$logs/faultrelay2.err" | tr '\n' ' ')"

# --- a pty (--serial) ---------------------------------------------------------------
"$relay" "$sock" --pty "$logs/pty" 0 1 2>"$logs/pty.err" &
rpid=$!
for _ in $(seq 50); do [ -L "$logs/pty" ] && break; sleep 0.1; done
bm serial --serial "$(readlink "$logs/pty"):115200" run echo over a pty
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
expect_rc 0
check "--serial: a command over a pty" in_out '^over a pty$'
kill "$qemu" 2>/dev/null
wait "$qemu" 2>/dev/null

# --- the console on COM2 (console=ttyS1): QEMU with a null COM1 in front ------------
wrap=$logs/qemu-com2.sh
cat >"$wrap" <<'EOF'
#!/bin/sh
for a in "$@"; do
	if [ "$a" = chardev:con ]; then set -- "$@" null -serial chardev:con; else set -- "$@" "$a"; fi
	shift
done
exec qemu-system-x86_64 "$@"
EOF
chmod +x "$wrap"
QEMU=$wrap bm com2 -v --cmdline console=ttyS1 run "$two" 1 0
expect_rc 0
check "console=ttyS1: the agent answers on COM2" in_out '^line 0$'
check "console=ttyS1: the boot log names the ports and the console" \
	in_err 'serial: ttyS1: io 0x2f8 \(legacy\), console'
# --- a PCI serial card as the export UART, reached during boot -------------------------
# The console on ttyS0, frames on QEMU's pci-serial (export=ttyS4). The
# tool connects at once, while the guest boots: it must wait for the
# prompt before typing, then power the machine off.
csock=$logs/pci-console.sock
esock=$logs/pci-export.sock
"$top/run-qemu.sh" --quiet --timeout "$tmo" --serial "socket:$csock" \
	--pci-serial "socket:$esock" --cmdline "export=ttyS4 export_pace" --log "$logs/qemu-pci.log" \
	2>"$logs/qemu-pci.err" &
qemu=$!
for _ in $(seq 300); do [ -S "$csock" ] && [ -S "$esock" ] && break; sleep 0.2; done
p=(--connect "unix:$csock" --export-connect "unix:$esock")
# export_pace: the line runs at 115200 baud (11.5 KB/s). 4096 page
# faults, each a sample with its call chain (about 600 KB in a burst),
# into a one-page buffer: far more than the line takes, however loaded
# the host.
bm slow-export "${p[@]}" record --export -e page-faults -c 1 -g -m 1 -o "$logs/slow.data" \
	-- "$work" 10 4096
expect_rc 0
check "slow line: LOST records counted, no frame missing" \
	in_err 'exported by the kernel: 2 stream\(s\) \(2 ended\), .* [1-9][0-9]* LOST records \([1-9][0-9]* samples lost\), [0-9]+ dropped unreported, 0 bytes of frames missing, 0 bytes cut'
check "slow line: the records went packed (FRAME_EXPORT_PACKED), every frame decoded" \
	in_err 'the line carried [0-9]+ payload bytes for them \([0-9.]+ to 1; [1-9][0-9]* packed frames, 0 that did not decode\)'
perf report --stdio --stats -i "$logs/slow.data" >"$logs/slow-stats.txt" 2>&1
check "slow line: perf report counts the LOST events" \
	grep -Eq 'LOST events: +[1-9]' "$logs/slow-stats.txt"
perf report --stdio -i "$logs/slow.data" >"$logs/slow.txt" 2>&1
check "slow line: perf report resolves what arrived (touch_pages)" grep -q touch_pages "$logs/slow.txt"
cat >"$logs/p.session" <<EOF
run cat /proc/version
expect baremon
push $two /tmp/two
run /tmp/two 3 0
expect line 2
poweroff
EOF
bm pci-export "${p[@]}" session "$logs/p.session"
expect_rc 0
check "export=ttyS4 (PCI): a session connected during boot passes, powers off" \
	in_out '^session: 6 passed, 0 failed$'
check "poweroff: the tool saw the line close" in_err 'the target powered off'
wait "$qemu"
qrc=$?
check "poweroff: QEMU ends cleanly (status 0)" test "$qrc" = 0
check "PCI serial: found and named in the boot log" \
	grep -Eq 'serial: ttyS4: io 0x[0-9a-f]+ \(PCI [0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\), export' "$logs/qemu-pci.log"
check "export UART: no frame (no NUL byte) on the console line" \
	test "$(tr -cd '\000' < "$logs/qemu-pci.log" | wc -c)" = 0

# --- errors ------------------------------------------------------------------------
bm no-socket --connect "unix:$logs/none.sock" run true
expect_rc 69
check "no socket: a one-line reason" in_err '^baremon: cannot connect to unix:'
bm no-device --serial /dev/no-such-tty run true
expect_rc 69
check "no device: a one-line reason" in_err '^baremon: cannot open /dev/no-such-tty'
bm silent --serial /dev/ptmx --timeout 3 run true
expect_rc 75
check "a target not answering: a one-line reason" in_err '^baremon: the target is not answering \(3 s'
bm garbage --connect 'exec:head -c 20000 /dev/urandom | tr -d "\000"; cat >/dev/null' --timeout 3 run true
expect_rc 75
check "only garbage on the line (a wrong baud rate): said" in_err 'only garbage \(wrong baud rate\?\)$'
bm panic --cmdline fault=pagefault run true
expect_rc 125
check "panic: said" in_err '^baremon: the target kernel panicked'
check "panic: the report is shown" in_err '^PANIC: '

finish
