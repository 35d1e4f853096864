#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the runner needs that Debian 12 has no package for, or none that
# can be installed without a kernel image: fetched with apt-get download
# (or source) and unpacked with dpkg-deb under
# ${XDG_CACHE_HOME:-~/.cache}/hwtimer/. No root, no dpkg database, nothing
# under /boot or /usr/src.
#
#   scripts/fetch.sh headers    Debian 12's 6.12 and 6.12-rt header trees
#                               (the versions linux-headers-6.12-amd64 and
#                               -rt-amd64 depend on, with their -common and
#                               linux-kbuild packages, from the machine's
#                               apt sources), unpacked under headers/VERSION/;
#                               prints the two build trees
#   scripts/fetch.sh source 7.3 linux-source-7.3, pinned below, from
#                               trixie-backports through a private apt
#                               source list and state (apt/): the machine's
#                               sources are not read or changed; checked
#                               against the pinned SHA-256, its tarball
#                               unpacked straight into
#                               src/linux-source-7.3-VERSION/; prints it
#   scripts/fetch.sh sparse     a sparse that 7.3's headers accept: Debian
#                               12's 0.6.4 cannot parse __typeof_unqual__,
#                               which 7.3 uses under sparse, and its
#                               scripts/checker-valid.sh then turns C=2 off.
#                               The pinned Debian source of 0.6.5~rc1 (sid,
#                               private list as above), checked by SHA-256,
#                               built once (half a minute) into
#                               sparse-VERSION/; prints the program
#   scripts/fetch.sh arm64      what the arm64 test VMs need from Debian
#                               12's arm64 archive: busybox-static (the
#                               guest's /bin/busybox) and liburing-dev (the
#                               benchmark's io_uring column links its
#                               liburing.a), bookworm's current versions,
#                               through a private apt list and state with
#                               arm64 as the only architecture (apt-arm64/;
#                               the machine's dpkg knows no arm64), unpacked
#                               under arm64/VERSIONS/; prints that root
#
# The header packages depend on their kernel images, so installing them
# would install kernels (into /boot, and the boot menu): unpacking them is
# all a module build needs. Each fetch is done once (a marker file), under
# a lock that other checkouts sharing the cache wait on.
set -euo pipefail

# The pinned mainline source: trixie-backports moves on, so a new version
# means a new pin (version and SHA-256 of its .deb, from `apt-cache show`),
# a new test kernel and perhaps new compat entries.
LINUX_73_SUITE="trixie-backports"
LINUX_73_VERSION="7.3.4-1~bpo13+1"
LINUX_73_SHA256="703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3"
# sparse: the upstream tarball of Debian's source package (Debian's own
# patches only change its packaging), pinned likewise.
SPARSE_SUITE="sid"
SPARSE_VERSION="0.6.5~rc1-2"
SPARSE_ORIG_SHA256="3ac8855ec7f3ab92f325be0f64347ccc2b10f8b4d7c2906783ee8e2bdab3f0de"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/hwtimer
die() { echo "fetch.sh: $*" >&2; exit 2; }
say() { echo "fetch.sh: $*" >&2; }
mkdir -p "$cache"

# The first dependency of package $1 whose name matches the pattern $2.
dep_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: //p' | grep -m1 -x -E "$2" || true
}

# 6.12 and 6.12-rt headers, one root per version: the amd64 trees' scripts
# and tools are relative symlinks into usr/lib/linux-kbuild-*, and their
# Makefile includes the -common tree's by absolute path, which is rewritten.
headers() {
	local amd64 rt ver root tmp pkgs p d
	amd64=$(dep_of linux-headers-6.12-amd64 'linux-headers-[0-9.]+\+deb12-amd64')
	rt=$(dep_of linux-headers-6.12-rt-amd64 'linux-headers-[0-9.]+\+deb12-rt-amd64')
	if [ -z "$amd64" ] || [ -z "$rt" ]; then
		die "apt does not know linux-headers-6.12-amd64 and -rt-amd64 (run apt-get update; Debian 12's main or security suite has them)"
	fi
	ver=${amd64#linux-headers-}
	ver=${ver%-amd64}
	root=$cache/headers/$ver
	exec 7>"$cache/.lock-headers-$ver"
	flock 7
	if [ ! -f "$root/.hwtimer-extracted" ]; then
		pkgs=("$amd64" "$rt" "$(dep_of "$amd64" 'linux-headers-.*-common')"
			"$(dep_of "$rt" 'linux-headers-.*-common-rt')"
			"$(dep_of "$amd64" 'linux-kbuild-.*')")
		for p in "${pkgs[@]}"; do
			[ -n "$p" ] || die "cannot resolve the dependencies of $amd64 and $rt"
		done
		say "downloading and unpacking ${pkgs[*]} into $root"
		rm -rf "$root" "$root.tmp"
		tmp=$root.tmp
		mkdir -p "$tmp/debs"
		(cd "$tmp/debs" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "${pkgs[@]}") >&2 ||
			die "apt-get download ${pkgs[*]} failed (apt-get update first?)"
		for p in "$tmp"/debs/*.deb; do
			dpkg-deb -x "$p" "$tmp"
		done
		rm -r "$tmp/debs"
		for p in "$amd64" "$rt"; do
			d=$tmp/usr/src/$p
			if [ ! -f "$d/Makefile" ] || [ ! -f "$d/.config" ]; then
				die "$p has no build tree in its package"
			fi
			sed -i "s|^include /usr/src/|include $root/usr/src/|" "$d/Makefile"
		done
		mv "$tmp" "$root"
		touch "$root/.hwtimer-extracted"
	fi
	flock -u 7
	echo "$root/usr/src/$amd64"
	echo "$root/usr/src/$rt"
}

# apt-get with a source list, state and archive cache of its own (apt/):
# apt checks each suite's signature against Debian's archive keyring as it
# does for the machine's own sources. Run as root, apt would download as
# the _apt user, who cannot write into a home directory.
# PA_DIR and PA_ARCH (default apt/ and amd64) name another such state and
# its one architecture.
private_apt() {
	local a=${PA_DIR:-$cache/apt} tool=$1
	shift
	"$tool" -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
		-o Dir::Etc::preferences="$a/preferences" -o Dir::Etc::preferencesparts="$a/preferences.d" \
		-o APT::Sandbox::User="$(id -un)" -o APT::Architecture="${PA_ARCH:-amd64}" \
		-o APT::Architectures="${PA_ARCH:-amd64}" -o Acquire::Languages=none "$@"
}

# Once per cold cache, or again when a download fails on an index older
# than this run (fresh=1 after an update here): the two suites' indices,
# 13 MB, mostly sid's source index.
fresh=0
private_apt_update() {
	local a=$cache/apt
	[ "${1:-}" = again ] && [ $fresh = 0 ] && rm -f "$a/.updated"
	[ -f "$a/.updated" ] && return 0
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/preferences.d"
	{
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $LINUX_73_SUITE main"
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SPARSE_SUITE main"
	} >"$a/sources.list"
	: >"$a/preferences"
	say "apt-get update of $LINUX_73_SUITE and $SPARSE_SUITE's sources (a private list in $a)"
	private_apt apt-get -q update >&2 || die "apt-get update of $LINUX_73_SUITE and $SPARSE_SUITE failed (network, or the archive's signature?)"
	touch "$a/.updated"
	fresh=1
}

# A pinned version is gone: say what the suite has now.
gone() {
	local what=$1 ver=$2 suite=$3 have=$4 var=$5
	die "$what $ver, the pinned version, is no longer in $suite (it has: ${have:-none}). Pin another in scripts/fetch.sh ($var) and check it."
}

source_73() {
	local pkg=linux-source-7.3 ver=$LINUX_73_VERSION src tmp deb sum
	src=$cache/src/$pkg-$ver
	exec 7>"$cache/.lock-src-$pkg"
	flock 7
	if [ ! -f "$src/.hwtimer-extracted" ]; then
		private_apt_update
		tmp=$cache/src/.$pkg.tmp
		rm -rf "$tmp" "$src"
		mkdir -p "$tmp"
		(cd "$tmp" && private_apt apt-get -q download "$pkg=$ver") >&2 ||
			{ private_apt_update again && (cd "$tmp" && private_apt apt-get -q download "$pkg=$ver") >&2; } ||
			gone "$pkg" "$ver" "$LINUX_73_SUITE" \
				"$(private_apt apt-cache madison "$pkg" 2>/dev/null | awk -F' [|] ' '{ printf "%s ", $2 }')" \
				"LINUX_73_VERSION, LINUX_73_SHA256"
		deb=$(echo "$tmp"/"$pkg"_*.deb)
		[ -f "$deb" ] || die "apt-get download left no $pkg .deb in $tmp"
		sum=$(sha256sum "$deb" | cut -d' ' -f1)
		if [ "$sum" != "$LINUX_73_SHA256" ]; then
			rm -rf "$tmp"
			die "$(basename "$deb"): SHA-256 $sum, not the pinned $LINUX_73_SHA256"
		fi
		# The package holds usr/src/linux-source-7.3.tar.xz: unpacked in
		# one stream, never written out.
		say "unpacking $(basename "$deb") into $src"
		dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/$pkg.tar.xz" | tar -xJf - -C "$tmp"
		[ -f "$tmp/$pkg/Makefile" ] || die "$(basename "$deb") holds no $pkg/ tree"
		mv "$tmp/$pkg" "$src"
		rm -rf "$tmp"
		touch "$src/.hwtimer-extracted"
	fi
	flock -u 7
	echo "$src"
}

# Only the program: no LLVM, sqlite or libxml2 back ends. Its compiler
# paths are this machine's gcc's, as Debian's package has them.
sparse() {
	local ver=$SPARSE_VERSION dir tmp orig sum
	dir=$cache/sparse-$ver
	exec 7>"$cache/.lock-sparse"
	flock 7
	if [ ! -x "$dir/sparse" ]; then
		private_apt_update
		tmp=$dir.tmp
		rm -rf "$tmp" "$dir"
		mkdir -p "$tmp"
		(cd "$tmp" && private_apt apt-get -q source --download-only "sparse=$ver") >&2 ||
			{ private_apt_update again && (cd "$tmp" && private_apt apt-get -q source --download-only "sparse=$ver") >&2; } ||
			gone sparse "$ver" "$SPARSE_SUITE" \
				"$(private_apt apt-cache showsrc sparse 2>/dev/null | sed -n 's/^Version: //p' | tr '\n' ' ')" \
				"SPARSE_VERSION, SPARSE_ORIG_SHA256"
		orig=$(echo "$tmp"/sparse_*.orig.tar.*)
		[ -f "$orig" ] || die "apt-get source left no sparse .orig tarball in $tmp"
		sum=$(sha256sum "$orig" | cut -d' ' -f1)
		[ "$sum" = "$SPARSE_ORIG_SHA256" ] || die "$(basename "$orig"): SHA-256 $sum, not the pinned $SPARSE_ORIG_SHA256"
		mkdir "$tmp/src"
		tar -xf "$orig" -C "$tmp/src" --strip-components=1
		say "building sparse $ver"
		make -C "$tmp/src" -j"$(nproc)" sparse HAVE_LLVM=no HAVE_SQLITE=no HAVE_LIBXML=no \
			HAVE_GTK=no >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log" >&2; die "sparse did not build"; }
		mkdir -p "$dir"
		cp "$tmp/src/sparse" "$dir/sparse"
		rm -rf "$tmp"
	fi
	flock -u 7
	echo "$dir/sparse"
}

# Debian 12's arm64 busybox-static and liburing-dev, unpacked (not
# installed) under arm64/<their versions>/: the newest of bookworm,
# bookworm-updates and bookworm-security, as the machine's own sources
# would give for amd64; apt checks the archive's signature and each
# package's hash. The indices (arm64 only) are fetched again when a
# download fails on a stale one.
ARM64_PKGS=(busybox-static liburing-dev)
arm64() {
	local a=$cache/apt-arm64 tmp vers root p v deb
	export PA_DIR=$a PA_ARCH=arm64
	exec 7>"$cache/.lock-arm64"
	flock 7
	if [ ! -f "$a/.updated" ]; then
		mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/preferences.d"
		{
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main"
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main"
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main"
		} >"$a/sources.list"
		: >"$a/preferences"
		say "apt-get update of bookworm's arm64 indices (a private list in $a)"
		private_apt apt-get -q update >&2 || die "apt-get update of bookworm for arm64 failed"
		touch "$a/.updated"
	fi
	# The directory's name: each package's name and version (no epoch).
	vers=
	for p in "${ARM64_PKGS[@]}"; do
		v=$(private_apt apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')
		if [ -z "$v" ] || [ "$v" = "(none)" ]; then die "bookworm's arm64 indices have no $p"; fi
		vers+="${vers:+,}${p}_${v#*:}"
	done
	root=$cache/arm64/$vers
	if [ ! -f "$root/.hwtimer-extracted" ]; then
		tmp=$root.tmp
		rm -rf "$tmp" "$root"
		mkdir -p "$tmp/debs"
		(cd "$tmp/debs" && private_apt apt-get -q download "${ARM64_PKGS[@]}") >&2 ||
			{ rm -f "$a/.updated"; die "apt-get download of the arm64 ${ARM64_PKGS[*]} failed (run it again: its indices are refreshed)"; }
		for deb in "$tmp"/debs/*.deb; do
			dpkg-deb -x "$deb" "$tmp"
		done
		rm -r "$tmp/debs"
		[ -x "$tmp/bin/busybox" ] || die "busybox-static:arm64 holds no bin/busybox"
		[ -f "$tmp/usr/lib/aarch64-linux-gnu/liburing.a" ] || die "liburing-dev:arm64 holds no liburing.a"
		mv "$tmp" "$root"
		touch "$root/.hwtimer-extracted"
	fi
	flock -u 7
	echo "$root"
}

case "${1:-}" in
headers) headers ;;
arm64) arm64 ;;
source)
	case "${2:-}" in
	7.3) source_73 ;;
	*) die "source ${2:-}: only 7.3 is fetched (6.1 and 6.12 are packages: scripts/deps.sh)" ;;
	esac
	;;
sparse) sparse ;;
*) die "usage: fetch.sh headers | source 7.3 | sparse | arm64" ;;
esac
