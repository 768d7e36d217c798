#!/bin/sh
# Make sure the build and test dependencies are installed (Debian 12).
# As root, missing packages are installed with apt-get; otherwise the exact
# command is printed and the script fails. Run by `make` before building.
set -eu

# package:file-that-proves-it-is-installed
NEEDS="
gcc:/usr/bin/gcc
g++:/usr/bin/g++
make:/usr/bin/make
binutils:/usr/bin/objcopy
nasm:/usr/bin/nasm
gnu-efi:/usr/lib/crt0-efi-x86_64.o
ovmf:/usr/share/ovmf/OVMF.fd
qemu-system-x86:/usr/bin/qemu-system-x86_64
mtools:/usr/bin/mcopy
dosfstools:/sbin/mkfs.fat
grub-efi-amd64-bin:/usr/lib/grub/x86_64-efi/modinfo.sh
grub-common:/usr/bin/grub-mkstandalone
gdisk:/usr/sbin/sgdisk
linux-libc-dev:/usr/include/linux/perf_event.h
musl-tools:/usr/bin/musl-gcc
cpio:/usr/bin/cpio
libcmocka-dev:/usr/include/cmocka.h
libzstd-dev:/usr/include/zstd.h
libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a
linux-perf:/usr/bin/perf
clang:/usr/bin/clang
gnuplot-nox:/usr/bin/gnuplot
libpfm4-dev:/usr/include/perfmon/pfmlib.h
libpapi-dev:/usr/include/papi.h
papi-tools:/usr/bin/papi_avail
likwid:/usr/bin/likwid-topology
python3-jinja2:/usr/lib/python3/dist-packages/jinja2/__init__.py
python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py
lava-dispatcher:/usr/bin/lava-run
"

missing=""
for entry in $NEEDS; do
	pkg=${entry%%:*}
	file=${entry#*:}
	[ -e "$file" ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "baremon: missing packages:$missing" >&2
	echo "baremon: install them with: sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
echo "baremon: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
$cmd -qq >&2
