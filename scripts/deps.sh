#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages that building, testing and packaging hwtimer
# need. Idempotent: when everything is installed it touches nothing (no
# apt-get update), so a second `make check` costs a dpkg query.
set -euo pipefail

pkgs=(
	make gcc libc6-dev bc flex bison libelf-dev libssl-dev perl	# kernel build
	xz-utils cpio gzip						# source tarball, initramfs
	linux-source-6.1 linux-source-6.12				# the test kernels
	linux-headers-amd64						# Debian 12's kernel (6.1)
	pahole								# BTF of modules for 6.12
	qemu-system-x86 busybox-static					# the test VM
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm	# the arm64 VMs
	gcc-12-multilib libc6-dev-i386					# -m32 user tests (USER_M32)
	dkms kmod							# packaging
	debhelper dh-dkms lintian					# make deb, scripts/deb-check.sh
	gnuplot-nox							# benchmark plots
	gdb python3							# make bench-trace
	liburing-dev pkgconf						# io_uring bench column, make lib-check
	man-db groff-base						# make lib-check: the pages render
)

# "install ok installed" is the only state in which the files are there.
missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
echo "deps.sh: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# No recommends: qemu-system-x86 would otherwise pull in a desktop's worth.
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
