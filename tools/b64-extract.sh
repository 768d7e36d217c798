#!/bin/sh
# b64-extract.sh LOG NAME OUT: the file that `b64 FILE` printed on the
# console (apps/b64.c) into OUT: the base64 lines between
# "----- begin b64 NAME -----" and "----- end b64 NAME SIZE -----" in the
# console log LOG (carriage returns ignored), decoded, and checked
# against SIZE. The interim way to take a file off baremon until the
# serial export exists:
#   ./run-qemu.sh --log con.log --session s  # s: record -o /tmp/p.data -- prog
#                                            #    b64 /tmp/p.data
#   tools/b64-extract.sh con.log p.data p.data && perf script -i p.data
# The last such file in LOG wins. Exit status 1 if none is found or the
# size does not match.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 LOG NAME OUT" >&2; exit 2; }
log=$1 name=$2 out=$3
tr -d '\r' <"$log" | awk -v n="$name" -v out="$out.b64" '
	$0 == "----- begin b64 " n " -----" { on = 1; printf "" > out; next }
	on && $1 == "-----" && $2 == "end" && $3 == "b64" && $4 == n { on = 0; size = $5; next }
	on && /^[A-Za-z0-9+\/=]+$/ { print >> out }
	END { if (size == "") exit 1; print size > (out ".size") }' ||
	{ echo "b64-extract: no file $name in $log" >&2; rm -f "$out.b64"; exit 1; }
base64 -d "$out.b64" >"$out"
want=$(cat "$out.b64.size")
rm -f "$out.b64" "$out.b64.size"
got=$(wc -c <"$out")
[ "$got" -eq "$want" ] || { echo "b64-extract: $name: $got bytes, expected $want" >&2; exit 1; }
