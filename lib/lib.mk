# SPDX-License-Identifier: GPL-2.0
#
# libhwtimer, included by the top-level Makefile (and by lib/Makefile, for
# `make -C lib`):
#
#   make lib            build/lib/: libhwtimer.a, libhwtimer.so.1.0.0 (soname
#                       libhwtimer.so.1, with the links libhwtimer.so.1 and
#                       libhwtimer.so); build/lib32/: the -m32 libhwtimer.a
#                       the 32-bit tests link
#   make install-lib    install the library, its header, <linux/hwtimer.h>,
#                       the pkg-config file and the section 3 manual pages
#                       under DESTDIR/PREFIX (PREFIX /usr/local; LIBDIR,
#                       INCLUDEDIR, MANDIR, PKGCONFIGDIR change the parts)
#   make uninstall-lib  remove what install-lib installed
#   make lib-check      on the host, no VM: install into a scratch DESTDIR
#                       and build the libhwtimer(3) example against it
#                       (pkg-config, shared and static), check the shared
#                       library's exports and the man pages, run
#                       lib_mock_test (lib/check.sh)
#
# Every user-space program of the tree (tests, tools, bench) links the
# static library: the test VM has no shared libraries.

LIB_SRCDIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
LIB_TOP := $(abspath $(LIB_SRCDIR)/..)
HWT_OUT ?= $(LIB_TOP)/build
USER_CC ?= gcc

LIB_NAME := libhwtimer
LIB_SOMAJOR := 1
LIB_VERSION := 1.0.0
LIB_SONAME := $(LIB_NAME).so.$(LIB_SOMAJOR)

# The -m32 builds (the compat ioctl path) use gcc-12-multilib, not the
# gcc-multilib package, which conflicts with Debian's cross compilers
# (gcc-aarch64-linux-gnu builds the arm64 test kernels) and only adds the
# /usr/include/asm link to the x86 uapi headers that -idirafter gives.
USER_M32 := -m32 -idirafter /usr/include/x86_64-linux-gnu

LIB_OUT := $(HWT_OUT)/lib
LIB32_OUT := $(HWT_OUT)/lib32
LIB_A := $(LIB_OUT)/$(LIB_NAME).a
LIB32_A := $(LIB32_OUT)/$(LIB_NAME).a
LIB_SO := $(LIB_OUT)/$(LIB_NAME).so.$(LIB_VERSION)

LIB_SRC := $(LIB_SRCDIR)/libhwtimer.c
LIB_HDR := $(LIB_SRCDIR)/libhwtimer.h
LIB_UAPI := $(LIB_TOP)/include/uapi/linux/hwtimer.h
LIB_MAP := $(LIB_SRCDIR)/libhwtimer.map
LIB_DEPS := $(LIB_SRC) $(LIB_HDR) $(LIB_UAPI)
LIB_MAN := $(wildcard $(LIB_TOP)/docs/man3/*.3)

# Warnings are errors here, as for every program of the tree; only the
# symbols libhwtimer.map lists are exported from the shared library.
LIB_CFLAGS := -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fvisibility=hidden \
	-I$(LIB_TOP)/include/uapi -I$(LIB_SRCDIR)

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install

.PHONY: lib install-lib uninstall-lib lib-check

lib: $(LIB_A) $(LIB32_A) $(LIB_SO)

$(LIB_OUT)/libhwtimer.o: $(LIB_DEPS)
	@mkdir -p $(@D)
	$(USER_CC) $(LIB_CFLAGS) -c -o $@ $<

$(LIB_OUT)/libhwtimer.pic.o: $(LIB_DEPS)
	@mkdir -p $(@D)
	$(USER_CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(LIB32_OUT)/libhwtimer.o: $(LIB_DEPS)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_M32) $(LIB_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OUT)/libhwtimer.o
	rm -f $@
	ar rcs $@ $^

$(LIB32_A): $(LIB32_OUT)/libhwtimer.o
	rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OUT)/libhwtimer.pic.o $(LIB_MAP)
	$(USER_CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=$(LIB_MAP) \
		-Wl,-z,defs -Wl,-z,relro -Wl,-z,now -o $@ $<
	ln -sf $(notdir $@) $(LIB_OUT)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(LIB_OUT)/$(LIB_NAME).so

# The man pages: one file per page, and for each further function a page
# names in its NAME section, a ".so" link to that page, as man-pages does.
# The pkg-config file is written at install time, with the directories of
# that install.
install-lib: $(LIB_A) $(LIB_SO)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/linux \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man3
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/$(LIB_NAME).so
	$(INSTALL) -m 644 $(LIB_HDR) $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(LIB_UAPI) $(DESTDIR)$(INCLUDEDIR)/linux/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(LIB_VERSION)|g' \
	    $(LIB_SRCDIR)/libhwtimer.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/$(LIB_NAME).pc
	$(INSTALL) -m 644 $(LIB_MAN) $(DESTDIR)$(MANDIR)/man3/
	@set -e; for page in $(LIB_MAN); do \
		base=$$(basename $$page); \
		for fn in $$(sed -n '/^\.SH NAME/{n;s/ \\-.*//;s/,//g;p;q}' $$page); do \
			[ "$$fn.3" = "$$base" ] || echo ".so man3/$$base" >$(DESTDIR)$(MANDIR)/man3/$$fn.3; \
		done; \
	done

uninstall-lib:
	rm -f $(DESTDIR)$(LIBDIR)/$(LIB_NAME).a $(DESTDIR)$(LIBDIR)/$(LIB_NAME).so \
		$(DESTDIR)$(LIBDIR)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) \
		$(DESTDIR)$(INCLUDEDIR)/libhwtimer.h $(DESTDIR)$(INCLUDEDIR)/linux/hwtimer.h \
		$(DESTDIR)$(PKGCONFIGDIR)/$(LIB_NAME).pc
	@set -e; for page in $(LIB_MAN); do \
		base=$$(basename $$page); rm -f $(DESTDIR)$(MANDIR)/man3/$$base; \
		for fn in $$(sed -n '/^\.SH NAME/{n;s/ \\-.*//;s/,//g;p;q}' $$page); do \
			rm -f $(DESTDIR)$(MANDIR)/man3/$$fn.3; \
		done; \
	done

lib-check: lib $(HWT_OUT)/ut/lib_mock_test
	$(LIB_SRCDIR)/check.sh $(HWT_OUT)
