#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack a directory into a busybox initramfs and boot it in QEMU.
#
#   scripts/vm-boot.sh KERNEL_DIR ROOTFS_DIR MODE [LOG]
#
# KERNEL_DIR is a kernel build tree (scripts/kernel.sh), ROOTFS_DIR the
# guest's files (staged by scripts/runner.sh), MODE the hwt.mode= of the
# guest's /init, scripts/guest-init.sh. With LOG, the serial console is also
# saved there and the VM has a time limit; without (MODE=shell), QEMU owns
# the terminal (Ctrl-A x quits).
#
# Environment: ACCEL (tcg, the default, or kvm: scripts/lib.sh's
# pick_accel probes which works), SMP (vCPUs, default 2), MEM (default 1G), VM_TIMEOUT
# (seconds, default 1200), UT_TIMEOUT (per guest program, default 600),
# APPEND (extra kernel command line), QEMU_EXTRA (extra QEMU options),
# QUIET=1 (do not echo the console while saving it), CONSOLE=user (echo
# only what the guest's programs print).
#
# Exit status: QEMU's, or 124 when the time limit killed the VM.
set -euo pipefail

kdir=$1 rootfs=$2 mode=$3 log=${4:-}
top=$(cd "$(dirname "$0")/.." && pwd)
# The kernel's architecture, from its .config: x86_64, or arm64, whose
# guest's busybox is Debian's arm64 busybox-static (scripts/fetch.sh arm64).
if grep -qx 'CONFIG_ARM64=y' "$kdir/.config" 2>/dev/null; then
	arch=arm64
	image=$kdir/arch/arm64/boot/Image
	busybox=$("$top/scripts/fetch.sh" arm64)/bin/busybox
else
	arch=x86_64
	image=$kdir/arch/x86/boot/bzImage
	busybox=/bin/busybox
fi
gen_init_cpio=$kdir/usr/gen_init_cpio
[ -f "$image" ] || { echo "vm-boot.sh: no $image" >&2; exit 2; }
[ -x "$gen_init_cpio" ] || { echo "vm-boot.sh: no $gen_init_cpio" >&2; exit 2; }
[ -x "$busybox" ] || { echo "vm-boot.sh: no $busybox" >&2; exit 2; }

# gen_init_cpio writes device nodes and root-owned files without root.
# /dev/console must exist before /init runs, or init has no stdin/stdout.
initrd=$rootfs.cpio.gz
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /bin 0755 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "file /init $top/scripts/guest-init.sh 0755 0 0"
	(cd "$rootfs" && find . -mindepth 1 -type d -printf 'dir /%P 0755 0 0\n')
	(cd "$rootfs" && find . -mindepth 1 -type f -printf "file /%P $rootfs/%P %m 0 0\n")
} >"$initrd.list"
"$gen_init_cpio" "$initrd.list" | gzip -1 >"$initrd"

# panic=-1 reboots on a panic, which -no-reboot turns into QEMU exiting: a
# panic costs seconds, not the time limit. kasan_multi_shot: every KASAN
# report, not the first only. A TCG vCPU on a loaded 2-core host can be
# descheduled for seconds, and the lockup detectors would see a stall that
# never happened: their thresholds go up to 60 s.
console=ttyS0
[ $arch = arm64 ] && console=ttyAMA0
cmdline="console=$console hwt.mode=$mode hwt.timeout=${UT_TIMEOUT:-600}"
cmdline+=" panic=-1 kasan_multi_shot no_hash_pointers kmemleak=on"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
cmdline+=" workqueue.watchdog_thresh=60 printk.devkmsg=on nokaslr"
cmdline+=" ${APPEND:-}"

# 1G: a kmemleak scan walks all struct pages, about 12 s of TCG time per
# GB, and a check makes two. No NIC: no network, and its boot ROM costs a
# second. la57=off: 4-level paging. TCG's "max" CPU has 5-level paging,
# which a kernel uses when built with it, as every x86_64 kernel is since
# 6.16 (commit "x86/mm/64: Make 5-level paging support unconditional";
# 6.1's and 6.12's tinyconfig leave X86_5LEVEL off). With it, 7.3's KASAN
# reports wild-memory-access at boot and the boot stalls under TCG.
# arm64: QEMU's virt machine, booted with its device tree (no firmware),
# always under TCG on this x86 host; -cpu max has every feature TCG
# emulates (the kernels' tinyconfig leaves pointer authentication, BTI,
# MTE and SVE off, so their cost under TCG does not arise).
case "${ACCEL:-tcg}" in
tcg | kvm) ;;
*) echo "vm-boot.sh: ACCEL=$ACCEL: tcg or kvm" >&2; exit 2 ;;
esac
if [ $arch = arm64 ]; then
	qemu=(qemu-system-aarch64 -M virt -accel tcg -cpu max)
else
	qemu=(qemu-system-x86_64 -accel "${ACCEL:-tcg}" -cpu "max,la57=off")
fi
qemu+=(-smp "${SMP:-2}" -m "${MEM:-1G}"
	-nographic -no-reboot -nic none -kernel "$image" -initrd "$initrd"
	-append "$cmdline")
# shellcheck disable=SC2206 # QEMU_EXTRA is a list of options
qemu+=(${QEMU_EXTRA:-})
[ -n "$log" ] || exec "${qemu[@]}"

echo_console() {
	if [ "${QUIET:-0}" = 1 ]; then
		cat >/dev/null
	elif [ "${CONSOLE:-all}" = user ]; then
		awk '/@@HWT boot/ { on = 1 } on && !/^\[ *[0-9]+\.[0-9]+\]/ { print; fflush() }'
	else
		cat
	fi
}

# -k: SIGKILL 10 s after the SIGTERM (timeout then says 137, not 124).
# stdin /dev/null: QEMU never waits on a terminal (CI has none).
set +e
timeout -k 10 "${VM_TIMEOUT:-1200}" "${qemu[@]}" </dev/null 2>&1 | tee "$log" | echo_console
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 137 ] && rc=124
exit "$rc"
