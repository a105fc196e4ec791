// SPDX-License-Identifier: MIT
/*
 * hlcoll_fi_ver.c - not part of the library: linked against libfabric at
 * build time, never run, so that the Makefile reads which symbol version
 * of each of libfabric's functions a link against its headers binds
 * (hlcoll_fi_ver.h, for hlcoll_fi.c, which loads libfabric and looks the
 * functions up at those versions).
 */
#include <stddef.h>

#include <rdma/fabric.h>

int main(void)
{
	struct fi_info *info = fi_dupinfo(NULL);
	struct fid_fabric *fabric = NULL;

	if (fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, info, &info) ||
	    fi_fabric(info->fabric_attr, &fabric, NULL))
		return !fi_strerror(0);
	fi_freeinfo(info);
	return 0;
}
