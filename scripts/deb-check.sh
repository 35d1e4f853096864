#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages on this machine, as README.md ("Installing") has a
# user install them (as root; .ci/run's "deb" part):
#
#  1. Runs the README's install block (make deb, then apt install of
#     build/deb/*.deb): hwtimer-dkms's postinst has DKMS build and install
#     hwtimer.ko for each kernel with headers.
#  2. Builds and links the README's libhwtimer program with
#     `cc app.c $(pkg-config --cflags --libs libhwtimer)`, shared and with
#     -static, against what libhwtimer-dev installed.
#  3. Runs the README's block for a module that calls hwtimer (the sample,
#     through DKMS, against hwtimer-dkms's header and the Module.symvers
#     DKMS kept), checks that it depends on hwtimer, then its "later:" line.
#  4. dpkg -r of each package, then --purge: no file of theirs (dpkg -L)
#     and nothing named *hwtimer* under /usr/src, /usr/lib, /usr/include,
#     /usr/share and /lib/modules, nor anything in /var/lib/dkms, is left
#     that was not there before, and the machine's packages are as they
#     were.
#
# The running kernel may have no build tree (a CI host, a container): the
# README's blocks then run for the newest kernel under /lib/modules that
# has one (`uname -r` says that kernel's name to them), and their modprobe
# line is left out (the module is not for the running kernel). A trap
# removes what the script installed, however it ends; a run after one that
# was killed first removes what that one left.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
unset MAKEFLAGS MFLAGS MAKELEVEL
export DEBIAN_FRONTEND=noninteractive
[ "$(id -u)" = 0 ] || { echo "deb-check: run as root (it installs and removes packages)" >&2; exit 1; }
pkgs=(hwtimer-dkms libhwtimer1 libhwtimer-dev)
sample=hwtimer-sample/1.0.0
tmp=$(mktemp -d)
fail() {
	echo "FAIL deb-check: $*" >&2
	exit 1
}
installed() { [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" != "" ] &&
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1")" != "un " ]; }
# What this script installs: the three packages, the sample's DKMS copy,
# what apt pulled in for them (listed in $tmp/pulled), and the key DKMS
# makes to sign modules when it first builds one (/var/lib/dkms/mok.*), if
# there was none.
mok=()
for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
	[ -e "$f" ] || mok+=("$f")
done
cleanup() {
	dkms remove "$sample" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/${sample/\//-}"
	local p purge=()
	for p in "${pkgs[@]}" $(cat "$tmp/pulled" 2>/dev/null); do
		installed "$p" && purge+=("$p")
	done
	# One dpkg call: it removes libhwtimer-dev before libhwtimer1.
	[ ${#purge[@]} = 0 ] || dpkg --purge "${purge[@]}" >/dev/null 2>&1 || true
	rm -f "${mok[@]}"
	rm -rf "$tmp"
}
for p in "${pkgs[@]}"; do
	installed "$p" && echo "deb-check: $p is installed (left by an earlier run?): removing it first"
done
cleanup
tmp=$(mktemp -d)
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pkg_state() { dpkg-query -W -f='${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n' | sort; }
named() {
	{
		find /usr/src /usr/lib /usr/include /usr/share /lib/modules -iname '*hwtimer*'
		find /var/lib/dkms
	} 2>/dev/null | sort
}
pkg_state >"$tmp/pkgs.before"
named >"$tmp/named.before"

# The kernel the README's blocks build for.
kver=$(uname -r)
if [ ! -e "/lib/modules/$kver/build/include" ]; then
	kver=$(for k in $(ls -v /lib/modules); do
		[ -e "/lib/modules/$k/build/include" ] && echo "$k"
	done | tail -n 1)
	[ -n "$kver" ] || fail "no kernel under /lib/modules has a build tree (linux-headers-*)"
	echo "deb-check: the running kernel $(uname -r) has no build tree: the README's commands build for $kver"
fi
arch=$(uname -m)
# A README block, run as printed by bash with `uname -r` naming $kver, and
# sudo a no-op (root); lines matching $2 are left out.
readme_block() {
	local start=$1 skip=${2:-^$}
	awk -v start="$start" '
		index($0, start) == 1 { found = 1; inside = 1 }
		inside && /^```$/ { exit }
		inside { print }
	' README.md | grep -v -e "$skip" >"$tmp/block.sh" || true
	[ -s "$tmp/block.sh" ] || fail "README.md has no sh block starting with '$start'"
	sed 's/^/  + /' "$tmp/block.sh"
	KVER=$kver bash -euo pipefail -c '
		uname() { if [ "$*" = -r ]; then echo "$KVER"; else command uname "$@"; fi; }
		sudo() { "$@"; }
		. "$1"' deb-check "$tmp/block.sh"
}
# apt asks nothing: the README's `apt install` has no -y.
echo 'APT::Get::Assume-Yes "true";' >"$tmp/apt.conf"
export APT_CONFIG=$tmp/apt.conf

echo "deb-check: the README's install block"
if [ "$kver" = "$(uname -r)" ]; then skip='^$'; else skip='^sudo modprobe'; fi
readme_block 'make deb ' "$skip" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "the README's install block failed (above)"; }
pkg_state >"$tmp/pkgs.installed"
comm -13 <(cut -d: -f1 "$tmp/pkgs.before" | sort -u) <(cut -d: -f1 "$tmp/pkgs.installed" | sort -u) |
	grep -v -x -F "$(printf '%s\n' "${pkgs[@]}")" >"$tmp/pulled" || true
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" = "ii " ] ||
		{ cat "$tmp/install.log" >&2; fail "$p is not installed after the README's install block"; }
	dpkg -L "$p" >"$tmp/$p.files"
done
dkmsdir=/var/lib/dkms/hwtimer/1.0.0/$kver/$arch/module
ls "$dkmsdir"/hwtimer.ko* "$dkmsdir/Module.symvers" >/dev/null 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "hwtimer-dkms's install built no hwtimer.ko and Module.symvers for $kver in $dkmsdir"; }
[ "$(modinfo -k "$kver" -F name hwtimer 2>/dev/null)" = hwtimer ] ||
	fail "modprobe would find no hwtimer module for $kver: $(modinfo -k "$kver" -n hwtimer 2>&1)"
pulled=$(tr '\n' ' ' <"$tmp/pulled")
echo "deb-check: installed ${pkgs[*]}${pulled:+ (and ${pulled% })}; DKMS built hwtimer for $kver: $(modinfo -k "$kver" -n hwtimer)"

echo "deb-check: the README's libhwtimer program, against libhwtimer-dev"
awk '/^```c$/ { n++; inside = 1; body = ""; next }
	inside && /^```$/ { inside = 0; if (body ~ /#include <libhwtimer.h>/) { printf "%s", body; exit } next }
	inside { body = body $0 "\n" }' README.md >"$tmp/app.c"
grep -q '^int main' "$tmp/app.c" || fail "README.md has no c program that includes <libhwtimer.h>"
(cd "$tmp" && cc app.c $(pkg-config --cflags --libs libhwtimer) -o app &&
	cc -static app.c $(pkg-config --cflags --libs --static libhwtimer) -o app-static) >"$tmp/cc.log" 2>&1 ||
	{ cat "$tmp/cc.log" >&2; fail "the README's program does not build against the packages (above)"; }
lib=$(ldd "$tmp/app" | awk '$1 == "libhwtimer.so.1" { print $3 }')
[ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$(grep '/libhwtimer\.so\.1$' "$tmp/libhwtimer1.files")")" ] ||
	fail "the shared build finds libhwtimer.so.1 at '$lib', not libhwtimer1's"
! ldd "$tmp/app-static" >/dev/null 2>&1 || fail "the -static build is dynamic"
echo "deb-check: it links shared ($lib) and static"

echo "deb-check: the README's dependent module, through DKMS"
readme_block 'd=/usr/src/hwtimer-sample-' >"$tmp/sample.log" 2>&1 ||
	{ cat "$tmp/sample.log" >&2; fail "the README's dependent-module block failed (above)"; }
ko=$(ls /var/lib/dkms/$sample/"$kver/$arch/module"/hwtimer_sample.ko* 2>/dev/null | head -n 1)
[ -n "$ko" ] || { cat "$tmp/sample.log" >&2; fail "no hwtimer_sample.ko for $kver"; }
[ "$(modinfo -F depends "$ko")" = hwtimer ] || fail "$ko does not depend on hwtimer: $(modinfo -F depends "$ko")"
grep -q 'WARNING.*undefined' "$tmp/sample.log" /var/lib/dkms/$sample/build/make.log 2>/dev/null &&
	fail "the sample's build has undefined symbols"
echo "deb-check: hwtimer_sample.ko built for $kver, depends on hwtimer"
# The block's first line names the directories its "later:" line removes.
{ head -n 1 "$tmp/block.sh"; sed -n 's/^# later: //p' "$tmp/block.sh"; } >"$tmp/later.sh"
bash -euo pipefail -c 'sudo() { "$@"; }; . "$1"' deb-check "$tmp/later.sh" >>"$tmp/sample.log" 2>&1 ||
	{ cat "$tmp/sample.log" >&2; fail "the README's removal of the dependent module failed"; }
[ ! -e "/usr/src/${sample/\//-}" ] && [ -z "$(dkms status "$sample")" ] ||
	fail "the README's removal left the sample in /usr/src or DKMS"

echo "deb-check: dpkg -r and --purge of each package"
for p in libhwtimer-dev libhwtimer1 hwtimer-dkms; do
	dpkg -r "$p" >"$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log" >&2; fail "dpkg -r $p failed"; }
	dpkg --purge "$p" >"$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log" >&2; fail "dpkg --purge $p failed"; }
	while read -r f; do
		[ "$f" = /. ] && continue
		if [ -d "$f" ] && [ ! -L "$f" ]; then
			# Its own directories (/usr/src/hwtimer-1.0.0/...), not shared ones.
			if [[ $f == *hwtimer* ]] && ! grep -q -x -F "$f" "$tmp/named.before"; then
				fail "dpkg -r $p left $f"
			fi
		elif [ -e "$f" ] || [ -L "$f" ]; then
			fail "dpkg -r $p left $f"
		fi
	done <"$tmp/$p.files"
done
[ ! -s "$tmp/pulled" ] || dpkg --purge $(cat "$tmp/pulled") >/dev/null
[ -z "$(dkms status hwtimer)" ] || fail "DKMS still lists hwtimer: $(dkms status hwtimer)"
rm -f "${mok[@]}"
named >"$tmp/named.after"
diff "$tmp/named.before" "$tmp/named.after" >"$tmp/named.diff" ||
	{ sed 's/^/  /' "$tmp/named.diff" >&2; fail "files named *hwtimer* differ from before (> left behind)"; }
pkg_state >"$tmp/pkgs.after"
diff "$tmp/pkgs.before" "$tmp/pkgs.after" >"$tmp/pkgs.diff" ||
	{ sed 's/^/  /' "$tmp/pkgs.diff" >&2; fail "the machine's packages differ from before (< before, > after)"; }
echo "deb-check: nothing left behind; the machine's $(wc -l <"$tmp/pkgs.after") packages are as they were"
echo "deb-check passed"
