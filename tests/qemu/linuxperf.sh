#!/usr/bin/env bash
# linuxperf.sh: Debian's own perf (the build machine's /usr/bin/perf and
# its libraries, at their paths) inside baremon, its loader named by hand:
# perf stat of a known loop counts its user instructions exactly under
# --icount, perf stat runs a dynamic /bin/ls, perf record -g
# (instructions:u, a sample every 2003) writes a
# perf.data that perf report --stdio and perf script read back inside,
# with the loop's two functions in a 3:1 ratio, and perf record of a
# dynamic /bin/ls resolves its samples in libc to libc's symbols. With log_missing, no call
# perf makes is left unimplemented but the ones it copes with (listed
# below). Skipped without /usr/bin/perf (Debian's linux-perf).
. "$(dirname "$0")/lib.sh"

if [ ! -x /usr/bin/perf ] || ! ldd /usr/bin/perf >/dev/null 2>&1; then
	ok "skip: no /usr/bin/perf here (apt-get install linux-perf)"
	finish
fi

# the programs and their libraries at the paths ld.so opens
adds=(--add /usr/bin/perf:/usr/bin/perf --add /bin/ls:/bin/ls)
while read -r f; do
	adds+=(--add "$f")
done < <("$top/tools/ldd-closure.sh" /usr/bin/perf /bin/ls)

ld=/lib64/ld-linux-x86-64.so.2
n=200000 # twofunc: 4n iterations of a five-instruction loop
session=$logs/linuxperf.session
cat >"$session" <<SESSION
echo "== stat"
$ld /usr/bin/perf stat -x, -e instructions:u -- /bin/twofunc $n
echo "== ls"
$ld /usr/bin/perf stat -e instructions:u,task-clock -- $ld /bin/ls /bin
echo "== record"
$ld /usr/bin/perf record -g -e instructions:u -c 2003 -o /tmp/perf.data -- /bin/twofunc $n
echo "== report"
$ld /usr/bin/perf report -i /tmp/perf.data --stdio --no-children --sort sym
echo "== script"
$ld /usr/bin/perf script -i /tmp/perf.data
echo "== record-dyn"
$ld /usr/bin/perf record -e instructions:u -c 20011 -o /tmp/dyn.data -- /bin/ls -l /usr/lib/x86_64-linux-gnu
echo "== report-dyn"
$ld /usr/bin/perf report -i /tmp/dyn.data --stdio --sort dso,sym
echo "== end"
SESSION

guest_timeout=$((${GUEST_TIMEOUT:-90} * 3))
guest linuxperf --icount 4 --mem 1G --cmdline log_missing --session "$session" \
	--add "$build/musl/twofunc:/bin/twofunc" "${adds[@]}"
expect_rc 0
expect_line '^== end$' "the session ran to its end"
expect_no_line '^PANIC' "no panic"
expect_line "missing: logging every ENOSYS" "log_missing is on"

# perf stat -x,: value,unit,event,...
v=$(sed -n '/^== stat$/,/^== ls$/p' "$log" | awk -F, '$3 ~ /^instructions:u/ { print $1 }')
lo=$((20 * n)) hi=$((20 * n + 20000))
check "perf stat counts twofunc's user instructions: $v in [$lo, $hi]" \
	test -n "$v" -a "${v:-0}" -ge $lo -a "${v:-0}" -le $hi
expect_line 'Performance counter stats for .*/bin/ls /bin' "perf stat runs a dynamic /bin/ls"
check "ls listed the initrd's /bin" \
	sh -c "sed -n '/^== ls$/,/^== record$/p' '$log' | grep -q twofunc"
expect_line '\[ perf record: Captured and wrote' "perf record wrote its file"
# the kernel's log lines (log_missing) come between perf's own lines
section() { sed -n "/^== $1\$/,/^== $2\$/p" "$log" | grep -Ev '^\[ *[0-9.]+\] '; }
rep=$(section report script)
h=$(echo "$rep" | awk '$2 == "[.]" && $NF == "heavy" { sub("%", "", $1); print $1 }' | head -1)
l=$(echo "$rep" | awk '$2 == "[.]" && $NF == "light" { sub("%", "", $1); print $1 }' | head -1)
check "perf report --stdio names heavy ($h%) about 3x light ($l%)" \
	awk -v h="${h:-0}" -v l="${l:-0}" 'BEGIN { exit !(l > 0 && h / l > 2.4 && h / l < 3.6) }'
callers=$(section script record-dyn | grep -A1 ' heavy+0x[0-9a-f]* (/bin/twofunc)' |
	grep -v ' heavy+' | grep -c '+0x[0-9a-f]* (/bin/twofunc)')
check "perf script shows samples in heavy with their callers ($callers)" test "$callers" -gt 0

# A dynamic program's samples in libc resolve to libc's symbols: its
# mapping is named by the library's path (MMAP2), which perf opens.
dyn=$(section report-dyn end)
libc_syms=$(echo "$dyn" | awk '$2 ~ /^libc\.so/ && $3 == "[.]" && $4 !~ /^0x/' | wc -l)
check "perf report of a dynamic /bin/ls names symbols in libc ($libc_syms)" \
	test "$libc_syms" -gt 0

# What perf asks for and copes without, on Linux too: bpf (no BPF
# here), unshare (perf's namespace switch), rseq (glibc's; ENOSYS on
# purpose). Anything else is new (clone3, glibc's first choice for its
# threads, is implemented).
others=$(grep -o 'missing: [^ ]* [a-z0-9_]*(' "$log" | sed 's/.* //; s/($//' |
	grep -vxE 'bpf|unshare|rseq' | sort -u | tr '\n' ' ')
check "no other system call perf makes is missing (${others:-none})" test -z "$others"
finish
