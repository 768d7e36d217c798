#!/usr/bin/env bash
# loader.sh: the loader refuses a kernel that is missing or not a valid
# ELF, says why, and run-qemu calls it a boot failure (126); it finds the
# files next to itself; an over-long command-line file is cut with a
# warning.
. "$(dirname "$0")/lib.sh"

echo "this is a text file, not a kernel" > "$logs/garbage.elf"
guest garbage --kernel "$logs/garbage.elf"
expect_rc 126
expect_line '^baremon-loader: error: bad kernel ELF: .+' "loader gives the reason"
expect_err '^run-qemu: boot failure: bad kernel ELF: .+' "run-qemu passes the reason on"
expect_no_line '^baremon .* booting' "the kernel never started"

# A real ELF header whose segments lie past the end of the file.
head -c 4096 "$build/kernel.elf" > "$logs/truncated.elf"
guest truncated --kernel "$logs/truncated.elf"
expect_rc 126
expect_line '^baremon-loader: error: bad kernel ELF: .+' "loader gives the reason"
expect_no_line '^baremon .* booting' "the kernel never started"

# No kernel on the ESP at all.
guest no-kernel --kernel none
expect_rc 126
expect_line '^baremon-loader: error: reading the kernel \\baremon\\kernel\.elf: Not Found' \
	"loader names the missing file"
expect_no_line '^baremon .* booting' "the kernel never started"

# Kernel, initrd and command line in the loader's own folder, no
# \baremon\; the command-line file is longer than the loader takes: the
# first 1023 bytes are kept (the options at its start work), with a
# warning.
{ printf 'qemu_exit=0xf4 session=/etc/session pad='; head -c 1200 /dev/zero | tr '\0' x; echo; } \
	> "$logs/long-cmdline.txt"
guest flat-esp --flat-esp --cmdline-file "$logs/long-cmdline.txt" --run 'exit 4'
expect_rc 4
expect_line '^baremon-loader: files from \\EFI\\BOOT\\kernel\.elf$' "files found next to the loader"
expect_line '^baremon-loader: warning: .*cmdline\.txt is longer than 1023 bytes; the rest is ignored$' \
	"the loader says the command line was cut"
expect_line "^cmdline: unknown option 'pad' ignored" "the kernel names the unknown word"

finish
