#!/usr/bin/env bash
# wire.sh: the virtio console as the frames' line (docs/export.md, "The
# virtio console"): the host tool's --export boots QEMU with export=virtio
# and runs one session over it: a 1 MiB push and its pull, intact (the
# transfers the 16550 took 25 to 45 s for; how fast is the bench's
# business, make export-bench, not this test's), a command's output; and
# record --export -g through it, every record arrived, none packed (the
# virtio line sends them as they are).
. "$(dirname "$0")/lib.sh"

tool=$build/baremon
big=$build/musl/big1m
work=$build/musl/recwork
export HOME=$logs/home
mkdir -p "$HOME"
tmo=${HOST_TOOL_TIMEOUT:-900}

# bm NAME ARGS...: the tool, bounded; rc, out and err set. A loaded host
# boots slowly: the tool gets as long without progress as the test.
bm() {
	name=$1
	shift
	out=$logs/$name.out
	err=$logs/$name.err
	log=$err
	timeout "$tmo" "$tool" --timeout "$tmo" "$@" >"$out" 2>"$err"
	rc=$?
}
in_out() { grep -Eq -- "$1" "$out"; }
in_err() { grep -Eq -- "$1" "$err"; }

check "the tool and the 1 MiB program are built" test -x "$tool" -a -r "$big"
cat >"$logs/x.session" <<EOS
push $big /tmp/big1m
pull /tmp/big1m $logs/big1m.back
run cat /proc/version
expect baremon
EOS
bm session -v --export session "$logs/x.session"
expect_rc 0
check "virtio console: the kernel took it (export=virtio)" \
	in_err 'serial: export=virtio \(PCI [0-9a-f:.]+, io 0x[0-9a-f]+\): /dev/export'
check "virtio console: the session passed" in_out '^session: 4 passed, 0 failed$'
check "virtio console: 1 MiB pushed and pulled back intact" cmp -s "$big" "$logs/big1m.back"
check "virtio console: no line damage" sh -c "! grep -q 'line damage' '$err'"
bm record --export --smp 2 record --export -e page-faults -c 1 -g -o "$logs/v.data" -- "$work" 10 1024
expect_rc 0
check "record --export over the virtio console: every record, nothing lost" \
	in_err 'exported by the kernel: 2 stream\(s\) \(2 ended\), [1-9][0-9]* bytes, [0-9]+ records, [1-9][0-9]{3,} samples, 0 LOST records .* 0 dropped unreported, 0 bytes of frames missing, 0 bytes cut'
check "record --export over the virtio console: sent unpacked (export_pack off there)" \
	in_err 'the line carried [0-9]+ payload bytes for them \(1\.0 to 1; 0 packed frames'
perf report --stdio -i "$logs/v.data" >"$logs/v.txt" 2>&1
check "record --export over the virtio console: perf report finds touch_pages" \
	grep -q touch_pages "$logs/v.txt"

finish
