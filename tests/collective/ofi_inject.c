// SPDX-License-Identifier: MIT
/*
 * libfabric failures planted from outside the library: the suite defines
 * fi_fabric and fi_getinfo at the versions libhlcoll looks them up at
 * (lib/hlcoll/hlcoll_fi_ver.h, written by its build; gen/ofi_inject.map
 * from it), which its lookup in the process's global scope then finds
 * first (the executable comes first), and hands each call on to
 * libfabric's own. Where a rank asked for it (hltests_ofi_refuse_av), the
 * fabric it returns opens domains whose address vectors refuse every
 * insertion, as a provider refuses an address it cannot reach. Only the
 * outermost call's fabric is changed (a utility provider opens its core
 * provider's through fi_fabric() as well). Likewise fi_getinfo(): where a
 * rank asked for it (hltests_ofi_tag_bits), every answer's
 * mem_tag_format says that many tag bits, as psm2's "tag60" layout says
 * 60. Nothing of this is in the library.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "hlcoll_fi_ver.h"
#include "ofi_inject.h"

bool hltests_ofi_refuse_av;
int hltests_ofi_tag_bits;

typedef int (*fi_fabric_fn)(struct fi_fabric_attr *attr,
			    struct fid_fabric **fabric, void *context);
typedef int (*fi_getinfo_fn)(uint32_t version, const char *node,
			     const char *service, uint64_t flags,
			     const struct fi_info *hints, struct fi_info **info);

/* One fabric, one domain and one AV per process of the suite's ranks */
static struct fi_ops_fabric fabric_ops;
static struct fi_ops_domain domain_ops;
static struct fi_ops_av av_ops;
static int (*real_domain)(struct fid_fabric *fabric, struct fi_info *info,
			  struct fid_domain **dom, void *context);
static int (*real_av_open)(struct fid_domain *domain, struct fi_av_attr *attr,
			   struct fid_av **av, void *context);

static int refuse_insert(struct fid_av *av, const void *addr, size_t count,
			 fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	(void)av; (void)addr; (void)count; (void)fi_addr; (void)flags;
	(void)context;
	return -FI_EADDRNOTAVAIL;
}

static int wrap_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
			struct fid_av **av, void *context)
{
	int rc = real_av_open(domain, attr, av, context);

	if (rc)
		return rc;
	av_ops = *(*av)->ops;
	av_ops.insert = refuse_insert;
	(*av)->ops = &av_ops;
	return 0;
}

static int wrap_domain(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **dom, void *context)
{
	int rc = real_domain(fabric, info, dom, context);

	if (rc)
		return rc;
	domain_ops = *(*dom)->ops;
	real_av_open = domain_ops.av_open;
	domain_ops.av_open = wrap_av_open;
	(*dom)->ops = &domain_ops;
	return 0;
}

/* The versions libhlcoll looks up */
__asm__(".symver hltests_fi_fabric, fi_fabric@@" HLCOLL_FI_VER_fi_fabric);
__asm__(".symver hltests_fi_getinfo, fi_getinfo@@" HLCOLL_FI_VER_fi_getinfo);

int hltests_fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context);
int hltests_fi_getinfo(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints,
		       struct fi_info **info);

int hltests_fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context)
{
	fi_fabric_fn real = (fi_fabric_fn)dlvsym(RTLD_NEXT, "fi_fabric",
						 HLCOLL_FI_VER_fi_fabric);
	static __thread int depth;
	int rc;

	if (!real)
		return -FI_ENOSYS;
	/* A utility provider (rxm) opens its core's fabric through here too */
	depth++;
	rc = real(attr, fabric, context);
	depth--;
	if (rc || depth || !hltests_ofi_refuse_av)
		return rc;
	fabric_ops = *(*fabric)->ops;
	real_domain = fabric_ops.domain;
	fabric_ops.domain = wrap_domain;
	(*fabric)->ops = &fabric_ops;
	return 0;
}

int hltests_fi_getinfo(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints,
		       struct fi_info **info)
{
	fi_getinfo_fn real = (fi_getinfo_fn)dlvsym(RTLD_NEXT, "fi_getinfo",
						   HLCOLL_FI_VER_fi_getinfo);
	static __thread int depth;
	struct fi_info *i;
	int rc;

	if (!real)
		return -FI_ENOSYS;
	/* rxm asks its core provider through here too */
	depth++;
	rc = real(version, node, service, flags, hints, info);
	depth--;
	if (rc || depth || !hltests_ofi_tag_bits)
		return rc;
	for (i = *info; i; i = i->next)
		if (i->ep_attr)
			i->ep_attr->mem_tag_format =
				~0ull >> (64 - hltests_ofi_tag_bits);
	return 0;
}
