# SPDX-License-Identifier: MIT
#
# Debug-kernel lane (see tests/kernel/README.md).
#
#   make debug-kernel   build Debian's linux-source-6.12 with tests/kernel/debug.config
#                       (KASAN, lockdep, kmemleak, DMA-API debug, dma-buf debug, P2PDMA,
#                       fault injection, KUnit, intel-iommu) once; later calls reuse the
#                       cache (~16 min cold on 2 cores, <1 s cached).
#
# Variables for the rules that use the debug kernel.  They are lazy and evaluated at
# most once, and never build anything: depend on `debug-kernel` before using them.
#   KDIR_DEBUG       the full build tree: make -C $(KDIR_DEBUG) M=<dir> modules
#   BZIMAGE_DEBUG    its bzImage, for tools/hlvm --kernel
#   KMODS_DEBUG      its modules_install root (holds lib/modules/<release>/): in the guest,
#                    `modprobe -d $(KMODS_DEBUG) rdma_rxe` (its /lib/modules is the host's)
#
# check-debug is not defined here yet; it will be wired once the suites exist:
#   check-debug: debug-kernel
#     1. build habanalabs.ko and the test modules (tests/importer, KUnit suites) against
#        $(KDIR_DEBUG).  Kbuild 6.12 writes objects into the M= directory, so this build
#        must use its own copy of the module sources (e.g. build/debug/...), not the
#        directory the host-kernel build uses;
#     2. boot each suite with tools/hlvm --kernel $(BZIMAGE_DEBUG) --moddir <that dir>
#        and kernel args intel_iommu=on iommu.strict=1 (plus panic_on_warn=1 where a
#        suite wants a splat to stop the VM);
#     3. run the cmocka suites and the KUnit modules (insmod; results in
#        /sys/kernel/debug/kunit/<suite>/results, TAP in dmesg);
#     4. echo scan > /sys/kernel/debug/kmemleak after the module is unloaded and fail
#        on any report, and fail on any KASAN/UBSAN/lockdep/"BUG:"/"WARNING:"/DMA-API
#        ("DMA-API:") line in the guest's dmesg.

HL_DEBUG_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BUILD_DEBUG_KERNEL := $(abspath $(HL_DEBUG_MK_DIR)/../tools/build-debug-kernel)

KDIR_DEBUG = $(eval KDIR_DEBUG := $(shell $(BUILD_DEBUG_KERNEL) --print-dir))$(KDIR_DEBUG)
BZIMAGE_DEBUG = $(eval BZIMAGE_DEBUG := $(shell $(BUILD_DEBUG_KERNEL) --print-bzimage))$(BZIMAGE_DEBUG)
KMODS_DEBUG = $(eval KMODS_DEBUG := $(abspath $(KDIR_DEBUG)/../modules))$(KMODS_DEBUG)

.PHONY: debug-kernel debug-kernel-rebuild
debug-kernel:
	@$(BUILD_DEBUG_KERNEL)

# Throw away the cached build for the current fragment and build it again.
debug-kernel-rebuild:
	@$(BUILD_DEBUG_KERNEL) --force
