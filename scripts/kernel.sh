#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a test kernel from Debian's kernel sources.
#
#   scripts/kernel.sh [FLAVOUR [KERNEL]]    prints the kernel build directory
#   scripts/kernel.sh source [KERNEL]       prints the extracted source tree
#                                           only (no kernel is built)
#   scripts/kernel.sh kselftest DIR         copies 6.1's kselftest_harness.h
#                                           and kselftest.h into DIR: from
#                                           the extracted source if there
#                                           is one, else those two files
#                                           alone from the package's
#                                           tarball (40 KB, not 1.5 GB),
#                                           kept in the cache
#   scripts/kernel.sh --cached [FLAVOUR [KERNEL]]
#                                           prints the build directory if
#                                           that kernel is built, else fails;
#                                           fetches, unpacks and builds
#                                           nothing
#
# FLAVOUR: debug (default), bench or kcsan (scripts/FLAVOUR.config). KERNEL
# (default 6.1): 6.1 (linux-source-6.1, Debian 12's stock series), 6.12
# (linux-source-6.12), 6.12-rt (the same with scripts/rt.config), both
# installed packages (scripts/deps.sh), or 7.3 (mainline: linux-source-7.3
# of trixie-backports, pinned, fetched and unpacked by scripts/fetch.sh);
# 6.12-arm64 and 6.12-arm64-64k: 6.12 for arm64 with 4 KiB and 64 KiB
# pages, cross-built with Debian's gcc-aarch64-linux-gnu.
#
# The architecture's tinyconfig (x86_64, or arm64 for *-arm64*) plus, a
# later line winning, scripts/FLAVOUR.config, scripts/linux-VERSION.config
# if any (what that source version needs), rt.config for -rt, arm64.config
# for arm64 (QEMU's virt machine; the x86 lines of the rest turned off) and
# arm64-64k.config for -64k; built under ${XDG_CACHE_HOME:-~/.cache}/hwtimer/,
# cached by the hash of that merged fragment and the source's version.
set -euo pipefail

cached=
if [ "${1:-}" = --cached ]; then
	cached=1
	shift
fi
flavour=${1:-debug}
if [ "$flavour" = kselftest ]; then
	# The user-space programs are written against 6.1's harness.
	kdest=${2:?usage: kernel.sh kselftest DIR}
	kernel=6.1
else
	kernel=${2:-${KERNEL:-6.1}}
fi
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "kernel.sh: $*" >&2; exit 2; }

case "$kernel" in
6.1 | 6.12 | 6.12-rt | 7.3 | 6.12-arm64 | 6.12-arm64-64k) ;;
*) die "unknown KERNEL=$kernel (6.1, 6.12, 6.12-rt, 7.3, 6.12-arm64 or 6.12-arm64-64k)" ;;
esac
srcv=${kernel%%-*}
# make's architecture arguments: the same for configuring, building the
# kernel and building modules against it (scripts/lib.sh, kbuild_arch).
case "$kernel" in
*-arm64*) arch=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) image=Image ;;
*) arch=(ARCH=x86_64) image=bzImage ;;
esac
pkg=linux-source-$srcv
cache=${XDG_CACHE_HOME:-$HOME/.cache}/hwtimer
mkdir -p "$cache"
if [ "$srcv" = 7.3 ] && [ -n "$cached" ]; then
	# The pinned version, without fetching it.
	srcver=$(sed -n 's/^LINUX_73_VERSION="\(.*\)"$/\1/p' "$top/scripts/fetch.sh")
	src=$cache/src/$pkg-$srcver
	tarball=
elif [ "$srcv" = 7.3 ]; then
	# Fetched and unpacked once; its directory name holds the version.
	src=$("$top/scripts/fetch.sh" source 7.3) || exit 1
	srcver=${src##*/"$pkg"-}
	tarball=
else
	tarball=/usr/src/$pkg.tar.xz
	[ -f "$tarball" ] || { [ -n "$cached" ] && exit 1; die "$pkg is not installed (run scripts/deps.sh)"; }
	srcver=$(dpkg-query -W -f='${Version}' "$pkg")
	src=$cache/src/$pkg-$srcver
fi

# One extraction per source version; two kernels of one version share it.
extract() {
	[ -n "$tarball" ] || return 0
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

# The user-space programs need two headers of the source, not the whole
# tree: kept in the cache beside the sources, taken from the tree if it is
# extracted (make check's 6.1 kernel extracts it), else read alone from
# the tarball, once. Each copy goes through a temporary directory, so an
# interrupted one leaves no header behind (kselftest_harness.h is make's
# target).
if [ "$flavour" = kselftest ]; then
	sel=tools/testing/selftests
	ks=$src-kselftest
	if [ ! -f "$ks/kselftest_harness.h" ]; then
		mkdir -p "$cache/src"
		tmp=$(mktemp -d "$ks.XXXXXX")
		if [ -f "$src/.hwtimer-extracted" ]; then
			cp "$src/$sel/kselftest_harness.h" "$src/$sel/kselftest.h" "$tmp/"
		else
			# --occurrence: stop reading once both are found.
			tar -C "$tmp" -xJf "$tarball" --occurrence=1 --strip-components=4 \
				"$pkg/$sel/kselftest_harness.h" "$pkg/$sel/kselftest.h" ||
				{ rm -rf "$tmp"; die "no $sel/kselftest_harness.h and kselftest.h in $tarball"; }
		fi
		chmod 755 "$tmp"
		# Another checkout may have put them there meanwhile.
		mv -T "$tmp" "$ks" 2>/dev/null || rm -rf "$tmp"
	fi
	mkdir -p "$kdest"
	tmp=$(mktemp -d "$kdest/.kselftest.XXXXXX")
	cp "$ks/kselftest_harness.h" "$ks/kselftest.h" "$tmp/"
	mv "$tmp/kselftest.h" "$kdest/"
	mv "$tmp/kselftest_harness.h" "$kdest/"
	rmdir "$tmp"
	exit 0
elif [ "$flavour" = source ] && [ -n "$cached" ]; then
	# 6.1 and 6.12 carry kernel.sh's mark; 7.3 is unpacked by fetch.sh.
	{ [ -f "$src/.hwtimer-extracted" ] || { [ -z "$tarball" ] && [ -d "$src" ]; }; } && echo "$src"
	exit $?
elif [ "$flavour" = source ]; then
	extract
	echo "$src"
	exit 0
fi

frags=("$top/scripts/$flavour.config")
[ -f "${frags[0]}" ] || die "no fragment ${frags[0]}"
[ -f "$top/scripts/linux-$srcv.config" ] && frags+=("$top/scripts/linux-$srcv.config")
[[ $kernel == *-rt ]] && frags+=("$top/scripts/rt.config")
[[ $kernel == *-arm64* ]] && frags+=("$top/scripts/arm64.config")
[[ $kernel == *-arm64-64k ]] && frags+=("$top/scripts/arm64-64k.config")

# The effective fragment, as merge_config.sh merges it: every option's last
# setting, in the order the options first appear.
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
if [ -n "$cached" ]; then
	[ -f "$out/.hwtimer-built" ] && echo "$out"
	exit $?
fi

# modpost checks external modules against Module.symvers, which only `make
# modules` writes; this kernel has no modules, so vmlinux's symbols are the
# whole list (without it, modpost skips the unresolved-symbol check).
done_build() {
	[ -f "$out/Module.symvers" ] || cp "$out/vmlinux.symvers" "$out/Module.symvers"
	echo "$out"
	exit 0
}

# Checkouts asking for the same kernel at once: one builds, the others wait
# (a second build would rm -rf the first one's tree).
exec 9>"$cache/.lock-$flavour-$kernel-$hash"
flock 9
[ -f "$out/.hwtimer-built" ] && done_build
extract
echo "kernel.sh: building the $flavour $kernel kernel in $out (5 to 20 minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
cp "$merged" "$out/hwtimer-fragment.config"
{
	make -C "$src" O="$out" "${arch[@]}" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
	make -C "$src" O="$out" "${arch[@]}" olddefconfig
} >"$out/config.log" 2>&1 || { tail -30 "$out/config.log" >&2; exit 1; }

# Every line of the fragment must survive olddefconfig: a dropped option
# would hide the bugs it is there to catch (6.12's tinyconfig sets
# SLUB_TINY, which turns KASAN off).
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		if grep -q "^$opt=" "$out/.config"; then echo "kernel.sh: $opt still set" >&2; missing=1; fi ;;
	CONFIG_*=*) grep -qx "$line" "$out/.config" || { echo "kernel.sh: $line did not stick" >&2; missing=1; } ;;
	esac
done <"$out/hwtimer-fragment.config"
[ $missing = 0 ] || exit 1

t0=$SECONDS
if ! make -C "$src" O="$out" "${arch[@]}" -j"$(nproc)" "$image" modules >"$out/build.log" 2>&1; then
	grep -E "error|Error" "$out/build.log" | head -30 >&2
	exit 1
fi
# For the record of what a cold run costs (docs/testing.md): the wall
# time, which depends on what else runs, and the CPU time of everything
# this script ran (configuring too), which hardly does.
times >"$out/times"	# not in a pipe: a subshell has no children
cpu=$(tail -n 1 "$out/times" | awk '{ for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } } END { printf "%.0f", s }')
echo "$((SECONDS - t0)) s on $(nproc) CPUs, $cpu s of CPU time (user and system), load $(cut -d' ' -f1-3 /proc/loadavg) at the end" >"$out/build-time"
echo "kernel.sh: built in $(cat "$out/build-time")" >&2
touch "$out/.hwtimer-built"
done_build
