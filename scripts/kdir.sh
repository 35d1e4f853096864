#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which kernel build tree to build hwtimer against: the one rule that the
# Makefile, the test runner and .ci/run all follow.
#
#   scripts/kdir.sh          prints the tree; says on stderr which and why
#   scripts/kdir.sh --all    prints every installed Debian header tree
#                            (/usr/src/linux-headers-*-<flavour>), oldest
#                            first: what the runner and CI build against
#
# The rule, first match wins:
#   1. KDIR, when set: the tree you asked for, whatever it is;
#   2. /lib/modules/$(uname -r)/build: the running kernel's;
#   3. the headers of Debian's default kernel, the tree the installed
#      linux-headers-amd64 package depends on (on Debian 12, 6.1), never
#      simply the newest tree found: a machine may have 6.12 headers too.
# Otherwise it fails, listing the trees it found, and asks for KDIR=.
set -euo pipefail

trees() {
	local d
	for d in /usr/src/linux-headers-*; do
		# A build tree has a Makefile and a .config; -common trees have no
		# .config.
		[ -f "$d/.config" ] && [ -f "$d/Makefile" ] && echo "$d"
	done | sort -V
}

if [ "${1:-}" = --all ]; then
	trees
	exit 0
fi

if [ -n "${KDIR:-}" ]; then
	echo "hwtimer: building against KDIR=$KDIR (given)" >&2
	echo "$KDIR"
	exit 0
fi

run=/lib/modules/$(uname -r)/build
if [ -d "$run" ]; then
	echo "hwtimer: building against $run (the running kernel)" >&2
	echo "$run"
	exit 0
fi

meta=$(dpkg-query -W -f='${Status} ${Depends}' linux-headers-amd64 2>/dev/null || true)
if [[ $meta == "install ok installed "* ]]; then
	dep=${meta#install ok installed }
	dep=${dep%% *}
	dep=${dep%,}
	if [ -d "/usr/src/$dep" ]; then
		echo "hwtimer: building against /usr/src/$dep (no build tree for the running kernel $(uname -r); Debian's default headers, linux-headers-amd64)" >&2
		echo "/usr/src/$dep"
		exit 0
	fi
fi

{
	echo "hwtimer: no build tree for the running kernel $(uname -r) and no linux-headers-amd64."
	echo "Install the headers of the kernel you want (make deps installs linux-headers-amd64)"
	echo "or name one with KDIR=. Installed trees:"
	trees | sed 's/^/  /'
} >&2
exit 1
