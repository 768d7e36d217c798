#!/bin/sh
# Build the initrd: a cpio "newc" archive (the format Linux uses).
# Usage: mkinitrd.sh OUT [SRC[:DEST]]...
#   Each SRC is copied to DEST inside the archive; DEST defaults to
#   /bin/<name of SRC>. A DEST ending in / keeps SRC's name under it.
# Every archive holds /etc/baremon-release, the files under initrd/ and
# the user programs in $BAREMON_BUILD/apps (default build/apps) as /bin/NAME.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT [SRC[:DEST]]..." >&2; exit 2; }
out=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/bin" "$stage/etc" "$stage/tmp"
if [ -d "$top/initrd" ]; then
	cp -R "$top/initrd/." "$stage/"
fi
apps=${BAREMON_BUILD:-$top/build}/apps
for app in "$apps"/*; do
	[ -f "$app" ] && [ -x "$app" ] && cp "$app" "$stage/bin/"
done
version=$(git -C "$top" describe --always --dirty 2>/dev/null || echo dev)
echo "baremon $version" > "$stage/etc/baremon-release"

for spec in "$@"; do
	case $spec in
	*:*) src=${spec%%:*}; dest=${spec#*:} ;;
	*) src=$spec; dest=/bin/ ;;
	esac
	[ -f "$src" ] || { echo "mkinitrd: $src: no such file" >&2; exit 1; }
	case $dest in
	*/) dest=$dest$(basename "$src") ;;
	esac
	dest=${dest#/}
	mkdir -p "$stage/$(dirname "$dest")"
	cp "$src" "$stage/$dest"
done

mkdir -p "$(dirname "$out")"
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --quiet --owner=0:0 > "$out_abs")
