/* SPDX-License-Identifier: MIT */
/*
 * hlcoll_fi.h - libfabric, loaded on the first communicator across hosts
 * (hlcoll_fi.c). Only hlcoll_ofi.c includes it.
 */
#ifndef HLCOLL_FI_H
#define HLCOLL_FI_H

#include <stdint.h>

#include <rdma/fabric.h>

/*
 * libfabric's functions that are symbols (the rest are inline calls
 * through its objects' ops), at the symbol versions that a link against
 * these headers binds (hlcoll_fi.c); valid once hlcoll_fi_load() returned 0
 */
struct hlcoll_fi {
	int (*getinfo)(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints,
		       struct fi_info **info);
	void (*freeinfo)(struct fi_info *info);
	struct fi_info *(*dupinfo)(const struct fi_info *info);
	int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context);
	const char *(*strerror)(int errnum);
};

extern struct hlcoll_fi hlcoll_fi;

/*
 * Loads libfabric once per process, leaving the process's signal
 * dispositions as they were. 0, or -EOPNOTSUPP (not installed, or a
 * symbol missing: logged at WARN)
 */
int hlcoll_fi_load(int rank);

#endif
