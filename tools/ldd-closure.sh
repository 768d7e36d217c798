#!/bin/sh
# ldd-closure.sh PROGRAM...: the files dynamically linked programs need at
# run time on this machine, one "SOURCE:DEST" line each (the --add syntax
# of run-qemu.sh and tools/linux-ref.sh): the interpreter and the shared
# libraries ld.so resolves for them here; SOURCE is the real file
# (symbolic links followed), DEST the path ld.so opens. A static program
# needs nothing and adds nothing. Fails, naming it, if a library is missing.
set -eu
lines=""
for prog in "$@"; do
	[ -f "$prog" ] || { echo "ldd-closure: no program '$prog'" >&2; exit 1; }
	# "name => /path (addr)", "/path (addr)" for the interpreter,
	# "name => not found" for a missing library; a static program
	# makes ldd fail.
	out=$(LC_ALL=C ldd "$prog" 2>/dev/null) || continue
	missing=$(printf '%s\n' "$out" | awk '$3 == "not" { print $1 }')
	[ -z "$missing" ] || { echo "ldd-closure: $prog needs" $missing "(not found)" >&2; exit 1; }
	for dest in $(printf '%s\n' "$out" | awk '$2 == "=>" { print $3; next } { print $1 }'); do
		case $dest in
		/*) lines="$lines$(readlink -f "$dest"):$dest
" ;;
		esac
	done
done
printf '%s' "$lines" | sort -u
