#!/usr/bin/env bash
# dyn.sh: dynamic programs on baremon (tests/dyn/, built the ordinary way
# with Debian's gcc and g++): each is put in the initrd with its
# interpreter and libraries (run-qemu.sh --add-dyn), run from the
# session, and must exit 0 and print exactly the lines it prints on the
# host Linux (tests/dyn/run-host.sh), in one guest with 2 CPUs.
. "$(dirname "$0")/lib.sh"

dyn=$build/dyn
names="hello hello-nopie threads tls dlopen cxx vdso execerr aslr"
expected=$logs/host
DYN_OUT=$expected BAREMON_BUILD=$build sh "$top/tests/dyn/run-host.sh" > "$logs/host.txt" 2>&1
check "the programs pass on the host first" grep -q '^dyn-host: [0-9]* passed, 0 failed$' "$logs/host.txt"

adds=(--add "$dyn/libdynplug.so:/bin/libdynplug.so")
session=$logs/dyn.session
: > "$session"
for n in $names; do
	adds+=(--add-dyn "$dyn/dyn-$n:/bin/dyn-$n")
	printf 'echo "start %s"\ndyn-%s\necho "status %s $?"\n' "$n" "$n" "$n" >> "$session"
done
printf 'echo "start hello-direct"\n/lib64/ld-linux-x86-64.so.2 /bin/dyn-hello direct\necho "status hello-direct $?"\n' >> "$session"

guest dyn --smp 2 --mem 1G --session "$session" "${adds[@]}"
expect_rc 0
for n in $names hello-direct; do
	expect_line "^status $n 0\$" "dyn-$n exits 0"
	# Its lines in the guest's log: from its start marker to its status.
	sed -n "/^start $n\$/,/^status $n /p" "$log" | grep -v '^\[ *[0-9.]*\]' > "$logs/$n.guest"
	missing=$(grep -v '^#' "$expected/$n.out" | grep -Fxv -f "$logs/$n.guest")
	if [ -z "$missing" ] && [ -s "$expected/$n.out" ]; then
		ok "dyn-$n prints the host's $(grep -vc '^#' "$expected/$n.out") lines"
	else
		not_ok "dyn-$n prints the host's lines"
		printf '%s\n' "$missing" | sed 's/^/#   missing: /'
	fi
done
expect_no_line '^not ok' "no assertion failed"
expect_no_line '^PANIC' "no panic"
finish
