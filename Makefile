# SPDX-License-Identifier: GPL-2.0
#
# hwtimer top-level Makefile.
#
# What is compiled into which module is described by the Kbuild files; this
# file only drives kbuild, builds the user-space programs and calls the test
# VM scripts.
#
#   make                 build kmod/hwtimer.ko (and the sample) against KDIR
#                        (scripts/kdir.sh: KDIR, else the running kernel's
#                        build tree, else Debian's linux-headers-amd64)
#   make check           build everything, run every test in the debug VM,
#                        on each test kernel of KERNELS (or only KERNEL=)
#   make run             boot the VM with the module loaded, run the demo
#   make shell           boot the VM with the module loaded, drop to a shell
#   make runner-test     prove the runner fails on broken fixtures
#   make lib             libhwtimer, static and shared (lib/lib.mk);
#                        make install-lib [PREFIX=/usr/local] [DESTDIR=]
#
# The test kernels, as scripts/kernel.sh names them (6.1, 6.12, 6.12-rt,
# 7.3): `make check` runs every kernel of KERNELS (default: default_kernels
# in scripts/runner.sh), or only KERNEL when one is given (make check
# KERNEL=7.3); every other VM target (run, shell, runner-test, stress,
# bench...) boots KERNEL, 6.1 by default.
#   make deps            install the Debian packages the above need
#   make clean

# The kernel build tree: KDIR if given, else the running kernel's, else
# Debian's default headers (linux-headers-amd64); scripts/kdir.sh holds the
# rule, says which tree it took, and is what the runner and CI use too.
export KDIR

KERNEL ?= 6.1
export KERNEL
# KERNEL set by this file (origin "file") means nobody named one.
CHECK_KERNELS := $(if $(filter file,$(origin KERNEL)),$(KERNELS),$(KERNEL))

# Kernel source tree holding tools/testing/selftests/kselftest_harness.h.
# The VM runner passes 6.1's (scripts/kernel.sh source 6.1).
ifndef KSRC
KSRC := $(shell ls -d $${XDG_CACHE_HOME:-$$HOME/.cache}/hwtimer/src/linux-source-6.1-* 2>/dev/null | sort -V | tail -n 1)
endif

# Where user-space programs go (the runner points this elsewhere for the
# self-test fixtures).
HWT_OUT ?= $(CURDIR)/build

.PHONY: all modules clean deps check runner-test run shell user ut tools

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
	-I$(CURDIR)/include/uapi -I$(CURDIR)/tools/include -I$(CURDIR)/lib \
	-I$(KSRC)/tools/testing/selftests
USER_LDFLAGS := -static

UT_DIR ?= userspace-test
UT_SRC := $(wildcard $(UT_DIR)/*_test.c)
UT_BIN := $(patsubst $(UT_DIR)/%.c,$(HWT_OUT)/ut/%,$(UT_SRC))
TOOL_SRC := $(wildcard tools/*.c)
TOOL_BIN := $(patsubst tools/%.c,$(HWT_OUT)/tools/%,$(TOOL_SRC))
USER_DEPS := $(wildcard include/uapi/linux/*.h $(UT_DIR)/*.h $(UT_DIR)/*/linux/*.h tools/*.h \
	tools/include/*.h lib/libhwtimer.h)

# Include directories a test takes ahead of include/uapi: UT_INC_<name>.
# abi_v1_test is built against the frozen ABI version 1 header, never the
# live one, to prove that version 1 programs still work.
UT_INC_abi_v1_test := -I$(CURDIR)/userspace-test/abi-v1
# dev_v2_test likewise against the frozen version 2 header.
UT_INC_dev_v2_test := -I$(CURDIR)/userspace-test/abi-v2
# Link flags of one test: lib_mock_test plays the kernel for libhwtimer.
UT_LDFLAGS_lib_mock_test := $(foreach f,open ioctl read poll mmap munmap,-Wl,--wrap=$(f))

user: ut tools
ut: $(UT_BIN) $(if $(filter 1,$(USER_32BIT)),$(addsuffix -32,$(UT_BIN)))
tools: $(TOOL_BIN)

$(HWT_OUT)/ut/%-32: $(UT_DIR)/%.c $(USER_DEPS) $(LIB32_A)
	@test -f "$(KSRC)/tools/testing/selftests/kselftest_harness.h" || { echo "KSRC=$(KSRC) has no kselftest_harness.h" >&2; exit 1; }
	@mkdir -p $(@D)
	$(USER_CC) $(USER_M32) $(UT_INC_$*) $(USER_CFLAGS) $(USER_LDFLAGS) $(UT_LDFLAGS_$*) -o $@ $< $(LIB32_A)

$(HWT_OUT)/ut/%: $(UT_DIR)/%.c $(USER_DEPS) $(LIB_A)
	@test -f "$(KSRC)/tools/testing/selftests/kselftest_harness.h" || { echo "KSRC=$(KSRC) has no kselftest_harness.h" >&2; exit 1; }
	@mkdir -p $(@D)
	$(USER_CC) $(UT_INC_$*) $(USER_CFLAGS) $(USER_LDFLAGS) $(UT_LDFLAGS_$*) -o $@ $< $(LIB_A)

$(HWT_OUT)/tools/%: tools/%.c $(USER_DEPS) $(LIB_A)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $< $(LIB_A)

# ---------------------------------------------------------------------------
# The test VM (see README.md, "How the test VM works").

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
