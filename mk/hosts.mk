# SPDX-License-Identifier: MIT
#
# libhlcoll across hosts: two VMs (tools/hlvm --hosts 2) with two devices
# each, NIC within a VM, libfabric between them (tests/hlvm/hosts-coll).
# One boot of the two VMs each; not part of make check (check-hosts: 5-8
# minutes on a loaded 2-core machine; bench-hosts: about 12), nor of make
# bench.

HOSTS_HLVM = $(TOP)/tools/hlvm --hosts 2 --devices 2 --timeout 1400

.PHONY: check-hosts bench-hosts

## 2 VMs x 2 devices: all-reduce (int32, float) and other collectives bit-exact by mpirun and the unique id, a killed host
check-hosts: all
	$(HOSTS_HLVM) -- $(TOP)/tests/hlvm/hosts-coll check

## 2 VMs x 2 devices: all-reduce at 4 MiB and 64 MiB against Open MPI's MPI_Allreduce over the same link, with the busbw ratio
bench-hosts: all
	$(HOSTS_HLVM) -- $(TOP)/tests/hlvm/hosts-coll bench
