# SPDX-License-Identifier: MIT
#
# lib/lib.mk - what lib/hlthunk/Makefile and lib/hlcoll/Makefile share: a
# versioned shared library (LIBNAME.so.VERSION, the SONAME link
# LIBNAME.so.SOVERSION, the development link LIBNAME.so) built with hidden
# visibility and a version script, the static LIBNAME.a, and the
# installation of both.
#
# The including Makefile sets, before including it:
#   srcdir, top      its directory and the tree's top
#   LIBNAME          e.g. libhlthunk
#   VERSION          e.g. 2.0.0; SOVERSION, the SONAME's number, e.g. 2
#   SRCS             the sources
#   LIB_MAP          the version script
#   LIB_CPPFLAGS     more -I flags (optional)
#   LIB_LDLIBS       libraries to link the shared library with (optional)
# and gets the rules for those files, HDRDIR, PC_SED (the substitutions of
# @PREFIX@, @LIBDIR@, @INCLUDEDIR@ and @VERSION@ for a .pc file; regenerate
# it on .pc-vars, which changes when they do), PC_SED_TREE (the same for
# the build tree's -uninstalled.pc), and the recipe $(install-lib), which
# installs the three files and the two links.

SONAME := $(LIBNAME).so.$(SOVERSION)
REALNAME := $(LIBNAME).so.$(VERSION)

PREFIX ?= /usr/local
# The multiarch directory (lib/x86_64-linux-gnu), which ld.so searches
# under /usr and /usr/local alike; plain lib where there is none
MULTIARCH ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || \
	$(CC) -print-multiarch 2>/dev/null)
LIBDIR ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCLUDEDIR ?= $(PREFIX)/include
DESTDIR ?=
HDRDIR = $(INCLUDEDIR)/habanalabs

CC ?= cc
AR ?= ar
INSTALL ?= install
CFLAGS ?= -O2 -g

# Flags the library needs whatever CFLAGS says
HL_CFLAGS := -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration \
	-fPIC -fvisibility=hidden -D_GNU_SOURCE \
	-I$(srcdir) $(LIB_CPPFLAGS) -I$(top)/include/uapi
HL_LDFLAGS := -shared -Wl,-soname,$(SONAME) \
	-Wl,--version-script=$(LIB_MAP) -Wl,-z,defs

OBJS := $(SRCS:.c=.o)
DEPS := $(SRCS:.c=.d)

PC_VARS := $(PREFIX)|$(LIBDIR)|$(INCLUDEDIR)|$(VERSION)
# Relative to ${prefix} in the .pc file when under PREFIX (relocatable)
PC_LIBDIR := $(patsubst $(PREFIX)/%,$${exec_prefix}/%,$(LIBDIR))
PC_INCLUDEDIR := $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
PC_SED := sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PC_LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g'
# The same for the build tree's NAME-uninstalled.pc: every directory is
# srcdir, and the library is found there at run time too (rpath)
PC_SED_TREE := sed -e 's|@PREFIX@|$(srcdir)|g' -e 's|@LIBDIR@|$(srcdir)|g' \
	-e 's|@INCLUDEDIR@|$(srcdir)|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|^Libs: .*|Libs: -L$${libdir} -Wl,-rpath,$${libdir} -l$(LIBNAME:lib%=%)|'

.DEFAULT_GOAL := all
.PHONY: all install uninstall clean FORCE

%.o: %.c
	$(CC) $(CPPFLAGS) $(HL_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(REALNAME): $(OBJS) $(LIB_MAP)
	$(CC) $(HL_CFLAGS) $(CFLAGS) $(LDFLAGS) $(HL_LDFLAGS) -o $@ $(OBJS) \
		$(LIB_LDLIBS)

$(SONAME): $(REALNAME)
	ln -sf $(REALNAME) $@

$(LIBNAME).so: $(SONAME)
	ln -sf $(SONAME) $@

$(LIBNAME).a: $(OBJS)
	rm -f $@
	$(AR) rcs $@ $(OBJS)

# Changes whenever PREFIX, LIBDIR or INCLUDEDIR do
.pc-vars: FORCE
	@echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' > $@

define install-lib
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(HDRDIR)
	$(INSTALL) -m 0755 $(REALNAME) $(DESTDIR)$(LIBDIR)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(LIBNAME).so
	$(INSTALL) -m 0644 $(LIBNAME).a $(DESTDIR)$(LIBDIR)/$(LIBNAME).a
endef

FORCE:

-include $(DEPS)
