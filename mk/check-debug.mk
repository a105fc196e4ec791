# SPDX-License-Identifier: MIT
#
# make check-debug: every suite on the debug kernel, plus proof that the lane
# catches planted bugs (tests/kernel/run-debug-checks). Builds the debug
# kernel first when it is not cached (tests/kernel/README.md).
#
#   make check-debug-inject BUG=1   run with a planted leak, see kmemleak fail it
#   make check-debug-inject BUG=2   run with a planted lock inversion (lockdep)

.PHONY: check-debug check-debug-run check-debug-inject

## The debug-kernel lane: every suite, KUnit, fault walk, fuzzing, coverage on a KASAN/lockdep kernel
check-debug: deps
	$(MAKE) debug-kernel
	$(MAKE) check-debug-run

## make check-debug without building the debug kernel or installing packages first
check-debug-run: lib tests tools
	$(TOP)/tests/kernel/run-debug-checks

## The debug lane with a planted bug (BUG=1 leak, 2 lock inversion, 4 fence-section alloc)
check-debug-inject: lib tests tools
	$(TOP)/tests/kernel/run-debug-checks --inject $(BUG)
