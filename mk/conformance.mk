# SPDX-License-Identifier: MIT
#
# make conformance HLTHUNK_OPEN=<checkout>: HabanaAI hl-thunk-open's library
# and test suite, unchanged, against this driver (issue #33). The build half,
# dev/conformance-build, builds them against this tree's uAPI through a
# one-line shim into build/conformance/ (its header lists the paths); the
# run half, dev/conformance-run, runs the suite in the test VM. Not part of
# make check: hl-thunk-open's source is not on a fresh machine.

.PHONY: conformance conformance-build

## Build hl-thunk-open's library and tests against our uAPI (HLTHUNK_OPEN=<checkout>; build/conformance/)
conformance-build:
	@test -n "$(HLTHUNK_OPEN)" || { echo "make conformance: set HLTHUNK_OPEN=<hl-thunk-open checkout>" >&2; exit 2; }
	$(TOP)/dev/conformance-build $(HLTHUNK_OPEN)

## Build hl-thunk-open's suite (HLTHUNK_OPEN=<checkout>) and run it in the test VM
conformance: all conformance-build
	@if [ -x $(TOP)/dev/conformance-run ]; then \
		$(TOP)/dev/conformance-run; \
	else \
		echo "make conformance: built in build/conformance; no run half (dev/conformance-run) yet"; \
	fi
