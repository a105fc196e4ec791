# SPDX-License-Identifier: MIT
#
# habanalabs: top-level build.
#
#   make            the module, libhlthunk, libhlcoll, the tools and the tests
#   make check      install what is missing, build, boot the test VM, run
#                   every suite; fails on a failed test or a bad kernel log
#   make demo       install what is missing, build, show the devices in a VM
#   make install    libhlthunk (+ libhl-thunk.so), libhlcoll, headers, .pc files,
#                   the module
#   make lint       checkpatch --strict, sparse (C=2) and W=1 on the driver
#   make abi-check  libhlthunk's and libhlcoll's ABI against the committed
#                   abidw baselines (tests/libabi; part of make check)
#   make abi-baseline  rewrite those baselines from the build, after a
#                   reviewed ABI change or a SONAME bump (commit them)
#
# KDIR selects the kernel to build the module against (default: Debian's
# 6.12 headers from linux-headers-6.12-amd64).

TOP := $(CURDIR)
# The driver's Kconfig options for the out-of-tree build: the module the
# tests load has the test-only knobs (CONFIG_HABANALABS_DEBUG; setting one
# taints the kernel). HL_DEBUG=n builds it without them.
HL_DEBUG ?= y
HL_KCONFIG := CONFIG_HABANALABS=m CONFIG_HABANALABS_DEBUG=$(HL_DEBUG)
KVER ?= $(shell ls -d /lib/modules/6.12*-amd64/build 2>/dev/null | sort -V | tail -n 1 | cut -d/ -f4)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
DESTDIR ?=
HLVM := $(TOP)/tools/hlvm

export TOP

.PHONY: all deps module lib tools tests check check-run demo demo-run \
	install install-man clean lint checkpatch sparse abi-check abi-baseline

all: module lib tools tests

# Installs missing packages only; quick when nothing is missing.
deps:
	@$(TOP)/tools/install-deps

module:
	@test -d "$(KDIR)" || { echo "No kernel tree at KDIR='$(KDIR)': run tools/install-deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) W=1 modules

# libhlcoll links against libhlthunk: one after the other
lib:
	$(MAKE) -C lib/hlthunk
	$(MAKE) -C lib/hlcoll

tools: lib
	$(MAKE) -C tools

tests: lib
	$(MAKE) -C tests

# The two commands of the README: each installs what is missing first, then
# re-reads this Makefile (KDIR depends on what is installed).
check: deps
	$(MAKE) check-run

demo: deps
	$(MAKE) demo-run

check-run: all
	$(TOP)/tests/run-checks

demo-run: all
	$(TOP)/tools/demo

MANDIR ?= $(PREFIX)/share/man

install: lib install-man
	$(MAKE) -C lib/hlthunk install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	$(MAKE) -C lib/hlcoll install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) \
		INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates modules_install

# man/: section 3 (one page per group of calls, a .so link per call), 1
# (the tools) and 7 (the overview)
install-man:
	for s in 1 3 7; do \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 0644 $(TOP)/man/man$$s/*.$$s $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

lint: checkpatch sparse

abi-check: lib
	$(TOP)/tests/libabi/check

abi-baseline: lib
	$(TOP)/tests/libabi/check --baseline

CHECKPATCH_FILES = $(shell git ls-files 'drivers/*.[ch]' 'include/*.h' 'tests/importer/*.[ch]')

checkpatch:
	$(TOP)/tools/checkpatch --strict --no-tree -f $(CHECKPATCH_FILES)

sparse:
	$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) W=1 C=2 modules 2>&1 | \
		tee /dev/stderr | { ! grep -E ': (warning|error):'; }

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) clean
	-$(MAKE) -C lib/hlthunk clean
	-$(MAKE) -C lib/hlcoll clean
	-$(MAKE) -C tools clean
	-$(MAKE) -C tests clean

-include $(sort $(wildcard $(TOP)/mk/*.mk))
