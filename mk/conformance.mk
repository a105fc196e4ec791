# SPDX-License-Identifier: MIT
#
# hl-thunk-open's own test suite against the emulated GAUDI: not part of make
# check (its source is not on a fresh machine). The run half: one VM with
# the driver loaded with asic=gaudi, each test alone, a table per test file
# in build/conformance/results.md (docs/conformance.md). It fails only when
# the run itself breaks (the VM, the driver's load or unload, a report in
# the guest kernel log), not when tests fail.

CONFORMANCE_DIR = $(TOP)/build/conformance
# hl-thunk-open's cmocka programs, as the build half leaves them
CONFORMANCE_BIN ?= $(CONFORMANCE_DIR)/build/bin

.PHONY: conformance-run

## Run hl-thunk-open's test programs (CONFORMANCE_BIN) in a VM against the emulated GAUDI: per-test results in build/conformance/results.md
conformance-run: module
	$(TOP)/dev/conformance-run $(CONFORMANCE_BIN) $(CONFORMANCE_DIR)
