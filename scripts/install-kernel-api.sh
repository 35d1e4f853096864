#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install-kernel-api` (part of `make install`): what a module outside
# this tree needs to call hwtimer's kernel API, for the kernel of KDIR
# (scripts/kdir.sh).
#
#   scripts/install-kernel-api.sh DIR
#
# DIR is DESTDIR/PREFIX/src/hwtimer-headers-VERSION. Installs
# DIR/include/linux/hwtimer.h (the kernel API) and DIR/<kernel
# release>/Module.symvers (hwtimer's exported symbols and, where the
# kernel has CONFIG_MODVERSIONS, their CRCs), from a build of hwtimer.ko
# against that kernel in build/kapi/<kernel release>/, a copy of kmod/ and
# include/ (kbuild writes its objects beside the sources, and the
# checkout's own build may be for another kernel). A dependent module's
# Kbuild takes the header with ccflags-y and the symbols with
# KBUILD_EXTRA_SYMBOLS (README.md, "Module authors"); the directory per
# kernel release lets one install serve several kernels. (Not
# /usr/src/hwtimer-VERSION: with PREFIX=/usr that is DKMS's copy of the
# sources.)
#
# Environment: KDIR, HWT_OUT (build/ by default).
set -euo pipefail
dir=${1:?usage: install-kernel-api.sh DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
unset MAKEFLAGS MFLAGS MAKELEVEL

die() {
	echo "install-kernel-api: $*" >&2
	exit 1
}

kdir=$(scripts/kdir.sh) || die "no kernel build tree (scripts/kdir.sh says why, above)"
[ -d "$kdir" ] || die "no kernel build tree at $kdir (give KDIR=<a configured kernel tree>)"
# The release the kernel reports (uname -r), and the one kbuild calls
# KERNELRELEASE in a plain build against the tree: Debian's header trees
# say 6.1.192 in include/config/kernel.release for a 6.1.0-57-amd64
# kernel (DKMS passes KERNELRELEASE=$(uname -r)). Both names lead to the
# file.
uts=$kdir/include/generated/utsrelease.h
rel=$kdir/include/config/kernel.release
for f in "$uts" "$rel"; do
	[ -r "$f" ] || die "$kdir is not a configured kernel build tree: no ${f#"$kdir"/} (give KDIR=<a configured kernel tree>)"
done
krel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$uts")
kbrel=$(cat "$rel")
[ -n "$krel" ] || die "$uts defines no UTS_RELEASE"
[ -n "$kbrel" ] || die "$rel is empty"
tree=${HWT_OUT:-$top/build}/kapi/$krel
mkdir -p "$tree"
find kmod include -type f \( -name '*.[ch]' -o -name Kbuild \) -print0 |
	tar --null -cf - -T - | tar -C "$tree" -xf -
echo "obj-y += kmod/" >"$tree/Kbuild"
if ! make -C "$kdir" M="$tree" -j"$(nproc)" modules >"$tree.log" 2>&1; then
	cat "$tree.log" >&2
	die "building hwtimer.ko against $kdir failed (above)"
fi
grep -q '	hwtimer_start_range	' "$tree/Module.symvers" ||
	die "$tree/Module.symvers lists no hwtimer symbol"

install -d "$dir/include/linux" "$dir/$krel"
install -m 644 include/linux/hwtimer.h "$dir/include/linux/"
install -m 644 "$tree/Module.symvers" "$dir/$krel/"
[ "$kbrel" = "$krel" ] || ln -sfn "$krel" "$dir/$kbrel"
[ "$kbrel" = "$krel" ] && kbrel=
echo "install-kernel-api: $dir/include/linux/hwtimer.h and $dir/$krel/Module.symvers (for $krel${kbrel:+, also named $kbrel})"
