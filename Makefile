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
#   make lint       checkpatch --strict, kernel-doc, sparse (C=2) and W=1 on
#                   the driver and the uAPI
#   make docs       the API reference from the headers' comments (build/docs/)
#   make help       every target, one line each (the "## " line above a rule)
#   make abi-check  libhlthunk's and libhlcoll's ABI against their released
#                   libraries, built from the commits of
#                   tests/libabi/releases (part of make check)
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
HLVM := $(TOP)/dev/hlvm

export TOP

.PHONY: all deps module lib tools tests check check-run demo demo-run install-module \
	install install-man clean lint checkpatch kernel-doc sparse help docs \
	abi-check

## Build the module, libhlthunk, libhlcoll, the tools and the tests (the default)
all: module lib tools tests

# Installs missing packages only; quick when nothing is missing.
## Install the missing Debian packages (dev/install-deps); quick when none is missing
deps:
	@$(TOP)/dev/install-deps

## Build the driver module against KDIR (W=1; HL_DEBUG=n leaves out the test-only knobs)
module:
	@test -d "$(KDIR)" || { echo "No kernel tree at KDIR='$(KDIR)': run dev/install-deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) W=1 modules

# libhlcoll links against libhlthunk: one after the other
## Build libhlthunk and libhlcoll
lib:
	$(MAKE) -C lib/hlthunk
	$(MAKE) -C lib/hlcoll

## Build the tools (hl-smi, hl-fuzz, hl-bench, hl-coll-bench, ...) into tools/bin
tools: lib
	$(MAKE) -C tools

## Build the cmocka suites and the test importer into tests/bin
tests: lib
	$(MAKE) -C tests

# The two commands of the README: each installs what is missing first, then
# re-reads this Makefile (KDIR depends on what is installed).
## Install what is missing, build, run every check (tests/run-checks: host checks, suites in VMs)
check: deps
	$(MAKE) check-run

## Install what is missing, build, boot a 4-device VM: hl-smi, all-reduce, a dma-buf read back
demo: deps
	$(MAKE) demo-run

## make check without installing packages first
check-run: all
	$(TOP)/tests/run-checks

## make demo without installing packages first
demo-run: all
	$(TOP)/dev/demo

MANDIR ?= $(PREFIX)/share/man

## Install the libraries, headers, .pc files, man pages and the module habanalabs_emu.ko (DESTDIR=, PREFIX=)
install: lib install-man
	$(MAKE) -C lib/hlthunk install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	$(MAKE) -C lib/hlcoll install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	$(MAKE) install-module

# The module as the package ships it: the driver alone (no test importer),
# without the test-only knobs, named habanalabs_emu so that it never hides
# the kernel's own habanalabs.ko (drivers/accel, Gaudi boards). Built from
# a copy staged as the DKMS source is (debian/rules), not from the tree's
# objects, which are the test build's.
MOD_STAGE := $(TOP)/build/install-module
MOD_INSTALL_DIR ?= updates
## Install habanalabs_emu.ko as the package ships it (no test importer, no test-only knobs; DESTDIR=)
install-module:
	@test -d "$(KDIR)" || { echo "No kernel tree at KDIR='$(KDIR)': run dev/install-deps" >&2; exit 1; }
	rm -rf $(MOD_STAGE)
	install -d $(MOD_STAGE)/drivers/misc $(MOD_STAGE)/include/uapi
	cp -a $(TOP)/drivers/misc/habanalabs $(MOD_STAGE)/drivers/misc/
	cp -a $(TOP)/include/uapi/misc $(MOD_STAGE)/include/uapi/
	find $(MOD_STAGE) \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name modules.order \) -delete
	install -m 0644 $(TOP)/debian/dkms-Kbuild $(MOD_STAGE)/Kbuild
	$(MAKE) -C $(KDIR) M=$(MOD_STAGE) CONFIG_HABANALABS=m \
		CONFIG_HABANALABS_DEBUG=n HL_MODULE=habanalabs_emu modules
	$(MAKE) -C $(KDIR) M=$(MOD_STAGE) CONFIG_HABANALABS=m \
		CONFIG_HABANALABS_DEBUG=n HL_MODULE=habanalabs_emu \
		INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=$(MOD_INSTALL_DIR) \
		$(if $(DESTDIR),DEPMOD=true) modules_install

## Install the man pages (man/: sections 1, 3 and 7) under MANDIR
install-man:
	for s in 1 3 7; do \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 0644 $(TOP)/man/man$$s/*.$$s $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

## libhlthunk's and libhlcoll's ABI against their released libraries (abidiff, old binaries, symbols files)
abi-check: lib
	$(TOP)/tests/libabi/check

## Everything a reviewer runs: checkpatch --strict, kernel-doc, sparse and W=1
lint: checkpatch kernel-doc sparse

CHECKPATCH_FILES = $(shell git ls-files 'drivers/*.[ch]' 'include/*.h' 'tests/importer/*.[ch]')
# The kernel tree's own kernel-doc (Debian's kbuild package ships it with
# the headers)
KERNEL_DOC ?= $(KDIR)/scripts/kernel-doc
KERNEL_DOC_FILES = $(shell git ls-files 'drivers/*.[ch]' 'include/uapi/*.h' 'lib/*.h')

# HL_REDUCE_OP_DIV_BY(n) checks n's range, and stays a constant expression
# (tables of packets use it), so it names n more than once
CHECKPATCH_ARG_REUSE = include/uapi/misc/habanalabs_pkt.h

## checkpatch --strict on the driver, the uAPI and the test importer
checkpatch:
	$(TOP)/dev/checkpatch --strict --no-tree -f \
		$(filter-out $(CHECKPATCH_ARG_REUSE),$(CHECKPATCH_FILES))
	$(TOP)/dev/checkpatch --strict --no-tree --ignore MACRO_ARG_REUSE \
		-f $(CHECKPATCH_ARG_REUSE)

## kernel-doc -none -Wall on the driver, the uAPI and the library headers: fail on any warning
kernel-doc:
	@test -x "$(KERNEL_DOC)" || { echo "No $(KERNEL_DOC): run dev/install-deps" >&2; exit 1; }
	$(KERNEL_DOC) -none -Wall $(KERNEL_DOC_FILES) 2>&1 | \
		tee /dev/stderr | { ! grep -E '(warning|error):'; }

## Build the module with sparse (C=2) and W=1; fail on any warning
sparse:
	$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) W=1 C=2 modules 2>&1 | \
		tee /dev/stderr | { ! grep -E ': (warning|error):'; }

## The API reference from the headers' comments into build/docs/: Doxygen (libhlthunk, libhlcoll), kernel-doc (uAPI); fails on any warning
docs:
	@command -v doxygen >/dev/null || { echo "No doxygen: run dev/install-deps" >&2; exit 1; }
	@test -x "$(KERNEL_DOC)" || { echo "No $(KERNEL_DOC): run dev/install-deps" >&2; exit 1; }
	@mkdir -p build/docs/uapi
	cd $(TOP) && doxygen docs/Doxyfile
	$(KERNEL_DOC) -rst -sphinx-version 3.0 -Wall include/uapi/misc/habanalabs.h \
		include/uapi/misc/habanalabs_pkt.h >build/docs/uapi/habanalabs.rst \
		2>build/docs/uapi/warnings.txt
	@if [ -s build/docs/uapi/warnings.txt ]; then cat build/docs/uapi/warnings.txt >&2; exit 1; fi
	@echo "docs: build/docs/api/html/index.html, build/docs/api/man/man3/, build/docs/uapi/habanalabs.rst"

## This list
help:
	@$(TOP)/dev/make-help $(TOP)

## Remove what the build made
clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) $(HL_KCONFIG) clean
	-$(MAKE) -C lib/hlthunk clean
	-$(MAKE) -C lib/hlcoll clean
	-$(MAKE) -C tools clean
	-$(MAKE) -C tests clean

-include $(sort $(wildcard $(TOP)/mk/*.mk))
