# SPDX-License-Identifier: MIT
#
# make conformance HLTHUNK_OPEN=<checkout>: HabanaAI hl-thunk-open's library
# and test suite, unchanged, against this driver (issue #33; docs/
# conformance.md). The build half, dev/conformance-build, builds them
# against this tree's uAPI through a one-line shim into build/conformance/
# (its header lists the paths); the run half, dev/conformance-run, runs the
# suite in the test VM against the emulated GAUDI (asic=gaudi), each test
# alone, and writes a table per test file to build/conformance/results.md.
# It fails only when the run itself breaks (the VM, the driver's load or
# unload, a report in the guest kernel log), not when tests fail. Not part
# of make check: hl-thunk-open's source is not on a fresh machine.

CONFORMANCE_DIR = $(TOP)/build/conformance
# hl-thunk-open's cmocka programs, where the build half leaves them
CONFORMANCE_BIN ?= $(CONFORMANCE_DIR)/build/bin

.PHONY: conformance conformance-build conformance-run

## Build hl-thunk-open's library and tests against our uAPI (HLTHUNK_OPEN=<checkout>; build/conformance/)
conformance-build:
	@test -n "$(HLTHUNK_OPEN)" || { echo "make conformance: set HLTHUNK_OPEN=<hl-thunk-open checkout>" >&2; exit 2; }
	$(TOP)/dev/conformance-build $(HLTHUNK_OPEN)

## Build hl-thunk-open's suite (HLTHUNK_OPEN=<checkout>) and run it in the test VM: build/conformance/results.md
conformance: all conformance-build
	$(TOP)/dev/conformance-run $(CONFORMANCE_BIN) $(CONFORMANCE_DIR)

## Run hl-thunk-open's test programs again (CONFORMANCE_BIN, as built by make conformance) in the test VM against the emulated GAUDI
conformance-run: module
	$(TOP)/dev/conformance-run $(CONFORMANCE_BIN) $(CONFORMANCE_DIR)
