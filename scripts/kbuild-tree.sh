#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build hwtimer.ko together with other module directories of this tree, as
# one external-module tree, so modpost links them against hwtimer's exports
# (used by bench/bench.sh and stress/stress.sh).
#
#   scripts/kbuild-tree.sh KERNEL_DIR TREE DIR...
#
# Copies the sources and Kbuild files of kmod/, include/ and each DIR into
# TREE (kbuild writes its objects next to the sources; tar keeps mtimes, so
# unchanged files are not rebuilt), writes TREE/Kbuild with kmod/ and the
# DIRs (kunit/ only where the kernel has KUnit), applies the patch files in
# PATCHES (a list, to try a proposed fix on the copy) and builds with W=1
# and any make arguments in KBUILD_ARGS (C=2 for sparse).
#
# Exit status: 0 for a clean build; 1 if it failed or warned, with the
# reason on stderr and TREE removed, so the next run builds it afresh.
set -euo pipefail

kdir=$1 tree=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

fail() {
	echo "kbuild-tree: $*" >&2
	rm -rf "$tree"
	exit 1
}

mkdir -p "$tree"
find kmod include "$@" -type f \( -name '*.[ch]' -o -name Kbuild \) -print0 |
	tar --null -cf - -T - | tar -C "$tree" -xf -
for p in ${PATCHES:-}; do
	patch -s -p1 -d "$tree" <"$p" || fail "patch $p does not apply"
	echo "kbuild-tree: applied $p" >&2
done
{
	echo "# SPDX-License-Identifier: GPL-2.0"
	echo "obj-y += kmod/"
	for d in "$@"; do
		if [ "$d" = kunit ]; then
			echo "obj-\$(CONFIG_KUNIT) += kunit/"
		else
			echo "obj-y += $d/"
		fi
	done
} >"$tree/Kbuild"
# shellcheck disable=SC2086 # KBUILD_ARGS is a list of make arguments
if ! make -C "$kdir" M="$tree" W=1 ${KBUILD_ARGS:-} -j"$(nproc)" modules >"$tree.log" 2>&1; then
	cat "$tree.log" >&2
	fail "module build failed"
fi
# Compiler, sparse and modpost warnings (a sparse error does not stop the
# build); not make's own chatter.
if grep -v '^make' "$tree.log" | grep -E 'warning:|WARNING:|error:' >&2; then
	fail "the W=1 module build has warnings (above)"
fi
