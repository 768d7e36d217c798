#!/usr/bin/env bash
# abi.sh: the ABI test programs (tests/abi/), built with libc-lite, musl
# and glibc, run on baremon with 1 and with 4 CPUs; each must pass the
# same assertions it passes on the host Linux (tests/abi/run-host.sh).
. "$(dirname "$0")/lib.sh"

names=$(cd "$top/tests/abi" && ls ./*.c | sed 's|^\./||; s|\.c$||')
builds="libc-lite musl host"
session=$logs/abi.session
adds=()
: > "$session"
for b in $builds; do
	for n in $names; do
		bin=$build/abi/$b/$n
		[ -x "$bin" ] || { echo "not ok - abi: $bin not built (make abi)"; failed=$((failed + 1)); continue; }
		adds+=(--add "$bin:/bin/abi-$b-$n")
		printf 'abi-%s-%s\necho "status %s-%s $?"\n' "$b" "$n" "$b" "$n" >> "$session"
	done
done

for smp in 1 4; do
	guest abi-smp$smp --smp "$smp" --mem 1G --session "$session" "${adds[@]}"
	expect_rc 0
	for b in $builds; do
		for n in $names; do
			expect_line "^status $b-$n 0\$" "$b build of $n passes (exit 0)"
		done
	done
	expect_no_line '^not ok' "no assertion failed"
	expect_no_line '^PANIC' "no panic"
done

finish
