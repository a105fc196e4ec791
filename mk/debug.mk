# SPDX-License-Identifier: MIT
#
# Debug-kernel lane (see tests/kernel/README.md).
#
#   make debug-kernel   build Debian's linux-source-6.12 with tests/kernel/debug.config
#                       (KASAN, lockdep, kmemleak, DMA-API debug, dma-buf debug, P2PDMA,
#                       fault injection, KUnit, intel-iommu) once; later calls reuse the
#                       cache (30+ min cold on this shared 2-core machine, <1 s cached).
#
# Variables for the rules that use the debug kernel.  They are lazy and evaluated at
# most once, and never build anything: depend on `debug-kernel` before using them.
#   KDIR_DEBUG       the full build tree: make -C $(KDIR_DEBUG) M=<dir> modules
#   BZIMAGE_DEBUG    its bzImage, for dev/hlvm --kernel
#   KMODS_DEBUG      its modules_install root (holds lib/modules/<release>/): in the guest,
#                    `modprobe -d $(KMODS_DEBUG) rdma_rxe` (its /lib/modules is the host's)
#
# check-debug itself is in mk/check-debug.mk (tests/kernel/run-debug-checks): it builds
# the driver and test modules against $(KDIR_DEBUG) in a copy of their sources (Kbuild
# 6.12 writes objects into the M= directory), runs KUnit and the suites under
# dev/hlvm --kernel $(BZIMAGE_DEBUG) with kmemleak scans, and fails on any
# KASAN/UBSAN/lockdep/DMA-API/kmemleak/WARNING report in the guest log.

HL_DEBUG_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BUILD_DEBUG_KERNEL := $(abspath $(HL_DEBUG_MK_DIR)/../dev/build-debug-kernel)

KDIR_DEBUG = $(eval KDIR_DEBUG := $(shell $(BUILD_DEBUG_KERNEL) --print-dir))$(KDIR_DEBUG)
BZIMAGE_DEBUG = $(eval BZIMAGE_DEBUG := $(shell $(BUILD_DEBUG_KERNEL) --print-bzimage))$(BZIMAGE_DEBUG)
KMODS_DEBUG = $(eval KMODS_DEBUG := $(abspath $(KDIR_DEBUG)/../modules))$(KMODS_DEBUG)

.PHONY: debug-kernel debug-kernel-rebuild
## Build (once, cached) the debug kernel from linux-source-6.12 and tests/kernel/debug.config
debug-kernel:
	@$(BUILD_DEBUG_KERNEL)

# Throw away the cached build for the current fragment and build it again.
## Throw the cached debug kernel away and build it again
debug-kernel-rebuild:
	@$(BUILD_DEBUG_KERNEL) --force
