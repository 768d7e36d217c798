#!/usr/bin/env bash
# image.sh: the GPT disk image (tools/mkimage.sh, as `make image` builds it)
# boots through GRUB's default menu entry, which chainloads baremon's loader
# with its command line; here that line runs one self-test (of the kernel
# built with them) and powers off.
. "$(dirname "$0")/lib.sh"

img=$logs/baremon.img
# shellcheck disable=SC2317 # called by check
mkimage() {
	sh "$top/tools/mkimage.sh" "$selftest_build/esp" "$img" --menu-timeout 0 \
		--cmdline 'qemu_exit=0xf4 selftest=ksyms_lookup' > "$log" 2>&1
}
name=mkimage log=$logs/mkimage.log
check "tools/mkimage.sh builds an image of the ESP" mkimage

guest grub --disk "$img"
expect_rc 0
expect_line '^baremon [^ ]+ booting ' "banner"
expect_line '^\[ *[0-9.]+\] cmdline: .*bootloader=grub .*selftest=ksyms_lookup' \
	"command line from the GRUB menu entry"
expect_line '^ok [0-9]+ ksyms_lookup$' "the self-test ran"

finish
