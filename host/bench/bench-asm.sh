#!/bin/sh
# bench-asm.sh: assemble a nanoBench -asm string into the raw machine code
# `bench -code FILE` takes (docs/bench.md).
#
#   host/bench/bench-asm.sh 'ADD RAX, RBX; add RBX, RAX' OUT.bin
#
# The string is Intel syntax as nanoBench takes it: statements separated
# by ';', `|n` (1 <= n <= 15) for an n-byte NOP, and MASM/GAS's `ptr` in
# operand sizes (`qword ptr [rax]`) accepted. NASM (`bits 64`, -f bin)
# assembles it; its error messages are printed as NASM prints them, with
# line numbers counting statements, and the exit status is NASM's.
# This is the entry point the host tool (`baremon bench`) calls too.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 'ASM; ASM; ...' OUT.bin" >&2
	exit 2
fi
command -v nasm >/dev/null 2>&1 || { echo "$0: nasm is not installed (apt-get install nasm)" >&2; exit 127; }
src=$(mktemp --suffix=.asm)
trap 'rm -f "$src"' EXIT
# One statement per line; |n becomes db with an n-byte NOP (the Intel SDM's
# recommended forms up to 9 bytes, 66h prefixes in front beyond that).
printf '%s\n' "$1" | tr ';' '\n' | awk '
BEGIN {
	nop[1] = "0x90"; nop[2] = "0x66,0x90"; nop[3] = "0x0f,0x1f,0x00"
	nop[4] = "0x0f,0x1f,0x40,0x00"; nop[5] = "0x0f,0x1f,0x44,0x00,0x00"
	nop[6] = "0x66,0x0f,0x1f,0x44,0x00,0x00"; nop[7] = "0x0f,0x1f,0x80,0x00,0x00,0x00,0x00"
	nop[8] = "0x0f,0x1f,0x84,0x00,0x00,0x00,0x00,0x00"
	nop[9] = "0x66,0x0f,0x1f,0x84,0x00,0x00,0x00,0x00,0x00"
	print "bits 64"
}
{
	s = $0
	gsub(/^[ \t]+|[ \t]+$/, "", s)
	if (s ~ /^\|[0-9]+$/) {
		n = substr(s, 2) + 0
		if (n < 1 || n > 15) { print "%error \"|" n ": a NOP is 1 to 15 bytes\""; next }
		pre = ""
		for (; n > 9; n--) pre = pre "0x66,"
		print "db " pre nop[n]
		next
	}
	gsub(/[ \t][pP][tT][rR][ \t]/, " ", s)
	print s
}' > "$src"
nasm -f bin -o "$2" "$src"
