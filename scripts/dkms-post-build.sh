#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dkms.conf's POST_BUILD, run by DKMS in its build directory after the
# build: keep hwtimer's Module.symvers beside hwtimer.ko in DKMS's tree,
#   scripts/dkms-post-build.sh /var/lib/dkms/hwtimer/VERSION/KERNEL/ARCH/module
# where a dependent module's build finds it (KBUILD_EXTRA_SYMBOLS; README.md,
# "Module authors"). DKMS 3.0 (Debian 12's 3.0.10) deletes its build
# directory, Module.symvers with it, and keeps only the modules; later
# DKMS versions keep the file in the same place themselves. `dkms remove`
# deletes it with the module.
set -eu
dest=${1:?usage: dkms-post-build.sh DIR}
if [ ! -f Module.symvers ] || [ ! -d "$dest" ]; then
	echo "hwtimer: dkms-post-build.sh: no Module.symvers here ($(pwd)) or no $dest" >&2
	exit 1
fi
cp Module.symvers "$dest/"
