# SPDX-License-Identifier: GPL-2.0
#
# hwtimer top-level Makefile. `make help` lists the targets.
#
# What is compiled into which module is described by the Kbuild files; this
# file drives kbuild, builds the user-space programs, installs, and calls
# the test VM scripts (docs/testing.md).
#
# The test kernels, as scripts/kernel.sh names them (6.1, 6.12, 6.12-rt,
# 7.3): `make check` runs every kernel of KERNELS (default: default_kernels
# in scripts/runner.sh), or only KERNEL when one is given (make check
# KERNEL=7.3); with neither, it also builds the modules against the arm64
# kernels (build_stock in scripts/runner.sh), as CI does. Every other VM
# target (run, shell, runner-test, stress, bench...) boots KERNEL, 6.1 by
# default.

# The kernel build tree: KDIR if given, else the running kernel's, else
# Debian's default headers (linux-headers-amd64); scripts/kdir.sh holds the
# rule, says which tree it took, and is what the runner and CI use too.
export KDIR

KERNEL ?= 6.1
export KERNEL
# KERNEL set by this file (origin "file") means nobody named one.
CHECK_KERNELS := $(if $(filter file,$(origin KERNEL)),$(KERNELS),$(KERNEL))

# Where user-space programs go (the runner points this elsewhere for the
# self-test fixtures).
HWT_OUT ?= $(CURDIR)/build

# The kselftest headers every user-space program includes (the tests are
# written against 6.1's harness), copied into build/: from KSRC when it is
# a kernel source tree, else 6.1's (scripts/kernel.sh kselftest: from the
# unpacked source in the cache if there is one, else those two files alone
# from linux-source-6.1's tarball, which make deps installs).
KSELFTEST := $(HWT_OUT)/kselftest
KSELFTEST_H := $(KSELFTEST)/kselftest_harness.h

.PHONY: all modules clean deps check runner-test run shell user ut tools help \
	install uninstall install-kernel-api uninstall-kernel-api doc-check deb

all: modules

# libhwtimer (lib/lib.mk: make lib, install-lib, uninstall-lib): every
# user-space program below links its static build, LIB_A (LIB32_A for -m32).
include lib/lib.mk

modules:
	@kdir=$$(scripts/kdir.sh) && test -d "$$kdir" || { echo "hwtimer: no kernel build tree at '$$kdir'" >&2; exit 1; }; \
	$(MAKE) -C "$$kdir" M=$(CURDIR) modules

# ---------------------------------------------------------------------------
# User space: every userspace-test/*_test.c is one kselftest-harness program,
# built static for x86_64 and for i386 (the compat ioctl path) as
# build/ut/<name> and build/ut/<name>-32; every tools/*.c is one static
# program in build/tools/. The VM runner copies all of them into the guest.

# One set of flags for every user-space program (tests, tools, stress,
# bench): a warning is an error. tools/include holds hwtimer_user.h, the
# helpers they share (not installed: include/ is the module's API); lib/
# holds libhwtimer.h.
# USER_CC=aarch64-linux-gnu-gcc USER_32BIT=0 HWT_OUT=build/arm64 is how the
# runner builds them for the arm64 test kernels: no -m32 twins there
# (USER_32BIT=0 leaves every -32 program out of the targets).
USER_CC ?= gcc
USER_32BIT ?= 1
USER_CFLAGS := -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -pthread \
	-I$(CURDIR)/include/uapi -I$(CURDIR)/tools/include -I$(CURDIR)/lib -I$(KSELFTEST)
USER_LDFLAGS := -static

UT_DIR ?= userspace-test
UT_SRC := $(wildcard $(UT_DIR)/*_test.c)
UT_BIN := $(patsubst $(UT_DIR)/%.c,$(HWT_OUT)/ut/%,$(UT_SRC))
TOOL_SRC := $(wildcard tools/*.c)
TOOL_BIN := $(patsubst tools/%.c,$(HWT_OUT)/tools/%,$(TOOL_SRC))
USER_DEPS := $(wildcard include/uapi/linux/*.h $(UT_DIR)/*.h tools/*.h \
	tools/include/*.h lib/libhwtimer.h)

# Link flags of one test: lib_mock_test plays the kernel for libhwtimer.
UT_LDFLAGS_lib_mock_test := $(foreach f,open ioctl read poll mmap munmap,-Wl,--wrap=$(f))

user: ut tools
ut: $(UT_BIN) $(if $(filter 1,$(USER_32BIT)),$(addsuffix -32,$(UT_BIN)))
tools: $(TOOL_BIN)

$(KSELFTEST_H):
	@mkdir -p $(@D)
	@ksrc='$(KSRC)'; \
	if [ -f "$$ksrc/tools/testing/selftests/kselftest_harness.h" ]; then \
		cp "$$ksrc/tools/testing/selftests/kselftest.h" \
		   "$$ksrc/tools/testing/selftests/kselftest_harness.h" $(@D)/; \
	else \
		scripts/kernel.sh kselftest $(@D) || \
		{ echo "hwtimer: the user-space programs need 6.1's kselftest_harness.h: run 'make deps' (linux-source-6.1), or give KSRC=<kernel source>" >&2; exit 1; }; \
	fi

$(HWT_OUT)/ut/%-32: $(UT_DIR)/%.c $(USER_DEPS) $(LIB32_A) | $(KSELFTEST_H)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_M32) $(USER_CFLAGS) $(USER_LDFLAGS) $(UT_LDFLAGS_$*) -o $@ $< $(LIB32_A)

$(HWT_OUT)/ut/%: $(UT_DIR)/%.c $(USER_DEPS) $(LIB_A) | $(KSELFTEST_H)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_LDFLAGS) $(UT_LDFLAGS_$*) -o $@ $< $(LIB_A)

$(HWT_OUT)/tools/%: tools/%.c $(USER_DEPS) $(LIB_A) | $(KSELFTEST_H)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $< $(LIB_A)

# ---------------------------------------------------------------------------
# Installing (README.md, "Installing"): the library and the device's ABI
# (install-lib, lib/lib.mk), and for module authors the kernel API and
# hwtimer's Module.symvers for the kernel of KDIR (install-kernel-api), under
# DESTDIR/PREFIX.
KAPI_DIR = $(PREFIX)/src/hwtimer-headers-$(HWTIMER_VERSION)

install: install-lib install-kernel-api

uninstall: uninstall-lib uninstall-kernel-api

install-kernel-api:
	HWT_OUT="$(HWT_OUT)" scripts/install-kernel-api.sh "$(DESTDIR)$(KAPI_DIR)"
	@echo "A module that calls hwtimer builds with these lines in its Kbuild:"
	@echo "  ccflags-y += -I$(KAPI_DIR)/include"
	@echo "  KBUILD_EXTRA_SYMBOLS += $(KAPI_DIR)/\$$(KERNELRELEASE)/Module.symvers"
	@echo "and builds, from its directory, against the kernel tree they are for:"
	@echo "  make -C $$(scripts/kdir.sh 2>/dev/null) M=\$$PWD modules"

uninstall-kernel-api:
	rm -rf $(DESTDIR)$(KAPI_DIR)

# The Debian packages (debian/): hwtimer-dkms, libhwtimer1, libhwtimer-dev in
# build/deb/, built from a copy of the tree and checked by lintian
# (scripts/deb.sh); scripts/deb-check.sh installs, uses and removes them.
deb:
	HWT_OUT="$(HWT_OUT)" scripts/deb.sh

# The documentation's programs compile, its structures and versions agree
# with the code (scripts/doc-check.sh; make check runs it too).
doc-check:
	scripts/doc-check.sh

help:
	@echo 'hwtimer $(HWTIMER_VERSION). Targets (README.md; the VM: docs/testing.md):'
	@echo '  make                 build kmod/hwtimer.ko and the samples against KDIR'
	@echo '  make check           every test in debug-kernel VMs: 6.1, 6.12-rt, 7.3, and'
	@echo '                       the modules for arm64 (~30 min cached, +4-14 min a kernel:'
	@echo '                       5 the first time); KERNEL=7.3 boots one, builds no arm64'
	@echo '  make run             boot the 6.1 VM with the module loaded, run the demo'
	@echo '  make shell           the same VM with a shell'
	@echo '  make deps            install the Debian packages all of this uses'
	@echo '  make install         install-lib and install-kernel-api [PREFIX= DESTDIR=]'
	@echo '  make install-lib     libhwtimer, its headers, pkg-config file, man pages'
	@echo '  make install-kernel-api  <linux/hwtimer.h> and Module.symvers for KDIR'
	@echo '  make uninstall       (and uninstall-lib, uninstall-kernel-api)'
	@echo '  make deb             build/deb: hwtimer-dkms, libhwtimer1, libhwtimer-dev'
	@echo '  make lib             build/lib: libhwtimer.a and .so (and a -m32 .a)'
	@echo '  make lib-check       the library, its pages and install, on the host'
	@echo '  make doc-check       README and man page programs compile; docs agree'
	@echo '  make sim             the module'"'"'s sources simulated in user space against a'
	@echo '                       model, 1000 seeds (sim-soak: 1000 x 3000 ops, ASan)'
	@echo '  make user            the test programs and tools (build/ut, build/tools)'
	@echo '  make runner-test     prove the runner fails broken fixtures'
	@echo '  make stress          stress, faults, fuzzing, hotplug (stress-smoke, soak,'
	@echo '                       check-kcsan)'
	@echo '  make bench           benchmarks on a -O2 kernel (bench-plot, bench-smoke,'
	@echo '                       bench-ab ALT=REV, bench-icount, bench-trace)'
	@echo '  make clean           remove build/ and kbuild output'

# ---------------------------------------------------------------------------
# The test VM (docs/testing.md).

deps:
	scripts/deps.sh

# The bench and stress smokes run inside, on each kernel (scripts/runner.sh).
check:
	KERNELS="$(CHECK_KERNELS)" scripts/runner.sh check

runner-test:
	scripts/runner.sh runner-test

run:
	scripts/runner.sh run

shell:
	scripts/runner.sh shell

clean:
	kdir=$$(scripts/kdir.sh 2>/dev/null) && [ -d "$$kdir" ] && $(MAKE) -C "$$kdir" M=$(CURDIR) clean || true
	rm -rf build

# Benchmarks: make bench, bench-plot, bench-smoke (run by check).
include bench/bench.mk

# Stress, fault injection, fuzzing, KCSAN: make stress, stress-smoke, check-kcsan.
include stress/stress.mk

# The deterministic simulation of the module's sources in user space: make sim, sim-soak.
include tools/testing/sim/sim.mk
