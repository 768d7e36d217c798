#!/usr/bin/env bash
# memmap.sh: a fragmented UEFI memory map. loader.fragment=1500 makes the
# loader scatter 1500 reserved pages through free memory before it takes
# the map (boot/loader.c), about 3000 entries: more than the 2048 regions
# the loader's table holds. The table fills, the smallest usable regions
# give way (the kernel's own regions, ACPI and firmware ones are kept),
# the kernel says how many it lost, and it boots and runs programs that
# use many pages.
. "$(dirname "$0")/lib.sh"

guest_timeout=${GUEST_TIMEOUT:-240} # malloc_stress: 19 s alone on a busy host
guest memmap-fragmented --smp 2 --cmdline loader.fragment=1500 \
	--add "$build/musl/malloc_stress" --run malloc_stress
expect_rc 0
expect_line '^baremon-loader: loader.fragment=1500: 1500 reserved pages scattered' \
	"the loader fragments the map"
expect_line '\] pmm: [0-9]+ MiB usable in 2048 regions' "the table is full: 2048 regions"
expect_line '\] pmm: warning: [0-9]+ memory map regions did not fit the loader.s table of 2048; their memory is not used$' \
	"the regions that did not fit are counted and named"
usable=$(sed -nE 's/.*\] pmm: ([0-9]+) MiB usable in.*/\1/p' "$log" | head -n 1)
check "most memory is still usable ($usable MiB of 512)" [ "${usable:-0}" -ge 400 ]
expect_line '^malloc stress ok$' "a program that uses many pages runs"
expect_no_line '^PANIC' "no panic"
finish
