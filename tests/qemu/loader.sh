#!/usr/bin/env bash
# loader.sh: the loader refuses a kernel that is not a valid ELF, says why,
# and run-qemu calls it a boot failure (126).
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

finish
