# SPDX-License-Identifier: MIT
#
# make bench: tools/hl-bench in one VM boot, each series against its peer in
# the same run, then a second boot under multi-threaded TCG (HLBENCH_MTTCG=0
# skips it); results in bench-results/<UTC time>/, docs/performance.md
# refreshed; then the collectives across two VMs against Open MPI's
# (make bench-hosts, mk/hosts.mk; BENCH_HOSTS=0 skips it). Not part of
# make check.

.PHONY: bench bench-run bench-quick

BENCH_HOSTS ?= 1

## Install what is missing, build, run tools/hl-bench in a VM, refresh docs/performance.md, then make bench-hosts (BENCH_HOSTS=0: not)
bench: deps
	$(MAKE) bench-run
ifneq ($(BENCH_HOSTS),0)
	$(MAKE) bench-hosts
endif

## make bench without installing packages first
bench-run: all
	$(TOP)/tools/hl-bench/run

# A smoke run of the tool: small sizes, docs untouched
## A smoke run of the benchmark: small sizes, docs untouched
bench-quick: all
	$(TOP)/tools/hl-bench/run --quick
