# SPDX-License-Identifier: MIT
#
# libhlcoll across hosts: two VMs (dev/hlvm --hosts 2), NIC within a VM,
# libfabric between them (tests/hlvm/hosts-coll). One boot of the two VMs
# each. make check runs the lean case (hosts-coll check-quick, a step of
# its own after its two lanes); these are the long ones, not part of make
# check; make bench ends with bench-hosts.

HOSTS_HLVM = $(TOP)/dev/hlvm --hosts 2 --devices 2 --timeout 2400

.PHONY: check-hosts check-hosts-16 bench-hosts profile-hosts

## 2 VMs x 2 devices: every (collective, type, op) bit-exact, in place and not, its negative control, a killed and a stopped host
check-hosts: all
	$(HOSTS_HLVM) -- $(TOP)/tests/hlvm/hosts-coll check

## 16 ranks, 2 VMs x 8 devices (128 MiB HBM each): all-reduce, all-gather, every collective's sums and maxima bit-exact, a killed host
check-hosts-16: all
	$(TOP)/dev/hlvm --hosts 2 --devices 8 --hbm 128M --mem 3G --timeout 3600 \
		-- $(TOP)/tests/hlvm/hosts-coll check-16

## 2 VMs x 2 devices: all-reduce, all-gather, reduce-scatter, all-to-all at 4 MiB and 64 MiB against Open MPI's over the same link, busbw ratios
bench-hosts: all
	$(TOP)/dev/hlvm --hosts 2 --devices 2 --timeout 3600 \
		-- $(TOP)/tests/hlvm/hosts-coll bench

## 2 VMs x 2 devices: perf record on hlvm0 during the 4 MiB all-reduce and Open MPI's (reports in the run's scratch, printed)
profile-hosts: all
	$(TOP)/dev/hlvm --hosts 2 --devices 2 --timeout 2400 --keep \
		-- $(TOP)/tests/hlvm/hosts-coll profile
