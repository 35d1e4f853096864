#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which kernel build tree to build hwtimer against: the one rule the
# Makefile, the test runner and .ci/run follow.
#
#   scripts/kdir.sh          prints the tree; says on stderr which and why
#   scripts/kdir.sh --all    prints every Debian header tree, oldest
#                            first: the installed ones
#                            (/usr/src/linux-headers-*-<flavour>) and those
#                            scripts/fetch.sh unpacked under the cache
#                            (6.12 and 6.12-rt, which cannot be installed
#                            without their kernel images): what the runner
#                            and CI build against
#
# First match wins: 1. KDIR, when set; 2. /lib/modules/$(uname -r)/build,
# the running kernel's; 3. the headers the installed linux-headers-amd64
# depends on (on Debian 12, 6.1), never simply the newest tree found (a
# machine may have 6.12's too). Otherwise it fails, listing the trees.
set -euo pipefail

# A build tree has a Makefile and a .config (-common trees have none).
# Sorted by the tree's name (its kernel release), wherever it is.
trees() {
	local d cache=${XDG_CACHE_HOME:-$HOME/.cache}/hwtimer
	for d in /usr/src/linux-headers-* "$cache"/headers/*/usr/src/linux-headers-*; do
		if [ -f "$d/.config" ] && [ -f "$d/Makefile" ]; then
			echo "$(basename "$d") $d"
		fi
	done | sort -V | cut -d' ' -f2-
}

use() {
	echo "hwtimer: building against ${3:-}$1 ($2)" >&2
	echo "$1"
	exit 0
}

[ "${1:-}" = --all ] && { trees; exit 0; }
[ -n "${KDIR:-}" ] && use "$KDIR" given KDIR=
run=/lib/modules/$(uname -r)/build
[ -d "$run" ] && use "$run" "the running kernel"
meta=$(dpkg-query -W -f='${Status} ${Depends}' linux-headers-amd64 2>/dev/null || true)
if [[ $meta == "install ok installed "* ]]; then
	dep=${meta#install ok installed }
	dep=${dep%% *}
	dep=${dep%,}
	[ -d "/usr/src/$dep" ] && use "/usr/src/$dep" "no build tree for the running kernel $(uname -r); Debian's default headers, linux-headers-amd64"
fi
{
	echo "hwtimer: no build tree for the running kernel $(uname -r) and no linux-headers-amd64."
	echo "Install the headers of the kernel you want (make deps installs linux-headers-amd64)"
	echo "or name one with KDIR=. Installed trees:"
	trees | sed 's/^/  /'
} >&2
exit 1
