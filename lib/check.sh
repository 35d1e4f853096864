#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make lib-check`: libhwtimer's checks that need no VM, on the host.
#   lib/check.sh OUT    (OUT: the build directory, build/ by default)
# 1. make install-lib into a scratch DESTDIR with PREFIX=/usr;
# 2. the example of libhwtimer(3), cut from the page, built against that
#    install with pkg-config, linked shared and static;
# 3. the shared library exports exactly the functions libhwtimer.h
#    declares, at version LIBHWTIMER_1.0, with soname libhwtimer.so.1;
# 4. every installed page (hwtimer(4), the section 3 pages and their .so
#    links) renders without a warning from man, man finds hwtimer(4) and
#    libhwtimer(3) by name, and every function the header declares has a
#    page;
# 5. lib_mock_test, the library against a mock kernel.
set -eu
out=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "lib-check: FAIL: $*" >&2; exit 1; }
for t in man pkg-config readelf nm gcc; do
	command -v $t >/dev/null || fail "no $t: run make deps (as root)"
done

make -s -C "$top" install-lib DESTDIR="$tmp/root" PREFIX=/usr HWT_OUT="$out" >/dev/null
pc="$tmp/root/usr/lib/pkgconfig"
grep -qx 'prefix=/usr' "$pc/libhwtimer.pc" || fail "libhwtimer.pc does not say prefix=/usr"

"$top/scripts/man-example.sh" "$tmp/root/usr/share/man/man3/libhwtimer.3" >"$tmp/example.c"
[ -s "$tmp/example.c" ] || fail "no example in libhwtimer(3)"
flags=$(PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$tmp/root" pkg-config --cflags --libs libhwtimer)
gcc -Wall -Wextra -Werror -o "$tmp/example" "$tmp/example.c" $flags -Wl,-rpath,"$tmp/root/usr/lib" ||
	fail "the example of libhwtimer(3) does not build (shared)"
readelf -d "$tmp/example" | grep -q 'NEEDED.*libhwtimer.so.1' || fail "the example is not linked to libhwtimer.so.1"
gcc -Wall -Wextra -Werror -static -o "$tmp/example-static" "$tmp/example.c" $flags ||
	fail "the example of libhwtimer(3) does not build (static)"

so="$tmp/root/usr/lib/libhwtimer.so.1"
readelf -d "$so" | grep -q 'SONAME.*\[libhwtimer.so.1\]' || fail "soname is not libhwtimer.so.1"
sed -n 's/^[a-z].*[ *]\(hwtimer_file_[a-z_]*\)(.*/\1/p' "$top/lib/libhwtimer.h" | sort >"$tmp/declared"
nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | sort >"$tmp/exported"
grep -qv '@@LIBHWTIMER_1.0$' "$tmp/exported" && fail "symbols outside LIBHWTIMER_1.0: $(grep -v '@@LIBHWTIMER_1.0$' "$tmp/exported")"
sed -i 's/@@.*//' "$tmp/exported"
cmp -s "$tmp/declared" "$tmp/exported" || fail "exports differ from libhwtimer.h: $(diff "$tmp/declared" "$tmp/exported" | grep '^[<>]' | tr '\n' ' ')"

man="$tmp/root/usr/share/man"
pages=0
for page in "$man"/man3/*.3 "$man"/man4/*.4; do
	# From the top of the tree, where the links' ".so man3/..." lead.
	w=$(cd "$man" && MANWIDTH=80 man --warnings -l "${page#"$man"/}" 2>&1 >/dev/null) ||
		fail "${page#"$man"/}: man failed"
	[ -z "$w" ] || fail "${page#"$man"/}: $w"
	pages=$((pages + 1))
done
for name in "4 hwtimer" "3 libhwtimer" "3 hwtimer_file_features"; do
	# shellcheck disable=SC2086 # section and name
	MANPATH=$man man -w $name >/dev/null 2>&1 || fail "man -w $name finds no page in the install"
done
while read -r fn; do
	[ -e "$man/man3/$fn.3" ] || fail "no manual page for $fn"
done <"$tmp/declared"

"$out/ut/lib_mock_test" >"$tmp/mock.log" 2>&1 || { cat "$tmp/mock.log"; fail "lib_mock_test"; }
echo "lib-check: $(wc -l <"$tmp/declared") functions, each exported and documented; $pages installed pages render; example builds shared and static; $(grep -c '^ok' "$tmp/mock.log") mock tests passed"
