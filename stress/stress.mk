# SPDX-License-Identifier: GPL-2.0
#
# Stress, fault-injection, fuzzing and data-race targets, included by the
# top-level Makefile (see stress/stress.sh and docs/security.md):
#
#   make stress         every stress item at length in the debug VM (about
#                       10 minutes): kernel and user accounting ledgers,
#                       destroy racing modify, CPU hotplug under load,
#                       fail-nth fault injection, the ioctl fuzzer (64 and
#                       32 bit), the security checks, module lifecycle;
#                       ends with "N passed, N failed"
#   make stress-smoke   the same items, short (1 to 2 minutes of VM time);
#                       part of `make check`
#   make check-kcsan    the KUnit suites and the stress smoke on a kernel
#                       with KCSAN instead of KASAN (scripts/kcsan.config)
#
# STRESS_STEPS="kacct faults ..." runs only some steps; STRESS_PATCHES=file
# tries a proposed fix on a copy of the sources.

.PHONY: stress stress-smoke check-kcsan

stress:
	stress/stress.sh full

stress-smoke:
	stress/stress.sh smoke

check-kcsan:
	stress/stress.sh kcsan
