#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The code of a manual page's example, as a reader sees it printed.
#
#   scripts/man-example.sh PAGE [N]    the Nth .EX block (default 1) of
#                                      PAGE's EXAMPLES section; nothing if
#                                      there is none
#   scripts/man-example.sh -c PAGE     how many there are
#
# Used by lib/check.sh, scripts/doc-check.sh and the runner's install test.
set -eu
count=
if [ "$1" = -c ]; then
	count=1
	shift
fi
page=$1 n=${2:-1}
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$page" | awk -v n="$n" -v count="$count" '
	/^\.EX/ { k++; inside = 1; next }
	/^\.EE/ { inside = 0; next }
	inside && !count && k == n {
		gsub(/\\e/, "\\"); gsub(/\\-/, "-"); gsub(/\\\(aq/, "\047"); gsub(/\\\(dq/, "\"")
		gsub(/\\&/, "")
		print
	}
	END { if (count) print k + 0 }
'
