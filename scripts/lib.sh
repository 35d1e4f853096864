# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The host side every VM target shares: scripts/runner.sh and its stress
# and bench runs (stress/lib.sh, bench/lib.sh). Sourced after `set -euo
# pipefail`, with `prog` naming the messages' prefix; sets `top`, moves there.
#
#   say MSG                 progress on stderr, with the seconds so far
#   pass, fail MSG          count a check; fail prints "FAIL MSG"
#   add_counts LINE         add a "N passed, N failed, N skipped" line
#   summary                 print that line for this run; false if failed
#   abort MSG               count a failure everything after needs, print
#                           the summary, exit 1
#   parse LOG SEG [DONE]    scripts/parse-log.awk on a segment of LOG
#   judge LOG SEG DONE      the same, printing its FAILs, adding its counts
#   indent                  stdin, indented
#   kbuild_tree NAME KDIR TREE DIR...
#                           hwtimer.ko and DIRs as one external-module tree,
#                           built with W=1
#   built_modules TREE      the modules a tree built
#   stage_modules TREE ROOT copy them into ROOT/hwt/
#   own_boot FLAVOUR USER DIR...
#                           the build and staging of a stress or bench run
#   boot_vm KDIR ROOT MODE LOG
#                           boot the VM (scripts/vm-boot.sh) and wait
#   skip MSG                count a check that cannot run here, and why
#   check_boot LOG KERNEL   say which kernel the log comes from, check it
#   pick_accel KDIR         set and export ACCEL (tcg or kvm) for the VMs
#   kernel_arch KERNEL      x86_64, or arm64 for a scripts/kernel.sh name
#                           *-arm64*
#   kbuild_arch KDIR        make's ARCH= and CROSS_COMPILE= for a tree
#   user_out ARCH           where the user-space programs of ARCH go:
#                           build/, or build/arm64/ for arm64
#   user_make ARCH KSRC TARGET...
#                           make those programs for ARCH (static; for
#                           arm64 cross-built, without the -m32 twins)

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
# make's flags (-j with a jobserver, -n, -s) are not for the builds here;
# its variables (make check SMP=4) are in the environment and stay.
unset MAKEFLAGS MFLAGS MAKELEVEL
prog=${prog:-hwtimer}
passed=0 failed=0 skipped=0
# The user-space programs the guest gets (user_out): x86_64's unless a
# kernel's architecture says otherwise.
uout=$top/build
lib_t0=$SECONDS

say() { echo "$prog: $* [$((SECONDS - lib_t0)) s]" >&2; }
pass() { passed=$((passed + 1)); }
skip() {
	echo "SKIP $*"
	skipped=$((skipped + 1))
}

kernel_arch() {
	case "$1" in
	*-arm64*) echo arm64 ;;
	*) echo x86_64 ;;
	esac
}

# The make arguments that build modules against KDIR: none for x86_64
# trees (this host's), the cross compiler for arm64 ones.
kbuild_arch() {
	if grep -qx 'CONFIG_ARM64=y' "$1/.config" 2>/dev/null; then
		echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	fi
}
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}
indent() { sed 's/^/    /'; }

add_counts() {
	local re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
	[[ $1 =~ $re ]] || return 1
	passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
	skipped=$((skipped + BASH_REMATCH[3]))
}

summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}

abort() {
	echo "$prog: error: $*" >&2
	failed=$((failed + 1))
	summary || true
	exit 1
}

parse() { awk -v seg="$2" -v need_done="${3:-0}" -f scripts/parse-log.awk "$1"; }

judge() {
	local res rc=0 p f s
	res=$(parse "$@") || rc=$?
	grep -v '^RESULT ' <<<"$res" || true
	read -r _ p f s < <(grep '^RESULT ' <<<"$res")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	return $rc
}

user_out() {
	if [ "$1" = arm64 ]; then echo "$top/build/arm64"; else echo "$top/build"; fi
}

# arm64: Debian's cross compiler and its libc6-dev-arm64-cross, liburing.a
# of Debian's arm64 liburing-dev (scripts/fetch.sh arm64).
user_make() {
	local arch=$1 ksrc=$2 r args
	shift 2
	args=(KSRC="$ksrc" HWT_OUT="$(user_out "$arch")")
	if [ "$arch" = arm64 ]; then
		r=$(scripts/fetch.sh arm64) || return 1
		args+=(USER_CC=aarch64-linux-gnu-gcc USER_32BIT=0 URING_CFLAGS="-I$r/usr/include"
			URING_LIBS="-L$r/usr/lib/aarch64-linux-gnu -luring")
	fi
	# The caller's variables last: theirs win (HWT_OUT for the fixtures).
	make -s "${args[@]}" "$@"
}

# One tree, so that modpost links the modules against hwtimer's exports;
# kunit/ only where the kernel has KUnit. kbuild writes objects beside the
# sources, which are built against several kernels and in the checkout by
# the user: each tree is a copy (tar keeps mtimes: no needless rebuilds).
# PATCHES (patch files) apply to the copy; KBUILD_ARGS are make arguments
# (C=2 CHECK=...: sparse). A warning from the compiler, sparse or modpost
# fails a check, and the objects go so that the next run reports it again;
# with C=2, so does a build that checked no file: a kernel's Makefile turns
# sparse off, with a make message and no warning, when its
# scripts/checker-valid.sh finds the program too old (7.3 and Debian 12's
# sparse 0.6.4). Returns 1 only when the build failed.
kbuild_tree() {
	local name=$1 kdir=$2 tree=$3 d p
	shift 3
	mkdir -p "$tree"
	find kmod include "$@" -type f \( -name '*.[ch]' -o -name Kbuild \) -print0 |
		tar --null -cf - -T - | tar -C "$tree" -xf -
	for p in ${PATCHES:-}; do
		patch -s -p1 -d "$tree" <"$p" || { echo "$prog: patch $p does not apply" >&2; return 1; }
		say "applied $p"
	done
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		for d in kmod "$@"; do
			[ "$d" = kunit ] && echo "obj-\$(CONFIG_KUNIT) += kunit/" || echo "obj-y += $d/"
		done
	} >"$tree/Kbuild"
	# shellcheck disable=SC2086,SC2046 # KBUILD_ARGS is a list of make arguments
	if ! make -C "$kdir" $(kbuild_arch "$kdir") M="$tree" W=1 -j"$(nproc)" ${KBUILD_ARGS:-} modules >"$tree.log" 2>&1; then
		cat "$tree.log" >&2
		echo "$prog: $name: build failed" >&2
		return 1
	fi
	# Not make's own chatter; a sparse error does not stop the build.
	if grep -v '^make' "$tree.log" | grep -E 'warning:|WARNING:|error:' >&2; then
		find "$tree" -name '*.o' -delete
		fail "$name: the W=1 build has warnings (above)"
	else
		pass
	fi
	# C=2 checks every file, built or not: a CHECK line each.
	case " ${KBUILD_ARGS:-} " in
	*" C=2 "*)
		if grep -E 'C=2 specified, but' "$tree.log" >&2 || ! grep -qE '^ +CHECK +' "$tree.log"; then
			find "$tree" -name '*.o' -delete
			fail "$name: sparse checked no file: the kernel's Makefile switched C= off (above)"
		else
			pass
		fi
		;;
	esac
	return 0
}

# From modules.order (6.1 lists .ko files, later kernels .o; paths may be
# absolute), relative to the tree.
built_modules() { sed -e 's/\.o$/.ko/' -e "s|^$1/||" "$1/modules.order"; }

# To the same place under the guest's /hwt: /hwt/kmod/hwtimer.ko, /hwt/kunit/...
stage_modules() {
	local f
	for f in $(built_modules "$1"); do
		mkdir -p "$2/hwt/$(dirname "$f")"
		cp "$1/$f" "$2/hwt/$f"
	done
}

# For stress_run and bench_run on `kernel`, into `vm`: packages, the cached
# FLAVOUR test kernel (sets kdir), hwtimer.ko and DIRs in $vm/kbuild (with
# PATCHES: a throw-away $vm/kbuild-patched), the programs of make target
# USER, all staged into a new $vm/rootfs (sets root).
own_boot() {
	# shellcheck disable=SC2154 # vm and kernel are the caller's
	local flavour=$1 user=$2 kb=$vm/kbuild ksrc
	shift 2
	scripts/deps.sh
	kdir=$(scripts/kernel.sh "$flavour" "$kernel") || abort "no $flavour $kernel kernel"
	say "$flavour $kernel kernel $kdir"
	pick_accel "$kdir"
	if [ -n "${PATCHES:-}" ]; then
		kb=$vm/kbuild-patched
		rm -rf "$kb"
	fi
	kbuild_tree "modules (W=1)" "$kdir" "$kb" "$@" || abort "module build failed"
	# kselftest.h: 6.1's on every kernel, as for the tests (runner.sh).
	ksrc=${KSRC:-}
	# shellcheck disable=SC2034 # for stress_stage and bench_stage
	uout=$(user_out "$(kernel_arch "$kernel")")
	user_make "$(kernel_arch "$kernel")" "$ksrc" "$user" || abort "$user: build failed"
	say "modules and $user built"
	root=$vm/rootfs
	rm -rf "$root"
	stage_modules "$kb" "$root"
}

# The console is echoed unless QUIET=1; with PROGRESS (an extended regular
# expression), only its matching lines. The rest of the environment goes to
# scripts/vm-boot.sh. A time-out or a QEMU failure is a failed check.
boot_vm() {
	local kdir=$1 root=$2 mode=$3 log=$4 rc=0 pid
	say "booting the VM for $mode (SMP=${SMP:-2}, MEM=${MEM:-1G}, time limit ${VM_TIMEOUT:-1200} s), log in $log"
	: >"$log"
	if [ -n "${PROGRESS:-}" ]; then
		QUIET=1 scripts/vm-boot.sh "$kdir" "$root" "$mode" "$log" &
		pid=$!
		tail --pid=$pid -n +1 -F "$log" 2>/dev/null |
			grep --line-buffered -E "$PROGRESS" >&2 || true
		wait $pid || rc=$?
	else
		scripts/vm-boot.sh "$kdir" "$root" "$mode" "$log" || rc=$?
	fi
	say "VM finished (status $rc)"
	if [ $rc = 124 ]; then
		fail "the VM hit its time limit VM_TIMEOUT=${VM_TIMEOUT:-1200} s"
	elif [ $rc != 0 ]; then
		fail "QEMU exited with status $rc"
	fi
}

# KERNEL is a scripts/kernel.sh name: the version, PREEMPT_RT exactly for
# -rt, the machine (aarch64 for *-arm64*) and the page size (64 KiB for
# *-64k, else 4 KiB) must match, so that a stale or mislabelled cache entry
# cannot pass for another kernel.
check_boot() {
	local log=$1 kernel=$2 line rel model machine pagesize want_machine=x86_64 want_page=4096
	line=$(grep -a -m1 '@@HWT boot ' "$log" | tr -d '\r') || true
	if [ -z "$line" ]; then
		fail "the guest never printed its boot line"
		return
	fi
	line=${line#*@@HWT boot }
	# Kernel output the console glued to the line's end ("... UTC 2026[
	# 7.464859] hwtimer: loading ...").
	line=$(sed 's/\[ *[0-9]*\.[0-9]*\] .*//' <<<"$line")
	rel=${line%% *}
	model=$(sed -n 's/.* preempt=\([^ ]*\).*/\1/p' <<<"$line")
	machine=$(sed -n 's/.* machine=\([^ ]*\).*/\1/p' <<<"$line")
	pagesize=$(sed -n 's/.* pagesize=\([^ ]*\).*/\1/p' <<<"$line")
	[[ $kernel == *-arm64* ]] && want_machine=aarch64
	[[ $kernel == *-64k ]] && want_page=65536
	echo "booted: Linux $rel on ${machine:-unknown}, ${pagesize:-unknown}-byte pages, preemption model ${model:-unknown}, ${line#*version=}"
	if [[ $rel != "${kernel%%-*}".* ]]; then
		fail "the guest runs Linux $rel, not $kernel"
	elif [ "$machine" != $want_machine ] || [ "$pagesize" != $want_page ]; then
		fail "the guest runs on ${machine:-unknown} with ${pagesize:-unknown}-byte pages, not $kernel's $want_machine with $want_page"
	elif [[ $kernel == *-rt && $model != rt ]]; then
		fail "the guest's kernel is not PREEMPT_RT (preempt=$model)"
	elif [[ $kernel != *-rt && $model == rt ]]; then
		fail "the guest's kernel is PREEMPT_RT, $kernel is not"
	else
		pass
	fi
}

# ACCEL=tcg or kvm is used as given; auto (the default where unset) probes
# KVM once per run: a boot of KDIR under KVM, with nothing in it but the
# boot line, must finish within PROBE_TIMEOUT seconds (default 15; under
# KVM it takes one or two). KVM if it does, TCG otherwise, which this says,
# and exported for every VM of the run. A machine may have a /dev/kvm whose
# guests hang: the time limit kills the probe, and TCG it is.
pick_accel() {
	local kdir=$1 dir=$top/build/kvm-probe rc=0 t0=$SECONDS limit=${PROBE_TIMEOUT:-15}
	# An arm64 guest on this x86_64 host: TCG (scripts/vm-boot.sh), and no
	# probe, whose verdict would be for the x86_64 kernels.
	if [ -n "$(kbuild_arch "$kdir")" ]; then
		say "accelerator: tcg (an arm64 guest on an $(uname -m) host)"
		return 0
	fi
	case "${ACCEL:-auto}" in
	tcg | kvm)
		say "accelerator: $ACCEL (${ACCEL_WHY:-ACCEL=$ACCEL})"
		export ACCEL
		return 0
		;;
	auto) ;;
	*) abort "ACCEL=$ACCEL: tcg, kvm or auto" ;;
	esac
	if [ ! -c /dev/kvm ] || [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		ACCEL=tcg ACCEL_WHY="no usable /dev/kvm"
	else
		rm -rf "$dir"
		mkdir -p "$dir/rootfs"
		ACCEL=kvm MEM=256M VM_TIMEOUT=$limit QUIET=1 APPEND='' QEMU_EXTRA='' \
			scripts/vm-boot.sh "$kdir" "$dir/rootfs" probe "$dir/vm.log" >/dev/null 2>&1 || rc=$?
		if [ $rc = 0 ] && grep -q '@@HWT done' "$dir/vm.log"; then
			ACCEL=kvm ACCEL_WHY="a probe boot under KVM finished in $((SECONDS - t0)) s"
		else
			if [ $rc = 124 ]; then
				rc="killed at its limit of $limit s"
			else
				rc="status $rc"
			fi
			ACCEL=tcg ACCEL_WHY="a probe boot under KVM did not finish: $rc, after $((SECONDS - t0)) s; log in $dir/vm.log"
		fi
	fi
	say "accelerator: $ACCEL ($ACCEL_WHY)"
	export ACCEL ACCEL_WHY
}
