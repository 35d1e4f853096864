#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The audit mutants (tools/testing/mutants/audit/*.patch): each reintroduces
# one finding of an outside audit into today's code. For each patch, this
# copies the tracked files of the tree (git ls-files) into a scratch
# directory, applies the patch there (never to the checkout), and runs the
# project's tests that can kill it, cheapest first:
#
#   1. the simulation: make -C SCRATCH sim SIM_SEEDS=$SIM_SEEDS, when the
#      tree has a sim target (else "not run");
#   2. the host build of the modules (W=1, Debian's headers, scripts/kdir.sh):
#      a mutant that does not compile is stillborn, not killed;
#   3. with MUTANTS_VM=1, one boot of the KERNEL debug VM per mutant, running
#      only the KUnit modules and test programs its header names on its
#      "ONLY:" line (scripts/runner.sh one check, ONLY=...), and, for a
#      header with a "STRESS:" line, the stress smoke's steps it names (a
#      boot of its own, scripts/runner.sh stress smoke). Only when that
#      kernel is built already (scripts/kernel.sh --cached): this never
#      builds a kernel. Minutes per boot under TCG.
#
# A mutant is killed by the first step that fails on it; with
# MUTANTS_ALL=1 every step runs, to list every test that kills it.
#
#   scripts/mutants.sh [PATCH...]     default: every audit patch
#
# Environment: SIM_SEEDS (default 200), SIM_TIMEOUT (s, default 300),
# MUTANTS_VM (0), MUTANTS_ALL (0), KERNEL (6.1), MUTANTS_OUT (default
# ${TMPDIR:-/tmp}/hwtimer-mutants: the scratch trees and each step's log),
# MUTANTS_TABLE (where the markdown table goes; default
# $MUTANTS_OUT/table.md). Prints the table, and ends with
# "N passed, N failed, N skipped": a mutant killed passes; one not killed
# fails, and so does one whose patch no longer applies or that does not
# compile (stillborn): the finding must be put back into today's code.
set -euo pipefail
shopt -s nullglob

top=$(cd "$(dirname "$0")/.." && pwd)
out=${MUTANTS_OUT:-${TMPDIR:-/tmp}/hwtimer-mutants}
table=${MUTANTS_TABLE:-$out/table.md}
kernel=${KERNEL:-6.1}
seeds=${SIM_SEEDS:-200}
sim_timeout=${SIM_TIMEOUT:-300}
vm=${MUTANTS_VM:-0}
all=${MUTANTS_ALL:-0}

say() { echo "mutants: $*" >&2; }

patches=("$@")
[ ${#patches[@]} -gt 0 ] || patches=("$top"/tools/testing/mutants/audit/*.patch)
[ ${#patches[@]} -gt 0 ] || { say "no patches"; exit 2; }
for p in "${patches[@]}"; do
	[ -f "$p" ] || { say "no patch $p"; exit 2; }
done
mkdir -p "$out"

# The tracked files of the checkout as they are now, into $1.
copy_tree() {
	rm -rf "$1"
	mkdir -p "$1"
	git -C "$top" ls-files -z | tar --null -C "$top" --ignore-failed-read -cf - -T - 2>/dev/null |
		tar -C "$1" -xf -
}

# A header line "KEY: value" of patch $1 (before the diff).
header() {
	sed -n '/^diff \|^--- /q; s/^'"$2"': *//p' "$1" | head -n 1
}

# The finding, from the header's first line "Audit mutant (x): ...", with
# the lines that continue it.
finding() {
	awk 'NR == 1 { sub(/^Audit mutant \([a-z]\): */, ""); s = $0; next }
	     /^$/ { exit } { s = s " " $0 } END { print s }' "$1"
}

# 1. The simulation, if the tree has one (make sim-build, then make sim).
# Prints killed, "killed (time-out)", survived, absent or "does not build".
sim_step() {
	local t=$1 log=$2 rc=0
	if ! make -C "$t" -n sim >/dev/null 2>&1; then
		echo absent
		return
	fi
	if ! make -C "$t" -s sim-build >"$log" 2>&1; then
		echo "does not build"
		return
	fi
	timeout "$sim_timeout" make -C "$t" -s sim SIM_SEEDS="$seeds" >>"$log" 2>&1 || rc=$?
	if [ $rc = 0 ]; then
		echo survived
	elif [ $rc = 124 ]; then
		echo "killed (time-out)"
	else
		echo killed
	fi
}

# The simulation's failure, in one line: its seed and what broke.
sim_fail() {
	grep -m1 -E '^FAIL ' "$1" | sed -E 's/^FAIL //; s/\|/\\|/g' | cut -c1-140 || true
}

# 2. The host build of the modules, W=1. Prints built, warns or stillborn.
build_step() {
	local t=$1 log=$2
	if ! make -C "$t" -s modules W=1 -j2 >"$log" 2>&1; then
		echo stillborn
	elif grep -v '^make' "$log" | grep -qE 'warning:'; then
		echo warns
	else
		echo built
	fi
}

# What a VM run's result lines say failed, in one line.
vm_fails() {
	grep -E '^FAIL ' "$1" | sed -E 's/^FAIL ([^ ]*vm\.log:[0-9]+: )?//; s/\[ *[0-9.]+\] //;
		s| at /[^ ]*/kmod/| at kmod/|; s/\+0x[0-9a-f]+\/0x[0-9a-f]+//' |
		cut -c1-120 | head -n 4 | paste -sd ';' - | sed 's/|/\\|/g; s/;/; /g'
}

# The user-space programs for the guest, built once per run (the marker
# $out/base/built.$$), in a scratch copy of the unpatched tree: the mutants
# change only the kernel side, and each mutant's tree gets a copy of them.
user_built=$out/base/tree/build
build_user_once() {
	local ksrc b=$out/base
	[ -e "$b/built.$$" ] && return 0
	ksrc=$("$top/scripts/kernel.sh" source 6.1) || return 1
	copy_tree "$b/tree"
	say "building the user-space programs once, in $b/tree"
	(cd "$b/tree" && make -s KSRC="$ksrc" HWT_OUT="$b/tree/build" user stress-user) \
		>"$b/user.log" 2>&1 || { cat "$b/user.log" >&2; return 1; }
	rm -f "$b"/built.*
	touch "$b/built.$$"
}

# 3. The VM: prints killed, survived or a reason it did not run; the
# failing lines go to $3.
vm_step() {
	local t=$1 p=$2 why=$3 only stress rc=0 res
	res=$t/vm-result.txt
	only=$(header "$p" ONLY)
	stress=$(header "$p" STRESS)
	: >"$why"
	if [ -z "$only" ] && [ -z "$stress" ]; then
		echo "no VM test named"
		return
	fi
	if ! "$top/scripts/kernel.sh" --cached debug "$kernel" >/dev/null 2>&1; then
		echo "not run: no $kernel debug kernel built"
		return
	fi
	build_user_once || { echo "not run: user-space build failed"; return; }
	mkdir -p "$t/build"
	cp -a "$user_built"/. "$t/build/"
	if [ -n "$only" ]; then
		say "$(basename "$p"): booting $kernel for ONLY=$only"
		(cd "$t" && ONLY=$only KERNEL=$kernel scripts/runner.sh one check "$kernel") \
			>"$res" 2>&1 || rc=$?
	fi
	if [ -n "$stress" ]; then
		say "$(basename "$p"): booting $kernel for the stress steps $stress"
		(cd "$t" && STRESS_STEPS=$stress KERNEL=$kernel scripts/runner.sh stress smoke) \
			>>"$res" 2>&1 || rc=$?
	fi
	vm_fails "$res" >"$why"
	if grep -q . "$why"; then
		echo killed
	elif grep -qE '^[0-9]+ passed, 0 failed' "$res"; then
		echo survived
	else
		echo "not judged (status $rc, see $res)"
	fi
}

rows=()
passed=0 failed=0 skipped=0
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	d=$out/$name
	mkdir -p "$d"
	t=$d/tree
	say "$name: copying the tree"
	copy_tree "$t"
	if ! patch -s -p1 -d "$t" <"$p" >"$d/patch.log" 2>&1; then
		say "$name: the patch does not apply"
		rows+=("| $name | $(finding "$p") | - | - | - | FAILED: the patch does not apply ($d/patch.log) |")
		failed=$((failed + 1))
		continue
	fi
	killed=() sim=- build=- vmres=-
	sim=$(sim_step "$t" "$d/sim.log")
	say "$name: sim $sim"
	case $sim in
	killed*) killed+=("simulation: $(sim_fail "$d/sim.log")") ;;
	esac
	build=$(build_step "$t" "$d/build.log")
	say "$name: host build $build"
	if [ "$build" = stillborn ]; then
		rows+=("| $name | $(finding "$p") | $sim | stillborn | - | FAILED: stillborn (does not compile: $d/build.log) |")
		failed=$((failed + 1))
		continue
	fi
	if [ "$vm" = 1 ] && { [ ${#killed[@]} = 0 ] || [ "$all" = 1 ]; }; then
		vmres=$(vm_step "$t" "$p" "$d/vm-fails.txt")
		say "$name: VM $vmres"
		[ "$vmres" = killed ] && killed+=("VM: $(cat "$d/vm-fails.txt")")
	elif [ "$vm" != 1 ]; then
		vmres="not run (MUTANTS_VM=1)"
	fi
	if [ ${#killed[@]} -gt 0 ]; then
		by=$(printf '%s; ' "${killed[@]}")
		rows+=("| $name | $(finding "$p") | $sim | $build | $vmres | ${by%; } |")
		passed=$((passed + 1))
	else
		rows+=("| $name | $(finding "$p") | $sim | $build | $vmres | NOT KILLED |")
		failed=$((failed + 1))
	fi
done

{
	echo "| mutant | finding | sim ($seeds seeds) | host build | VM ($kernel) | killed by |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${rows[@]}"
} >"$table"
cat "$table"
echo "table: $table; logs: $out/NAME/"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
