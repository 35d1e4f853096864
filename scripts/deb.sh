#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian packages of the tree, in build/deb/:
#   hwtimer-dkms_VERSION-1_all.deb       the module's source for DKMS,
#                                        the kernel API header, hwtimer(4)
#   libhwtimer1_VERSION-1_ARCH.deb       the shared library
#   libhwtimer-dev_VERSION-1_ARCH.deb    headers, static library,
#                                        pkg-config file, section 3 pages
# and the source package (.dsc, .orig.tar.xz, .debian.tar.xz) with its
# .changes, built by dpkg-buildpackage (debhelper and dh-dkms, from
# `make deps`) from a copy of the tree's sources (what git tracks or would
# track) in build/deb/hwtimer-VERSION/, so the checkout stays as it was.
# Then lintian checks all of it and fails on any error or warning.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
unset MAKEFLAGS MFLAGS MAKELEVEL

ver=$(dpkg-parsechangelog -S Version)
upver=${ver%-*}
out=${HWT_OUT:-$top/build}/deb
src=$out/hwtimer-$upver
rm -rf "$out"
mkdir -p "$src"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T - | tar -C "$src" -xf -
else
	tar --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
fi
# The upstream tarball is the tree without debian/, the same bytes for the
# same sources.
tar -C "$out" --exclude="hwtimer-$upver/debian" --sort=name --owner=0 --group=0 \
	--numeric-owner --mtime="@$(dpkg-parsechangelog -S Timestamp)" \
	-cJf "$out/hwtimer_$upver.orig.tar.xz" "hwtimer-$upver"
(cd "$src" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed (above; all of it in $out/build.log)" >&2
	exit 1
}
rm -rf "$src"
changes=$out/hwtimer_${ver}_$(dpkg-architecture -qDEB_HOST_ARCH).changes
if ! lintian --fail-on error,warning "$changes" >"$out/lintian.log" 2>&1; then
	cat "$out/lintian.log" >&2
	echo "deb: lintian finds errors or warnings (above)" >&2
	exit 1
fi
[ -s "$out/lintian.log" ] && sed 's/^/lintian: /' "$out/lintian.log"
echo "deb: lintian finds no error or warning in $(basename "$changes") and what it lists"
ls "$out"/*.deb
