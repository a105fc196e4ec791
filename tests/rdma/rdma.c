// SPDX-License-Identifier: MIT
/*
 * rdma: our dma-buf handed to rdma-core's ibv_reg_dmabuf_mr(), the call
 * perftest's Habana backend and libfabric's fabtests make with an hl-thunk
 * dma-buf, through the RDMA provider the VM kernel offers: soft-RoCE
 * (rdma_rxe) over a veth pair.
 *
 * What it shows, and what docs/dmabuf.md records: rxe is a working verbs
 * device (a host-memory MR registers), but it has no dma-buf MR support
 * (no reg_user_mr_dmabuf in 6.12; neither has siw), so uverbs refuses with
 * EOPNOTSUPP, for our dma-buf and for a udmabuf of plain system memory
 * alike: the refusal is the provider's, not the exporter's. Only hardware
 * providers (mlx5, efa, irdma, bnxt_re) register dma-buf MRs; none exists
 * in QEMU. The edu importer (tests/dmabuf) stays the proof of the exporter.
 */
#include "hltests.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MB (1024ull * 1024)

struct rdma_state {
	struct hltests_state st;
	struct ibv_context *ibctx;
	struct ibv_pd *pd;
};

static int run(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		print_error("'%s' failed (%d)\n", cmd, rc);
	return rc;
}

/*
 * soft-RoCE device rxe_hl over a veth pair, once per VM. $HLTESTS_MODPROBE
 * replaces "modprobe" for kernels whose modules are not under the guest's
 * /lib/modules (the debug lane: "modprobe -d <its modules_install root>").
 */
static int rxe_up(void)
{
	const char *modprobe = getenv("HLTESTS_MODPROBE");
	char cmd[512];

	if (!access("/sys/class/infiniband/rxe_hl", F_OK))
		return 0;
	if (!modprobe)
		modprobe = "modprobe";
	snprintf(cmd, sizeof(cmd), "%s rdma_rxe", modprobe);
	if (run(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s veth", modprobe);
	if (run(cmd))
		return -1;
	/* Idempotent: an earlier, failed attempt may have left the pair */
	if (access("/sys/class/net/hlveth0", F_OK) &&
	    run("ip link add hlveth0 type veth peer name hlveth1"))
		return -1;
	if (run("ip link set hlveth0 up") || run("ip link set hlveth1 up"))
		return -1;
	return run("rdma link add rxe_hl type rxe netdev hlveth0");
}

static int setup(void **state)
{
	struct ibv_device **list;
	struct rdma_state *r;
	void *st = NULL;
	int i, n;

	if (rxe_up())
		return -1;
	r = calloc(1, sizeof(*r));
	if (!r || hltests_setup(&st))
		return -1;
	r->st = *(struct hltests_state *)st;
	free(st);

	list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "rxe_hl"))
			r->ibctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!r->ibctx) {
		print_error("rxe_hl: no verbs device (is ibverbs-providers installed?)\n");
		return -1;
	}
	r->pd = ibv_alloc_pd(r->ibctx);
	if (!r->pd)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rdma_state *r = *state;

	if (r) {
		ibv_dealloc_pd(r->pd);
		ibv_close_device(r->ibctx);
		hlthunk_close(r->st.fd);
		free(r);
	}
	return 0;
}

static const int access_flags = IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE;

/* The provider is real: host memory registers */
static void test_rxe_registers_host_memory(void **state)
{
	struct rdma_state *r = *state;
	void *buf = aligned_alloc(4096, MB);
	struct ibv_mr *mr;

	assert_non_null(buf);
	memset(buf, 0, MB);
	mr = ibv_reg_mr(r->pd, buf, MB, access_flags);
	assert_non_null(mr);
	assert_int_equal(mr->length, MB);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(buf);
}

/* Our dma-buf: rxe has no dma-buf MRs, uverbs says EOPNOTSUPP */
static void test_rxe_refuses_our_dmabuf_mr(void **state)
{
	struct rdma_state *r = *state;
	struct hltests_dram_buf d;
	struct ibv_mr *mr;
	int fd;

	hltests_dram_map(r->st.fd, &d, 2 * MB, false);
	fd = hlthunk_device_memory_export_dmabuf_fd(r->st.fd, d.va, 2 * MB,
						    O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);

	errno = 0;
	mr = ibv_reg_dmabuf_mr(r->pd, 0, 2 * MB, 0, fd, access_flags);
	if (mr) {
		print_error("rxe registered a dma-buf MR: update docs/dmabuf.md and this test\n");
		ibv_dereg_mr(mr);
		fail();
	}
	print_message("ibv_reg_dmabuf_mr on rxe: %s (errno %d)\n",
		      strerror(errno), errno);
	assert_int_equal(errno, EOPNOTSUPP);

	close(fd);
	hltests_dram_unmap(r->st.fd, &d);
}

/* The same answer for system memory: it is the provider, not the exporter */
static void test_rxe_refuses_any_dmabuf_mr(void **state)
{
	struct rdma_state *r = *state;
	struct udmabuf_create create;
	struct ibv_mr *mr;
	int memfd, dev, fd;

	memfd = memfd_create("hl-rdma", MFD_ALLOW_SEALING);
	assert_true(memfd >= 0);
	assert_int_equal(ftruncate(memfd, 2 * MB), 0);
	assert_int_equal(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	dev = open("/dev/udmabuf", O_RDWR);
	assert_true(dev >= 0);
	memset(&create, 0, sizeof(create));
	create.memfd = memfd;
	create.size = 2 * MB;
	fd = ioctl(dev, UDMABUF_CREATE, &create);
	assert_true(fd >= 0);

	errno = 0;
	mr = ibv_reg_dmabuf_mr(r->pd, 0, 2 * MB, 0, fd, access_flags);
	if (mr)
		ibv_dereg_mr(mr);
	assert_null(mr);
	assert_int_equal(errno, EOPNOTSUPP);
	close(fd);
	close(dev);
	close(memfd);
}

static const struct CMUnitTest rdma_tests[] = {
	cmocka_unit_test_setup_teardown(test_rxe_registers_host_memory, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_rxe_refuses_our_dmabuf_mr, setup,
					teardown),
	cmocka_unit_test_setup_teardown(test_rxe_refuses_any_dmabuf_mr, setup,
					teardown),
};

int main(void)
{
	return HLTESTS_RUN("rdma", rdma_tests);
}
