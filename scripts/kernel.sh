#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a test kernel from Debian's kernel sources.
#
#   scripts/kernel.sh [FLAVOUR [KERNEL]]    prints the kernel build directory
#   scripts/kernel.sh source [KERNEL]       prints the extracted source tree
#                                           only (no kernel is built)
#
# FLAVOUR is debug (default), bench or kcsan: scripts/FLAVOUR.config.
# KERNEL is one of (default 6.1):
#
#   6.1       linux-source-6.1, Debian 12's stock series
#   6.12      linux-source-6.12
#   6.12-rt   linux-source-6.12 with PREEMPT_RT (scripts/rt.config)
#
# The kernel is x86_64 tinyconfig plus, in this order (a later line wins):
# scripts/FLAVOUR.config, scripts/linux-VERSION.config if it exists (what
# that source version needs on top) and scripts/rt.config for an -rt
# kernel. It is built out of tree under ${XDG_CACHE_HOME:-~/.cache}/hwtimer/
# and cached by the hash of that merged fragment and the source package
# version: a second run reuses it.
set -euo pipefail

flavour=${1:-debug}
kernel=${2:-${KERNEL:-6.1}}
top=$(cd "$(dirname "$0")/.." && pwd)

case "$kernel" in
6.1 | 6.12 | 6.12-rt) ;;
*) echo "kernel.sh: unknown KERNEL=$kernel (6.1, 6.12 or 6.12-rt)" >&2; exit 2 ;;
esac
srcv=${kernel%-rt}
pkg=linux-source-$srcv
tarball=/usr/src/$pkg.tar.xz
[ -f "$tarball" ] || { echo "kernel.sh: $pkg is not installed (run scripts/deps.sh)" >&2; exit 2; }
srcver=$(dpkg-query -W -f='${Version}' "$pkg")

cache=${XDG_CACHE_HOME:-$HOME/.cache}/hwtimer
src=$cache/src/$pkg-$srcver
mkdir -p "$cache"

# One extraction per source version; two kernels of one version share it.
extract() {
	exec 7>"$cache/.lock-src-$pkg"
	flock 7
	if [ ! -f "$src/.hwtimer-extracted" ]; then
		echo "kernel.sh: extracting $tarball" >&2
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -C "$src.tmp" -xf "$tarball"
		mv "$src.tmp/$pkg" "$src"
		rmdir "$src.tmp"
		touch "$src/.hwtimer-extracted"
	fi
	flock -u 7
}

# The sources alone: the user-space tests take kselftest_harness.h from
# them, and need no kernel build for it.
if [ "$flavour" = source ]; then
	extract
	echo "$src"
	exit 0
fi

frags=("$top/scripts/$flavour.config")
[ -f "${frags[0]}" ] || { echo "kernel.sh: no fragment ${frags[0]}" >&2; exit 2; }
[ -f "$top/scripts/linux-$srcv.config" ] && frags+=("$top/scripts/linux-$srcv.config")
[ "$kernel" = "$srcv" ] || frags+=("$top/scripts/rt.config")

# The effective fragment: every option's last setting, in the order the
# options first appear. Merged by merge_config.sh the same way.
merged=$(mktemp "$cache/.frag.XXXXXX")
trap 'rm -f "$merged"' EXIT
awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { opt = $0; sub(/=.*/, "", opt) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { opt = $2 }
	opt != "" { if (!(opt in val)) order[n++] = opt; val[opt] = $0; opt = "" }
	END { for (i = 0; i < n; i++) print val[order[i]] }
' "${frags[@]}" >"$merged"

hash=$( (cat "$merged"; echo "$srcver"; echo "$flavour $kernel") | sha256sum | cut -c1-16)
out=$cache/kernel-$flavour-$kernel-$hash

# External modules are checked against Module.symvers, which only
# `make modules` writes; this kernel has no modules of its own, so the
# vmlinux symbols are the whole list. Without it modpost warns and skips the
# unresolved-symbol check.
symvers() {
	[ -f "$out/Module.symvers" ] || cp "$out/vmlinux.symvers" "$out/Module.symvers"
}

# Several checkouts may ask for the same kernel at once; one builds, the
# others wait for it (a second build would rm -rf the first one's tree).
exec 9>"$cache/.lock-$flavour-$kernel-$hash"
flock 9

if [ -f "$out/.hwtimer-built" ]; then
	symvers
	echo "$out"
	exit 0
fi

extract

echo "kernel.sh: building the $flavour $kernel kernel in $out (5 to 20 minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
cp "$merged" "$out/hwtimer-fragment.config"
{
	make -C "$src" O="$out" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} >"$out/config.log" 2>&1 || { tail -30 "$out/config.log" >&2; exit 1; }

# Every line of the fragment must have survived olddefconfig: a silently
# dropped option would hide the bugs it was meant to catch (6.12's
# tinyconfig, for one, sets SLUB_TINY, which turns KASAN off).
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		if grep -q "^$opt=" "$out/.config"; then echo "kernel.sh: $opt still set" >&2; missing=1; fi ;;
	CONFIG_*=*) grep -qx "$line" "$out/.config" || { echo "kernel.sh: $line did not stick" >&2; missing=1; } ;;
	esac
done <"$out/hwtimer-fragment.config"
[ $missing = 0 ] || exit 1

if ! make -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1; then
	grep -E "error|Error" "$out/build.log" | head -30 >&2
	exit 1
fi
symvers
touch "$out/.hwtimer-built"
echo "$out"
