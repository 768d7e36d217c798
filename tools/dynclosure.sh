#!/bin/sh
# dynclosure.sh FILE[:DEST]...: for each dynamically linked FILE, print
# the initrd entries (SRC:DEST lines, tools/mkinitrd.sh's form) that run
# it on baremon: FILE at DEST (default /bin/NAME), its interpreter and
# the shared libraries it needs, as the host's ld.so resolves them
# (ldd: DT_NEEDED, RUNPATH and $ORIGIN, ld.so.cache). A library in
# FILE's own directory goes beside DEST (so $ORIGIN finds it there);
# the others at their paths on the host. A static FILE is just itself.
# Libraries a program dlopen()s are not in its closure: add them too.
# ldd runs the host's ld.so on FILE: use it on programs you trust.
set -eu
for spec in "$@"; do
	case $spec in
	*:*) src=${spec%%:*}; dest=${spec#*:} ;;
	*) src=$spec; dest=/bin/ ;;
	esac
	[ -f "$src" ] || { echo "dynclosure: $src: no such file" >&2; exit 1; }
	case $dest in */) dest=$dest$(basename "$src") ;; esac
	echo "$src:$dest"
	here=$(cd "$(dirname "$src")" && pwd -P)
	destdir=$(dirname "$dest")
	out=$(LC_ALL=C ldd "$src" 2>&1) || {
		case $out in *"not a dynamic executable"*) continue ;; esac
		echo "dynclosure: ldd $src: $out" >&2; exit 1; }
	if printf '%s\n' "$out" | grep -q 'not found'; then
		echo "dynclosure: $src needs libraries the host does not have:" >&2
		printf '%s\n' "$out" | grep 'not found' >&2
		exit 1
	fi
	# "name => /path (addr)", or "/path (addr)" for the interpreter
	printf '%s\n' "$out" | sed -n 's/.*=> \(\/[^ ]*\) (.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
	while read -r lib; do
		if [ "$(cd "$(dirname "$lib")" && pwd -P)" = "$here" ]; then
			echo "$lib:$destdir/$(basename "$lib")"
		else
			echo "$lib:$lib"
		fi
	done
done
