# SPDX-License-Identifier: GPL-2.0
#
# Stress, fault-injection, fuzzing and data-race targets, included by the
# top-level Makefile (see stress/lib.sh and docs/security.md):
#
#   make stress         every stress item at length in the debug VM (about
#                       10 minutes): kernel and user accounting ledgers
#                       (the user one 64 and 32 bit),
#                       destroy racing modify, CPU hotplug under load,
#                       fail-nth fault injection, the ioctl fuzzer (64 and
#                       32 bit), the security checks, module lifecycle;
#                       ends with "N passed, N failed, N skipped"
#   make soak           the same items repeated until 10M ledger operations
#                       in the kernel and in user space each, 1M fuzzer
#                       calls, 50 hotplug cycles under load (SOAK_KERNEL_OPS,
#                       SOAK_USER_OPS, SOAK_FUZZ_CALLS, SOAK_HOTPLUG change
#                       the goals); reports them and the VM time
#   make stress-smoke   the same items, short (1 to 2 minutes of VM time);
#                       `make check` runs the same in its one boot
#   make stress-user    only build the user-space stress programs
#   make check-kcsan    the KUnit suites and the stress smoke on a kernel
#                       with KCSAN instead of KASAN (scripts/kcsan.config)
#
# STRESS_STEPS="kacct faults ..." runs only some steps; STRESS_PATCHES=file
# tries a proposed fix on a copy of the sources; KERNEL=6.1 (default), 6.12,
# 6.12-rt or 7.3 picks the test kernel.

.PHONY: stress soak stress-smoke check-kcsan stress-user

# The user-space stress programs, static, 64-bit and (the fuzzer, the fault
# injector and the user-space ledger, for the compat ioctl path) -m32, into
# build/stress/bin;
# the stress steps also run two of the device's tests (build/ut).
STRESS_BIN := $(HWT_OUT)/stress/bin
STRESS_PROGS := hwtstress-user hwtfault hwtfuzz hwtsec hwtwake
STRESS_PROGS32 := hwtfuzz hwtfault hwtstress-user
STRESS_DEPS := $(wildcard include/uapi/linux/*.h tools/include/*.h)

stress-user: $(addprefix $(STRESS_BIN)/,$(STRESS_PROGS) $(if $(filter 1,$(USER_32BIT)),$(addsuffix -32,$(STRESS_PROGS32)))) \
	$(HWT_OUT)/ut/dev_smoke_test $(HWT_OUT)/ut/dev_ioctl_test

$(STRESS_BIN)/%-32: stress/%.c $(STRESS_DEPS) | $(KSELFTEST_H)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_M32) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $<

$(STRESS_BIN)/%: stress/%.c $(STRESS_DEPS) | $(KSELFTEST_H)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $<

stress:
	scripts/runner.sh stress full

soak:
	scripts/runner.sh stress soak

stress-smoke:
	scripts/runner.sh stress smoke

check-kcsan:
	scripts/runner.sh stress kcsan
