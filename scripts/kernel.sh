#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a test kernel from Debian's linux-source-6.1.
#
#   scripts/kernel.sh [debug|bench]      prints the kernel build directory
#
# The kernel is tinyconfig plus scripts/<flavour>.config, built out of tree
# under ${XDG_CACHE_HOME:-~/.cache}/hwtimer/ and cached by the hash of the
# fragment and the source package version: a second run reuses it.
set -euo pipefail

flavour=${1:-debug}
top=$(cd "$(dirname "$0")/.." && pwd)
frag=$top/scripts/$flavour.config
[ -f "$frag" ] || { echo "kernel.sh: no fragment $frag" >&2; exit 2; }

cache=${XDG_CACHE_HOME:-$HOME/.cache}/hwtimer
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
[ -n "$tarball" ] || { echo "kernel.sh: linux-source-6.1 is not installed (run scripts/deps.sh)" >&2; exit 2; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
hash=$( (cat "$frag"; echo "$srcver"; echo "$flavour") | sha256sum | cut -c1-16)
src=$cache/src/linux-source-6.1-$srcver
out=$cache/kernel-$flavour-$hash

# External modules are checked against Module.symvers, which only
# `make modules` writes; this kernel has no modules of its own, so the
# vmlinux symbols are the whole list. Without it modpost warns and skips the
# unresolved-symbol check.
symvers() {
	[ -f "$out/Module.symvers" ] || cp "$out/vmlinux.symvers" "$out/Module.symvers"
}

# Several checkouts may ask for the same kernel at once; one builds, the
# others wait for it (a second build would rm -rf the first one's tree).
mkdir -p "$cache"
exec 9>"$cache/.lock-$flavour-$hash"
flock 9

if [ -f "$out/.hwtimer-built" ]; then
	symvers
	echo "$out"
	exit 0
fi

if [ ! -f "$src/.hwtimer-extracted" ]; then
	echo "kernel.sh: extracting $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -C "$src.tmp" -xf "$tarball"
	mv "$src.tmp/linux-source-6.1" "$src"
	rmdir "$src.tmp"
	touch "$src/.hwtimer-extracted"
fi

echo "kernel.sh: building $flavour kernel in $out (about 3 to 6 minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
{
	make -C "$src" O="$out" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} >"$out/config.log" 2>&1 || { tail -30 "$out/config.log" >&2; exit 1; }

# Every line of the fragment must have survived olddefconfig: a silently
# dropped option would hide the bugs it was meant to catch.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		if grep -q "^$opt=y" "$out/.config"; then echo "kernel.sh: $opt still set" >&2; missing=1; fi ;;
	CONFIG_*=*) grep -qx "$line" "$out/.config" || { echo "kernel.sh: $line did not stick" >&2; missing=1; } ;;
	esac
done < "$frag"
[ $missing = 0 ] || exit 1

if ! make -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1; then
	grep -E "error|Error" "$out/build.log" | head -30 >&2
	exit 1
fi
cp "$frag" "$out/hwtimer-fragment.config"
symvers
touch "$out/.hwtimer-built"
echo "$out"
