#!/usr/bin/env bash
# qemu-new.sh: a newer QEMU (Debian bookworm-backports' qemu-system-x86,
# 10.x) for the tests that need what bookworm's QEMU 7.2 lacks under TCG:
# x2APIC and APIC IDs above 255 (docs/boot.md, "x2APIC").
#
#   tools/qemu-new.sh          prints the path of a qemu-system-x86_64 to run
#
# Downloaded once into build/qemu-new/ with `apt-get download` against a
# private sources list (bookworm + bookworm-backports) and private package
# lists; the packages apt would install or upgrade for qemu-system-x86 from
# backports are unpacked with `dpkg-deb -x` under build/qemu-new/root.
# Nothing is installed system-wide: the rest of the suite keeps QEMU 7.2.
# The printed path is a wrapper that points the loader, QEMU's data
# directory (-L) and its module directory at the unpacked tree.
# Exit status 2 with a reason on stderr when the download is impossible.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BAREMON_BUILD:-$top/build}
cache=$build/qemu-new
wrapper=$cache/qemu-system-x86_64
die() { echo "qemu-new: $*" >&2; exit 2; }

if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
	echo "$wrapper"
	exit 0
fi

mkdir -p "$cache/lists/partial" "$cache/apt/archives/partial" "$cache/deb"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$cache/sources.list" <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm main
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm-updates main
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm-backports main
EOF
apt_opts=(-o "Dir::Etc::SourceList=$cache/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$cache/lists"
	-o "Dir::Cache=$cache/apt"
	-o "Debug::NoLocking=1")

echo "qemu-new: fetching the bookworm-backports package lists (once; cached in $cache)" >&2
apt-get "${apt_opts[@]}" update >&2 || die "apt-get update against bookworm-backports failed (no network?)"

# What installing qemu-system-x86 from backports would bring in or upgrade
# on this system: those packages (and only those) are unpacked.
pkgs=$(apt-get "${apt_opts[@]}" -s -t bookworm-backports install --no-install-recommends \
	qemu-system-x86 2>/dev/null | awk '/^Inst / { print $2 }')
[ -n "$pkgs" ] || die "apt knows no qemu-system-x86 in bookworm-backports"
echo "qemu-new: downloading $(echo $pkgs | wc -w) packages: $(echo $pkgs)" >&2
rm -f "$cache/deb"/*.deb
# shellcheck disable=SC2086
(cd "$cache/deb" && apt-get "${apt_opts[@]}" -t bookworm-backports download $pkgs >&2) ||
	die "apt-get download failed"

rm -rf "$cache/root" && mkdir -p "$cache/root"
for deb in "$cache/deb"/*.deb; do
	dpkg-deb -x "$deb" "$cache/root"
done
bin=$cache/root/usr/bin/qemu-system-x86_64
[ -x "$bin" ] || die "no qemu-system-x86_64 in the unpacked packages"

root=$cache/root
cat > "$wrapper" <<EOF
#!/bin/sh
# Written by tools/qemu-new.sh: QEMU from bookworm-backports, unpacked here.
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export QEMU_MODULE_DIR="$root/usr/lib/x86_64-linux-gnu/qemu"
exec "$bin" -L "$root/usr/share/qemu" -L /usr/share/qemu "\$@"
EOF
chmod +x "$wrapper"
"$wrapper" --version >&2 || die "the unpacked QEMU does not run (a library missing?)"
rm -rf "$cache/deb" "$cache/apt/archives"
echo "$wrapper"
