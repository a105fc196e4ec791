# SPDX-License-Identifier: MIT
#
#   make deb        Debian source and binary packages, from debian/ with
#                   Debian 12's debhelper, into build/deb/: source
#                   habanalabs-emu; habanalabs-emu-dkms, libhlthunk2,
#                   libhlthunk-dev, libhlcoll2, libhlcoll-dev,
#                   habanalabs-emu-tools; then lintian --pedantic, which
#                   fails on any error or warning (there are no lintian
#                   overrides: none is needed)
#   make deb-symbols  rewrite debian/lib*.symbols (dpkg-gensymbols) from
#                   the last make deb, after a library's ABI changed
#   make deb-check  make deb, then tests/deb/check: install the packages,
#                   DKMS builds the module for Debian's 6.12 kernel, a VM
#                   boots that kernel with it, smoke suites and the consumer
#                   built against the -dev package, then purge (part of
#                   make check)
#
# The packages are built from the files git knows (tracked, and untracked
# ones that .gitignore does not exclude) copied to build/deb/src, never
# from the build tree itself, so no object of the tree ends up in them.

DEB_VERSION := $(shell sed -n '1s/.*(\(.*\)).*/\1/p' $(TOP)/debian/changelog)
DEB_OUT := $(TOP)/build/deb
DEB_SRC := $(DEB_OUT)/src/habanalabs-emu-$(DEB_VERSION)

.PHONY: deb deb-check deb-symbols

## Build the source and binary Debian packages into build/deb (lintian clean)
deb:
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_SRC)
	cd $(TOP) && git ls-files -z --cached --others --exclude-standard | \
		tar --null --ignore-failed-read -T - -cf - | tar -x -C $(DEB_SRC)
	cd $(DEB_SRC) && env -u TOP dpkg-buildpackage -us -uc --build=full
	mv $(DEB_OUT)/src/habanalabs-emu_$(DEB_VERSION)* $(DEB_OUT)/src/*.deb $(DEB_OUT)/
	lintian --fail-on error,warning --pedantic --info --display-info \
		$(DEB_OUT)/habanalabs-emu_$(DEB_VERSION)_$$(dpkg --print-architecture).changes

## make deb, then install them, DKMS-build, boot the VM on them, smoke suites, purge
deb-check: deb
	$(TOP)/tests/deb/check $(DEB_OUT)

# After an ABI change of a library (new symbols, a new SONAME): rewrite
# debian/lib*.symbols from the last make deb, then review and commit them
## Rewrite debian/lib*.symbols (dpkg-gensymbols) from the last make deb
deb-symbols:
	cd $(DEB_SRC) && for p in libhlthunk2:libhlthunk-dev libhlcoll2:libhlcoll-dev; do \
		pkg=$${p%%:*}; dev=$${p#*:}; \
		dpkg-gensymbols -q -p$$pkg -Pdebian/$$pkg -v$(DEB_VERSION) -O$(DEB_OUT)/$$pkg.symbols; \
		{ sed -n 1p $(DEB_OUT)/$$pkg.symbols; \
		  echo "* Build-Depends-Package: $$dev"; \
		  sed -e 1d -e '/^\* Build-Depends-Package:/d' $(DEB_OUT)/$$pkg.symbols; \
		} >$(TOP)/debian/$$pkg.symbols; \
	done
