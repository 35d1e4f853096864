#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make doc-check`, and part of make check's host part: the documentation
# says what the code does.
#
#  1. Every ```c block of README.md compiles as printed: a block with
#     main() as a program (gcc -Wall -Wextra -Werror, against the tree's
#     <linux/hwtimer.h> and libhwtimer), a block with module_init() as a
#     module (W=1) against the kernel of KDIR (scripts/kdir.sh), with the
#     kernel API and Module.symvers that `make install-kernel-api` installs;
#     any other c block fails: a reader cannot tell what it needs.
#  2. Every example of the manual pages (each .EX block of an EXAMPLES
#     section: docs/hwtimer.4, docs/man3/*.3) compiles as a program.
#  3. hwtimer(4) lists every structure of the uapi header with the same
#     fields, in the same order, of the same types.
#  4. One version: MODULE_VERSION, dkms.conf, lib/lib.mk, every page's
#     footer, the paths of samples/out-of-tree/ and debian/'s version and
#     paths agree.
#  5. README.md is at most 350 lines and docs/benchmarks.md at most 400,
#     with what `make bench` writes into them, and neither they nor docs/
#     tell the project's history (issue numbers, numbered runs).
#
# Prints one line per failure ("FAIL doc-check: ...") and ends with "N
# passed, N failed, 0 skipped"; exits non-zero if anything failed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
unset MAKEFLAGS MFLAGS MAKELEVEL
out=${HWT_OUT:-$top/build}/doc-check
rm -rf "$out"
mkdir -p "$out"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
	echo "FAIL doc-check: $*"
	failed=$((failed + 1))
}

make -s lib >/dev/null || { echo "doc-check: make lib failed" >&2; exit 1; }
lib_a=${HWT_OUT:-$top/build}/lib/libhwtimer.a
user_cc() {
	gcc -Wall -Wextra -Werror -D_GNU_SOURCE -I"$top/include/uapi" -I"$top/lib" \
		-o "${1%.c}" "$1" "$lib_a" 2>"${1%.c}.log"
}

# 1. README.md's c blocks, numbered in order.
awk -v dir="$out" '
	/^```c[ \t]*$/ { n++; f = sprintf("%s/readme-%02d.c", dir, n); inside = 1; next }
	/^```/ && inside { inside = 0; close(f); next }
	inside { print > f }
' README.md
kernel_blocks=()
for f in "$out"/readme-*.c; do
	line=$(grep -n '^```c' README.md | sed -n "$((10#$(basename "$f" .c | cut -d- -f2)))p" | cut -d: -f1)
	if grep -q '^int main(' "$f"; then
		if user_cc "$f"; then ok; else bad "README.md line $line: the program does not compile:"; sed 's/^/    /' "${f%.c}.log"; fi
	elif grep -q '^module_init(' "$f"; then
		kernel_blocks+=("$f:$line")
	else
		bad "README.md line $line: a c block that is neither a program (main) nor a module (module_init)"
	fi
done
if [ ${#kernel_blocks[@]} -gt 0 ]; then
	kapi=$out/kapi
	if ! make -s install-kernel-api DESTDIR="$kapi" PREFIX=/usr >"$out/kapi.log" 2>&1; then
		bad "make install-kernel-api failed:"
		sed 's/^/    /' "$out/kapi.log"
	else
		kdir=$(scripts/kdir.sh 2>/dev/null)
		inc=$(echo "$kapi"/usr/src/hwtimer-headers-*/include)
		for b in "${kernel_blocks[@]}"; do
			f=${b%:*} line=${b##*:} m=$out/mod-$(basename "$f" .c)
			mkdir -p "$m"
			cp "$f" "$m/snippet.c"
			{
				echo "obj-m := snippet.o"
				echo "ccflags-y += -I$inc"
				echo "KBUILD_EXTRA_SYMBOLS += ${inc%/include}/\$(KERNELRELEASE)/Module.symvers"
			} >"$m/Kbuild"
			if make -C "$kdir" M="$m" W=1 modules >"$m.log" 2>&1 &&
			   ! grep -v '^make' "$m.log" | grep -qE 'warning:|WARNING:|error:'; then
				ok
			else
				bad "README.md line $line: the module does not build cleanly against $kdir:"
				grep -E 'warning:|WARNING:|error:' "$m.log" | sed 's/^/    /'
			fi
		done
	fi
fi

# 2. The pages' examples.
for page in docs/hwtimer.4 docs/man3/*.3; do
	n=$(scripts/man-example.sh -c "$page")
	for ((k = 1; k <= n; k++)); do
		f=$out/$(basename "$page")-$k.c
		scripts/man-example.sh "$page" "$k" >"$f"
		if user_cc "$f"; then
			ok
		else
			bad "$page: example $k does not compile as printed:"
			sed 's/^/    /' "${f%.c}.log"
		fi
	done
done

# 3. hwtimer(4)'s structures against the header's: "struct name: type
#    field; type field; ..." per structure, __aligned_u64 as __u64.
awk '
	/^struct hwtimer_[a-z_]* \{/ { name = $2; body = ""; inside = 1; next }
	inside && /^\};/ { print "struct " name ":" body; inside = 0; next }
	inside && /^\t[_a-z0-9 ]+ [a-z_0-9\[\]]+;/ {
		line = $0; sub(/^\t/, "", line); sub(/;.*/, "", line)
		gsub(/__aligned_u64/, "__u64", line); body = body " " line ";"
	}
' include/uapi/linux/hwtimer.h | sort >"$out/structs.header"
awk '
	/^struct hwtimer_[a-z_]* \{/ { name = $2; body = ""; inside = 1; next }
	inside && /^\};/ { print "struct " name ":" body; inside = 0; next }
	inside && /^ +__[a-z0-9]+ [a-z_0-9\[\]]+;/ {
		line = $0; sub(/^ +/, "", line); sub(/;.*/, "", line); body = body " " line ";"
	}
' docs/hwtimer.4 | sort >"$out/structs.page"
if [ "$(wc -l <"$out/structs.header")" -lt 9 ]; then
	bad "found $(wc -l <"$out/structs.header") structures in include/uapi/linux/hwtimer.h, expected 9"
elif ! diff "$out/structs.header" "$out/structs.page" >"$out/structs.diff"; then
	bad "hwtimer(4) and include/uapi/linux/hwtimer.h list different structures (< header, > page):"
	sed 's/^/    /' "$out/structs.diff"
else
	ok
fi

# 4. One version.
v=$(sed -n 's/^HWTIMER_VERSION := //p' lib/lib.mk)
others=(
	"kmod/hwtimer_main.c: $(sed -n 's/^MODULE_VERSION("\(.*\)");/\1/p' kmod/hwtimer_main.c)"
	"dkms.conf: $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)"
	"samples/out-of-tree/dkms.conf: $(grep -o 'hwtimer-[0-9.]*[0-9]/include' samples/out-of-tree/dkms.conf | sed 's/hwtimer-//;s|/include||')"
	"samples/out-of-tree/Kbuild: $(grep -o 'hwtimer-headers-[0-9.]*[0-9]' samples/out-of-tree/Kbuild | sort -u | sed 's/hwtimer-headers-//')"
	"debian/changelog: $(sed -n '1s/^hwtimer (\(.*\)-[^-]*).*/\1/p' debian/changelog)"
	"debian/hwtimer-dkms.install: $(grep -o 'hwtimer-[0-9.]*[0-9]' debian/hwtimer-dkms.install | sort -u | sed 's/hwtimer-//')"
)
for page in docs/hwtimer.4 docs/man3/*.3; do
	others+=("$page: $(sed -n 's/^\.TH [^"]*"hwtimer \([^"]*\)".*/\1/p' "$page")")
done
for o in "${others[@]}"; do
	if [ "${o##*: }" = "$v" ]; then ok; else bad "$o, where lib/lib.mk's HWTIMER_VERSION is $v"; fi
done

# 5. Guides, not logs.
lines=$(wc -l <README.md)
if [ "$lines" -le 350 ]; then ok; else bad "README.md has $lines lines, more than 350"; fi
lines=$(wc -l <docs/benchmarks.md)
if [ "$lines" -le 400 ]; then ok; else bad "docs/benchmarks.md has $lines lines, more than 400"; fi
if hist=$(grep -n -i -E '\bissues? #?[0-9]+|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|[0-9]+(st|nd|rd|th)) (full )?run\b' README.md docs/*.md); then
	bad "history in the documentation:"
	sed 's/^/    /' <<<"$hist"
else
	ok
fi

echo "doc-check: $passed passed, $failed failed"
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
