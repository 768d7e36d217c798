#!/bin/sh
# Make a bootable GPT disk image: one EFI system partition holding GRUB
# (as \EFI\BOOT\BOOTX64.EFI, menu from boot/grub.cfg.in), baremon's loader
# (\EFI\baremon\loader.efi), the kernel and the initrd (\baremon\).
# Write it to a USB stick with dd; QEMU boots it with run-qemu.sh --disk.
#
# Usage: mkimage.sh ESP_DIR OUT [--cmdline 'ARGS'] [--menu-timeout S]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 ESP_DIR OUT [--cmdline ARGS] [--menu-timeout S]" >&2; exit 2; }
esp=$1
out=$2
shift 2
extra=""
menu_timeout=3
while [ $# -gt 0 ]; do
	case $1 in
	--cmdline) extra=$2; shift ;;
	--menu-timeout) menu_timeout=$2; shift ;;
	*) echo "mkimage: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sed -e "s|@CMDLINE@|$extra|" -e "s|@TIMEOUT@|$menu_timeout|" \
	"$top/boot/grub.cfg.in" > "$work/grub.cfg"
grub-mkstandalone -O x86_64-efi -o "$work/grub.efi" \
	--modules="part_gpt part_msdos fat search search_fs_file chain serial terminal efi_gop" \
	--locales="" --themes="" --fonts="" \
	"boot/grub/grub.cfg=$work/grub.cfg"

# The partition: FAT, sized for its contents with room to spare.
size_kb=$(du -sk "$esp" "$work/grub.efi" | awk '{ s += $1 } END { print s }')
part_mb=$(( size_kb / 1024 + 16 ))
part=$work/esp.img
dd if=/dev/zero of="$part" bs=1M count="$part_mb" status=none
mkfs.fat -n BAREMON "$part" >/dev/null
mmd -i "$part" ::/EFI ::/EFI/BOOT ::/EFI/baremon ::/baremon
mcopy -i "$part" "$work/grub.efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$part" "$esp/EFI/BOOT/BOOTX64.EFI" ::/EFI/baremon/loader.efi
mcopy -i "$part" "$esp/baremon/kernel.elf" "$esp/baremon/initrd.cpio" ::/baremon/

# The disk: GPT, the partition at 1 MiB, 1 MiB spare at the end for the
# backup GPT.
dd if=/dev/zero of="$out" bs=1M count=$((part_mb + 2)) status=none
sgdisk --clear --new=1:2048:+${part_mb}M --typecode=1:ef00 \
	--change-name=1:"baremon ESP" "$out" >/dev/null
dd if="$part" of="$out" bs=1M seek=1 conv=notrunc status=none
echo "mkimage: $out ($((part_mb + 2)) MiB GPT disk, ESP with GRUB + baremon)"
