// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC ports, the fabric between the emulated devices of
 * the host, and the NIC engine that runs HL_PKT_NIC_SEND, HL_PKT_NIC_RECV,
 * HL_PKT_NIC_WRITE and HL_PKT_NIC_WRITE_IMM.
 *
 * Ports and fabric: each device has HL_EMU_NIC_PORTS ports. Port P of the
 * device with module id D has the address 02:48:4c:00:D:P (as a number,
 * 0x02484c000000 | D << 8 | P). The module parameter nic_links cables
 * ports of different devices in pairs: "all" (the default) cables port P
 * of device D to port D of device P, for every D != P below
 * HL_EMU_NIC_PORTS (all-to-all among devices 0..7); "none" cables nothing;
 * "D.P-E.Q,..." cables exactly the pairs listed. A link is up when both
 * devices are bound and both ends are administratively up, which debugfs
 * nic/port<P>/link (a bool, default Y) sets for its end.
 *
 * Fabric registry: a device joins at hw_init and leaves at hw_fini. Its
 * struct hl_emu_nic is refcounted (and holds the device), so that a peer's
 * engine can keep it across the device's removal; hw_fini sets @detached
 * and waits for the engine accesses in flight (hl_device_hw_quiesce()),
 * after which no peer engine touches the device's memory.
 *
 * Data path (per message, in the sender's queue worker). The wire is the
 * emulated hardware's: this file has the links, addresses and the copy,
 * emu_nic_qp.c the QP contexts the core programs (asic_funcs->nic_qp_*)
 * and the wire's rules on them; the core learns what happened only from
 * hl_nic_report():
 *   1. admission (hl_emu_send_begin()): the QP is in RTS and below its
 *      send WQ size;
 *   2. the wire (hl_emu_send_take_turn()): one message at a time per QP,
 *      which fixes its PSNs: ceil(size / mtu) packets (at least 1) from
 *      the QP's send PSN;
 *   3. matching: the peer device across the link, the QP context there
 *      of connection remote_conn_id, while the peer's owner has it
 *      (hl_emu_qp_get_remote(); a whole ID, so only the owner that
 *      allocated it has it), and there (hl_emu_send_match()) the oldest
 *      receive posted; the QP must name this port and connection (else the
 *      send fails at once, REMOTE_INVALID), the receive expect this PSN;
 *      the receive becomes ACTIVE (the sender's);
 *   4. copy, step by step, each byte moved once: from this device's
 *      memory, through its MMU (the queue's TLB, this context's ASID),
 *      straight into the peer's, through the peer's MMU (the receiving
 *      context's ASID), run pair by run pair, inside both devices' engine
 *      accesses at once (hl_device_hw_enter_pair(): the peer's unplug
 *      SRCU, then the two accesses in the order of the devices' indexes,
 *      habanalabs.h), unless the peer is unplugged or detached. In any
 *      other order two engines sending in opposite directions would
 *      deadlock against quiescers waiting on both devices;
 *   5. completion (hl_emu_send_finish()): a failure moves the peer's QP
 *      and then this one to ERR, reported to their cores; then the
 *      receive (status, bytes, PSN), then this send's CQE, reported. The
 *      receiver's CQE comes from its own RECV packet (hl_emu_recv_finish()).
 * Between steps and while waiting the engine checks the job's deadline,
 * the device's stop, both QPs' epochs (hl_emu_send_flushed(),
 * hl_emu_send_peer_flushed()) and the link. Every wait is a sleep of at
 * most HL_EMU_NIC_WAIT_SLICE in one of emu_nic_qp.c's wait calls: events
 * wake it at once, and the checks above bound it.
 *
 * A WRITE or WRITE_IMM (hl_emu_nic_exec_write()) takes the same steps:
 * its lkey is checked in this context before the wire, its rkey in the
 * peer connection's context once matched (hl_nic_mr_lookup(),
 * common/nic_mr.c), and each step of the copy runs inside both regions'
 * access sections. At matching a WRITE takes no receive; a WRITE_IMM takes
 * the oldest posted one, which its completion fills with the immediate
 * value (the bytes land in the region). The test-only two-copy step
 * (nic_two_copies) is in emu_nic_debug.c.
 *
 * A RECV posts its receive (hl_emu_recv_post()) and waits for it to be
 * DONE. A POSTED receive is withdrawn by its poster (timeout, stop, link
 * down, flushed QP: hl_emu_recv_settle()); an ACTIVE one only by its
 * sender, which stops within a step.
 *
 * References: the job's CS holds its context; the engine holds the local
 * QP context, the peer's struct hl_emu_nic (hence its hl_device), the
 * peer's QP context and the peer's context while it uses them.
 *
 * Locks: hl_emu_fabric_lock guards the registry (innermost: the lock
 * order is in habanalabs.h, above struct hl_device). This file takes no
 * lock of the core's. No lock is held across a sleep, an engine access or
 * a call to the core; a WRITE's step holds its regions' access sections
 * (hl_nic_mr_access_begin()) around its engine accesses.
 */

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "emu.h"
#include "emu_nic.h"

#define HL_EMU_NIC_ADDR_BASE	0x02484c000000ull
#define HL_EMU_NIC_ADDR_LOW	0xffffull

/* Longest sleep of the NIC engine between checks */
#define HL_EMU_NIC_WAIT_SLICE	msecs_to_jiffies(20)

/* The registry: the NIC of each bound device, by module id */
static DEFINE_SPINLOCK(hl_emu_fabric_lock); /* Protects: hl_emu_fabric */
static struct hl_emu_nic *hl_emu_fabric[HL_MAX_DEVICES];

/*
 * The cabling: (peer module id << 8 | peer port) + 1 per port, 0 for none.
 * Parsed from nic_links once, under hl_emu_cabling_lock, before the first
 * device joins; read-only afterwards.
 */
static DEFINE_MUTEX(hl_emu_cabling_lock); /* Protects: cabling parse */
static bool hl_emu_cabling_parsed;
static int hl_emu_cabling_error;
static u16 hl_emu_cabling[HL_MAX_DEVICES][HL_EMU_NIC_PORTS];

static u64 hl_emu_nic_addr(u32 id, u32 port)
{
	return HL_EMU_NIC_ADDR_BASE | (u64)id << 8 | port;
}

static bool hl_emu_nic_addr_decode(u64 addr, u32 *id, u32 *port)
{
	if ((addr & ~HL_EMU_NIC_ADDR_LOW) != HL_EMU_NIC_ADDR_BASE)
		return false;
	*id = (addr >> 8) & 0xff;
	*port = addr & 0xff;
	return *id < HL_MAX_DEVICES && *port < HL_EMU_NIC_PORTS;
}

/* The port cabled to @port of device @id, if any */
static bool hl_emu_cable(u32 id, u32 port, u32 *peer_id, u32 *peer_port)
{
	u16 c;

	if (id >= HL_MAX_DEVICES || port >= HL_EMU_NIC_PORTS)
		return false;
	c = hl_emu_cabling[id][port];
	if (!c)
		return false;
	*peer_id = (c - 1) >> 8;
	*peer_port = (c - 1) & 0xff;
	return true;
}

static int hl_emu_cabling_add(u32 a, u32 p, u32 b, u32 q)
{
	lockdep_assert_held(&hl_emu_cabling_lock);

	if (a >= HL_MAX_DEVICES || b >= HL_MAX_DEVICES || a == b ||
	    p >= HL_EMU_NIC_PORTS || q >= HL_EMU_NIC_PORTS ||
	    hl_emu_cabling[a][p] || hl_emu_cabling[b][q])
		return -EINVAL;
	hl_emu_cabling[a][p] = (b << 8 | q) + 1;
	hl_emu_cabling[b][q] = (a << 8 | p) + 1;
	return 0;
}

static int hl_emu_cabling_parse(const char *spec)
{
	char *copy, *s, *tok;
	u32 a, p, b, q;
	char end;
	int rc = 0;

	lockdep_assert_held(&hl_emu_cabling_lock);
	memset(hl_emu_cabling, 0, sizeof(hl_emu_cabling));

	if (!spec || !*spec || !strcmp(spec, "all")) {
		for (a = 0; a < HL_EMU_NIC_PORTS; a++)
			for (b = a + 1; b < HL_EMU_NIC_PORTS; b++)
				hl_emu_cabling_add(a, b, b, a);
		return 0;
	}
	if (!strcmp(spec, "none"))
		return 0;

	copy = kstrdup(spec, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	s = copy;
	while (!rc && (tok = strsep(&s, ",")) != NULL) {
		if (sscanf(tok, "%u.%u-%u.%u%c", &a, &p, &b, &q, &end) != 4)
			rc = -EINVAL;
		else
			rc = hl_emu_cabling_add(a, p, b, q);
	}
	kfree(copy);

	if (rc)
		memset(hl_emu_cabling, 0, sizeof(hl_emu_cabling));
	return rc;
}

static void hl_emu_nic_release(struct kref *ref)
{
	struct hl_emu_nic *nic = container_of(ref, struct hl_emu_nic, refcount);

	/* Every QP context holds the NIC: none is left */
	WARN_ON_ONCE(!xa_empty(&nic->qps));
	xa_destroy(&nic->qps);
	hl_device_put(nic->hdev);
	kfree(nic);
}

/**
 * hl_emu_nic_put - drop a reference on a device's NIC.
 * @nic: the NIC.
 */
void hl_emu_nic_put(struct hl_emu_nic *nic)
{
	kref_put(&nic->refcount, hl_emu_nic_release);
}

/*
 * Under hl_emu_fabric_lock: the NIC at the other end of @port of @nic when
 * the link is up (*@peer_port is its port), else NULL.
 */
static struct hl_emu_nic *hl_emu_link_peer_locked(struct hl_emu_nic *nic,
						  u32 port, u32 *peer_port)
{
	struct hl_emu_nic *peer;
	u32 peer_id;

	lockdep_assert_held(&hl_emu_fabric_lock);

	if (!hl_emu_cable(nic->id, port, &peer_id, peer_port))
		return NULL;
	peer = hl_emu_fabric[peer_id];
	if (!peer || hl_emu_fabric[nic->id] != nic ||
	    !READ_ONCE(nic->ports[port].admin_up) ||
	    !READ_ONCE(peer->ports[*peer_port].admin_up))
		return NULL;
	return peer;
}

/* The peer NIC of @port with a reference when the link is up, else NULL */
static struct hl_emu_nic *hl_emu_link_peer_get(struct hl_emu_nic *nic,
					       u32 port, u32 *peer_port)
{
	struct hl_emu_nic *peer;

	spin_lock(&hl_emu_fabric_lock);
	peer = hl_emu_link_peer_locked(nic, port, peer_port);
	if (peer)
		kref_get(&peer->refcount);
	spin_unlock(&hl_emu_fabric_lock);
	return peer;
}

static bool hl_emu_link_up(struct hl_emu_nic *nic, u32 port)
{
	u32 peer_port;
	bool up;

	spin_lock(&hl_emu_fabric_lock);
	up = hl_emu_link_peer_locked(nic, port, &peer_port);
	spin_unlock(&hl_emu_fabric_lock);
	return up;
}

/*
 * The link of @port changed state, up or down: tell the files of this
 * device and of the device cabled to it (HL_NOTIFIER_EVENT_NIC_LINK).
 */
static void hl_emu_link_event(struct hl_emu_nic *nic, u32 port)
{
	struct hl_device *peer;
	u64 addr;

	hl_events_send(nic->hdev, HL_NOTIFIER_EVENT_NIC_LINK);
	peer = hl_emu_nic_peer_get(nic->hdev, port, &addr);
	if (peer) {
		hl_events_send(peer, HL_NOTIFIER_EVENT_NIC_LINK);
		hl_device_put(peer);
	}
}

/**
 * hl_emu_nic_init - create the device's NIC and join the fabric (hw_init).
 * @emu: the device.
 *
 * Return: 0, -ENOMEM, or -EINVAL when the nic_links parameter is malformed.
 */
int hl_emu_nic_init(struct hl_emu_device *emu)
{
	struct hl_device *hdev = emu->hdev;
	struct hl_emu_nic *nic;
	int rc, i;

	mutex_lock(&hl_emu_cabling_lock);
	if (!hl_emu_cabling_parsed) {
		hl_emu_cabling_error = hl_emu_cabling_parse(hl_nic_links);
		hl_emu_cabling_parsed = !hl_emu_cabling_error ||
					hl_emu_cabling_error == -EINVAL;
	}
	rc = hl_emu_cabling_error;
	mutex_unlock(&hl_emu_cabling_lock);
	if (rc) {
		hl_err(hdev, "nic_links=\"%s\" is not a valid cabling\n",
		       hl_nic_links);
		return rc;
	}

	/* After a hard reset: the same NIC joins the fabric again */
	nic = emu->nic;
	if (nic) {
		/* No peer reaches it before it joins below */
		WRITE_ONCE(nic->detached, false);
		goto join;
	}

	nic = kzalloc(sizeof(*nic), GFP_KERNEL);
	if (!nic)
		return -ENOMEM;
	kref_init(&nic->refcount);
	hl_device_get(hdev);
	nic->hdev = hdev;
	nic->id = hl_device_id(hdev);
	xa_init(&nic->qps);
	for (i = 0; i < HL_EMU_NIC_PORTS; i++) {
		nic->ports[i].admin_up = true;
		nic->ports[i].nic = nic;
		nic->ports[i].index = i;
	}
	emu->nic = nic;

join:
	spin_lock(&hl_emu_fabric_lock);
	hl_emu_fabric[nic->id] = nic;
	spin_unlock(&hl_emu_fabric_lock);
	/* The links to bound peers came up */
	for (i = 0; i < HL_EMU_NIC_PORTS; i++)
		if (hl_emu_link_up(nic, i))
			hl_emu_link_event(nic, i);
	return 0;
}

/**
 * hl_emu_nic_fini - leave the fabric (hw_fini): peers see the links down
 * and no peer engine touches the device's memory any more.
 * @emu: the device.
 */
void hl_emu_nic_fini(struct hl_emu_device *emu)
{
	struct hl_emu_nic *nic = emu->nic;
	struct hl_device *hdev = emu->hdev;
	bool was_up[HL_EMU_NIC_PORTS];
	int i;

	for (i = 0; i < HL_EMU_NIC_PORTS; i++)
		was_up[i] = hl_emu_link_up(nic, i);
	spin_lock(&hl_emu_fabric_lock);
	if (hl_emu_fabric[nic->id] == nic)
		hl_emu_fabric[nic->id] = NULL;
	spin_unlock(&hl_emu_fabric_lock);
	/* The links that were up went down */
	for (i = 0; i < HL_EMU_NIC_PORTS; i++)
		if (was_up[i])
			hl_emu_link_event(nic, i);

	/*
	 * A peer engine's step that began before sees it or is waited for;
	 * one that begins after sees it
	 */
	WRITE_ONCE(nic->detached, true);
	hl_device_hw_quiesce(hdev);
}

/**
 * hl_emu_nic_free - drop the device's reference on its NIC (early_fini).
 * @emu: the device.
 */
void hl_emu_nic_free(struct hl_emu_device *emu)
{
	if (!emu->nic)
		return;
	hl_emu_nic_put(emu->nic);
	emu->nic = NULL;
}

/**
 * hl_emu_nic_port_info - asic_funcs->nic_port_info.
 * @hdev: the device.
 * @port: the port, below HL_EMU_NIC_PORTS.
 * @info: zeroed; receives the port.
 */
void hl_emu_nic_port_info(struct hl_device *hdev, u32 port,
			  struct hl_info_nic_port *info)
{
	struct hl_emu_nic *nic = to_emu(hdev)->nic;
	u32 peer_id, peer_port;

	info->port = port;
	info->addr = hl_emu_nic_addr(nic->id, port);
	info->admin_up = READ_ONCE(nic->ports[port].admin_up);
	if (!hl_emu_cable(nic->id, port, &peer_id, &peer_port))
		return;

	info->cabled = 1;
	info->peer_module_id = peer_id;
	info->peer_port = peer_port;
	info->peer_addr = hl_emu_nic_addr(peer_id, peer_port);

	spin_lock(&hl_emu_fabric_lock);
	info->peer_present = !!hl_emu_fabric[peer_id];
	info->link_up = !!hl_emu_link_peer_locked(nic, port, &peer_port);
	spin_unlock(&hl_emu_fabric_lock);
}

/**
 * hl_emu_nic_peer_get - asic_funcs->nic_peer_get.
 * @hdev: the device.
 * @port: a port, below HL_EMU_NIC_PORTS.
 * @addr: receives the address of @port.
 *
 * Return: the device at the other end of @port's cable with a reference,
 * or NULL.
 */
struct hl_device *hl_emu_nic_peer_get(struct hl_device *hdev, u32 port,
				      u64 *addr)
{
	struct hl_emu_nic *nic = to_emu(hdev)->nic, *peer;
	struct hl_device *peer_hdev = NULL;
	u32 peer_id, peer_port;

	*addr = hl_emu_nic_addr(nic->id, port);
	if (!hl_emu_cable(nic->id, port, &peer_id, &peer_port))
		return NULL;
	spin_lock(&hl_emu_fabric_lock);
	peer = hl_emu_fabric[peer_id];
	if (peer) {
		peer_hdev = peer->hdev;
		hl_device_get(peer_hdev);
	}
	spin_unlock(&hl_emu_fabric_lock);
	return peer_hdev;
}

/**
 * hl_emu_nic_check_remote - asic_funcs->nic_check_remote.
 * @hdev: the device.
 * @port: the connection's port.
 * @remote_addr: the address the connection names.
 *
 * Return: 0; -ENETDOWN the link of @port is down (or @port is not
 * cabled); -EADDRNOTAVAIL @remote_addr is no port of a bound device;
 * -EHOSTUNREACH it is a port that is not cabled to @port.
 */
int hl_emu_nic_check_remote(struct hl_device *hdev, u32 port, u64 remote_addr)
{
	struct hl_emu_nic *nic = to_emu(hdev)->nic;
	u32 id, rport, peer_id, peer_port;
	int rc = 0;

	spin_lock(&hl_emu_fabric_lock);
	if (!hl_emu_link_peer_locked(nic, port, &peer_port))
		rc = -ENETDOWN;
	else if (!hl_emu_nic_addr_decode(remote_addr, &id, &rport) ||
		 !hl_emu_fabric[id])
		rc = -EADDRNOTAVAIL;
	else if (!hl_emu_cable(nic->id, port, &peer_id, &peer_port) ||
		 peer_id != id || peer_port != rport)
		rc = -EHOSTUNREACH;
	spin_unlock(&hl_emu_fabric_lock);

	return rc;
}

/*
 * Serialises the link switches, so that each change is told once.
 * Protects: the read of the link's state before a switch, the write of
 * hl_emu_nic_port.admin_up and the event of the change, as one step
 */
static DEFINE_MUTEX(hl_emu_link_switch_lock);

static ssize_t hl_emu_link_read(struct file *f, char __user *buf, size_t n,
				loff_t *pos)
{
	struct hl_emu_nic_port *p = f->private_data;
	char s[2] = { READ_ONCE(p->admin_up) ? 'Y' : 'N', '\n' };

	return simple_read_from_buffer(buf, n, pos, s, sizeof(s));
}

/* As a debugfs bool (kstrtobool); a change of the link sends its event */
static ssize_t hl_emu_link_write(struct file *f, const char __user *buf,
				 size_t n, loff_t *pos)
{
	struct hl_emu_nic_port *p = f->private_data;
	bool up, before;
	int rc;

	rc = kstrtobool_from_user(buf, n, &up);
	if (rc)
		return rc;
	mutex_lock(&hl_emu_link_switch_lock);
	before = hl_emu_link_up(p->nic, p->index);
	WRITE_ONCE(p->admin_up, up);
	if (hl_emu_link_up(p->nic, p->index) != before)
		hl_emu_link_event(p->nic, p->index);
	mutex_unlock(&hl_emu_link_switch_lock);
	return n;
}

static const struct file_operations hl_emu_link_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = hl_emu_link_read,
	.write = hl_emu_link_write,
	.llseek = default_llseek,
};

/**
 * hl_emu_nic_debugfs_init - asic_funcs->debugfs_init: nic/port<N>/link.
 * @hdev: the device.
 * @root: the device's debugfs directory.
 *
 * Writing 0 (or N) to link takes this end of the port's link down, 1 (or
 * Y) brings it up; transfers in flight on a link that goes down fail with
 * HL_NIC_CQE_STATUS_LINK_DOWN.
 */
void hl_emu_nic_debugfs_init(struct hl_device *hdev, struct dentry *root)
{
	struct hl_emu_nic *nic = to_emu(hdev)->nic;
	struct dentry *dir, *port_dir;
	char name[16];
	int i;

	dir = debugfs_create_dir("nic", root);
	for (i = 0; i < HL_EMU_NIC_PORTS; i++) {
		snprintf(name, sizeof(name), "port%d", i);
		port_dir = debugfs_create_dir(name, dir);
		debugfs_create_file("link", 0644, port_dir, &nic->ports[i],
				    &hl_emu_link_fops);
	}
}

/* ------------------------------------------------------------------------
 * The NIC engine
 */

static long hl_emu_nic_slice(struct hl_cs_job *job)
{
	long left = (long)(hl_cs_job_deadline(job) - jiffies);

	return clamp_t(long, left, 1, HL_EMU_NIC_WAIT_SLICE);
}

/* The job's checks: SUCCESS, TIMEOUT, or FLUSHED with *@stopped set */
static u32 hl_emu_nic_job_check(struct hl_emu_queue *q, struct hl_cs_job *job,
				bool *stopped)
{
	if (READ_ONCE(q->emu->stopped)) {
		*stopped = true;
		return HL_NIC_CQE_STATUS_FLUSHED;
	}
	switch (hl_cs_job_check(job)) {
	case -ECANCELED:
		/* The context is torn down: its connections are flushed */
		return HL_NIC_CQE_STATUS_FLUSHED;
	case -ETIMEDOUT:
		return HL_NIC_CQE_STATUS_TIMEOUT;
	}
	cond_resched();
	return HL_NIC_CQE_STATUS_SUCCESS;
}

static int hl_emu_nic_errno(u32 status, bool stopped)
{
	if (stopped)
		return -ENODEV;
	switch (status) {
	case HL_NIC_CQE_STATUS_SUCCESS:
		return 0;
	case HL_NIC_CQE_STATUS_LOCAL_FAULT:
		return -EFAULT;
	case HL_NIC_CQE_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

/* 2. The wire: wait until no other message of the connection is on it */
static u32 hl_emu_nic_send_turn(struct hl_emu_nic_xfer *x)
{
	u32 status;

	for (;;) {
		status = hl_emu_send_take_turn(&x->send);
		if (status != HL_EMU_WR_AGAIN)
			return status;

		status = hl_emu_nic_job_check(x->q, x->job, &x->stopped);
		if (status)
			return status;
		hl_emu_send_wait_turn(&x->send, hl_emu_nic_slice(x->job));
	}
}

/* 3. Matching: on success @x holds the peer, its connection and receive */
static u32 hl_emu_nic_send_match(struct hl_emu_nic_xfer *x)
{
	struct hl_emu_send *s = &x->send;
	u32 port = x->qp->port;
	struct hl_emu_qp *rqp;
	struct hl_emu_nic *peer;
	struct hl_ctx *rctx;
	u32 status, peer_port;

	for (;;) {
		status = hl_emu_nic_job_check(x->q, x->job, &x->stopped);
		if (status)
			return status;
		if (hl_emu_send_flushed(s))
			return hl_emu_send_flush_status(s);

		peer = hl_emu_link_peer_get(x->nic, port, &peer_port);
		if (!peer)
			return HL_NIC_CQE_STATUS_LINK_DOWN;

		rqp = hl_emu_qp_get_remote(peer, s->remote_conn_id, &rctx);
		if (!rqp) {
			hl_emu_nic_put(peer);
			/* Not created yet: wait, as for a receive not posted */
			hl_emu_send_wait(s, hl_emu_nic_slice(x->job));
			continue;
		}

		status = hl_emu_send_match(s, rqp, peer_port,
					   hl_emu_nic_addr(x->nic->id, port));
		if (status == HL_NIC_CQE_STATUS_SUCCESS) {
			x->peer = peer;
			x->rctx = rctx;
			x->rqp = rqp;
			return status;
		}
		if (status == HL_EMU_WR_AGAIN)
			hl_emu_send_wait_recv(s, rqp, hl_emu_nic_slice(x->job));
		hl_emu_qp_put(rqp);
		hl_ctx_put(rctx);
		hl_emu_nic_put(peer);
		if (status != HL_EMU_WR_AGAIN)
			return status;
	}
}

/* A fault of the peer's buffer at @va: recorded in the receiving context */
static void hl_emu_nic_remote_fault(struct hl_emu_nic_xfer *x, u64 va)
{
	hl_dbg(x->peer->hdev, MMU,
	       "NIC: MMU fault, write at VA 0x%llx of connection %u\n",
	       va, x->rqp->id);
	/* A WRITE has no receive at the peer: the sender's queue */
	hl_ctx_record_fault(x->rctx, va,
			    x->send.wr ? x->send.wr->queue_id : x->q->id, true);
}

/* A fault of this side's buffer at @va: recorded in this context */
static void hl_emu_nic_local_fault(struct hl_emu_nic_xfer *x, u64 va)
{
	hl_dbg(x->q->emu->hdev, MMU,
	       "queue %u: MMU fault, NIC read at VA 0x%llx\n", x->q->id, va);
	hl_ctx_record_fault(hl_cs_job_ctx(x->job), va, x->q->id, false);
}

/*
 * The regions of a WRITE's step (a WRITE of bytes has both, a SEND none),
 * held for read in the order of their devices (hl_device_hw_before()):
 * SUCCESS (both held), LOCAL_PROT_ERR (none held: the local region's
 * refusal wins, as when a step took them one after the other) or
 * REMOTE_ACCESS_ERR (only the local region held).
 */
static u32 hl_emu_nic_mrs_begin(struct hl_emu_nic_xfer *x)
{
	struct hl_nic_mr *first = x->lmr, *second = x->rmr;

	if (!first || !second) {
		/* Never one without the other; refuse rather than copy */
		if (WARN_ON_ONCE(first || second))
			return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
		return HL_NIC_CQE_STATUS_SUCCESS;
	}
	/* A loopback would name one region twice: it is held once */
	if (first == second)
		return hl_nic_mr_access_begin(first) ?
			HL_NIC_CQE_STATUS_SUCCESS :
			HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
	if (hl_device_hw_before(x->peer->hdev, x->nic->hdev))
		swap(first, second);

	if (!hl_nic_mr_access_begin(first)) {
		if (first == x->lmr || !hl_nic_mr_access_begin(x->lmr))
			return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
		return HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR;
	}
	if (!hl_nic_mr_access_begin(second)) {
		if (second == x->rmr)
			return HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR;
		hl_nic_mr_access_end(first);
		return HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
	}
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* End what hl_emu_nic_mrs_begin() began; @held: what it returned */
static void hl_emu_nic_mrs_end(struct hl_emu_nic_xfer *x, u32 held)
{
	if (!x->lmr || held == HL_NIC_CQE_STATUS_LOCAL_PROT_ERR)
		return;
	if (held == HL_NIC_CQE_STATUS_SUCCESS && x->rmr != x->lmr)
		hl_nic_mr_access_end(x->rmr);
	hl_nic_mr_access_end(x->lmr);
}

/*
 * A step of the copy, each byte moved once: @len bytes from this device's
 * memory at @src (this context's ASID, through the queue's TLB) straight
 * into the peer's at @dst (the receiving context's ASID, through its MMU
 * without a TLB), run pair by run pair (hl_emu_mmu_span() on both sides),
 * inside both devices' engine accesses at once (hl_device_hw_enter_pair(),
 * which takes them in the lock order of habanalabs.h) and, for a WRITE,
 * both regions' access sections. *@done bytes landed. SUCCESS,
 * LOCAL_FAULT at @src + *@done, REMOTE_FAULT at @dst + *@done, or why the
 * peer took nothing (REMOTE_ACCESS_ERR, REMOTE_ERR, LINK_DOWN; LOCAL_PROT_ERR
 * for this side's region), unless the step's first byte faults here: a
 * step reads before it sends, so that one is LOCAL_FAULT.
 */
static u32 hl_emu_nic_step(struct hl_emu_nic_xfer *x, u64 src, u64 dst,
			   u64 len, u64 *done)
{
	struct hl_emu_queue *q = x->q;
	struct hl_device *hdev = q->emu->hdev, *peer_hdev = x->peer->hdev;
	u32 asid = hl_cs_job_asid(x->job), held, status;
	struct hl_emu_span s, d;
	bool entered;
	int idx;
	u64 n;

	*done = 0;
	held = hl_emu_nic_mrs_begin(x);
	if (held == HL_NIC_CQE_STATUS_LOCAL_PROT_ERR)
		return held;
	entered = hl_device_hw_enter_pair(hdev, peer_hdev, &idx);
	status = held;
	/*
	 * Checked inside the access: a peer context torn down since the
	 * last check flushed its connection before its teardown drained the
	 * engines, so its ASID is not used after it may have changed hands.
	 */
	if (!status && !entered)
		status = HL_NIC_CQE_STATUS_LINK_DOWN;
	else if (!status && hl_emu_send_peer_flushed(&x->send))
		status = HL_NIC_CQE_STATUS_REMOTE_ERR;
	else if (!status && READ_ONCE(x->peer->detached))
		status = HL_NIC_CQE_STATUS_LINK_DOWN;
	if (status) {
		if (hl_emu_mmu_span(q->emu, q, asid, src, 1, &s))
			status = HL_NIC_CQE_STATUS_LOCAL_FAULT;
		goto out;
	}

	hl_device_hw_access_assert(hdev);
	hl_device_hw_access_assert(peer_hdev);
	for (; *done < len; *done += n) {
		if (hl_emu_mmu_span(q->emu, q, asid, src + *done, len - *done,
				    &s)) {
			status = HL_NIC_CQE_STATUS_LOCAL_FAULT;
			break;
		}
		if (hl_emu_mmu_span(to_emu(peer_hdev), NULL,
				    hl_ctx_asid(x->rctx), dst + *done, s.len,
				    &d)) {
			status = HL_NIC_CQE_STATUS_REMOTE_FAULT;
			break;
		}
		n = d.len;
		/*
		 * Host pages mapped by both contexts: through q->buf, as if
		 * through a temporary buffer within the run pair
		 */
		if (hl_emu_span_overlap(&s, &d, n)) {
			n = min_t(u64, n, HL_EMU_QUEUE_BUF_SIZE);
			hl_emu_span_read(&s, q->buf, n);
			hl_emu_span_write(&d, q->buf, n);
		} else {
			hl_emu_span_copy(&d, &s, n);
		}
	}
out:
	hl_device_hw_exit_pair(hdev, peer_hdev, idx, entered);
	hl_emu_nic_mrs_end(x, held);
	return status;
}

/*
 * 4. The copy, in steps of at most HL_EMU_NIC_STEP bytes, the job, both
 * QPs and the link checked between steps (hl_emu_nic_step()). Bytes before
 * a local fault are still delivered, as the packets before it would be.
 */
static u32 hl_emu_nic_send_copy(struct hl_emu_nic_xfer *x)
{
	struct hl_emu_queue *q = x->q;
	struct hl_cs_job *job = x->job;
	const struct hl_emu_wr *wr = x->send.wr;
	bool send = x->send.kind == HL_EMU_XFER_SEND;
	u64 src = x->addr, dst = send ? wr->addr : x->dst, left = x->size;
	u64 len, put;
	u32 status;

	/* A WRITE_IMM's receive takes no byte: the region does */
	if (send && x->size > wr->size)
		return HL_NIC_CQE_STATUS_LEN_ERR;

	while (left) {
		status = hl_emu_nic_job_check(q, job, &x->stopped);
		if (status)
			return status;
		if (hl_emu_send_flushed(&x->send))
			return hl_emu_send_flush_status(&x->send);
		if (hl_emu_send_peer_flushed(&x->send))
			return HL_NIC_CQE_STATUS_REMOTE_ERR;
		if (!hl_emu_link_up(x->nic, x->qp->port))
			return HL_NIC_CQE_STATUS_LINK_DOWN;

		len = min_t(u64, left, HL_EMU_NIC_STEP);
		if (hl_nic_two_copies())
			status = hl_emu_nic_step_bounce(x, src, dst, len, &put);
		else
			status = hl_emu_nic_step(x, src, dst, len, &put);
		x->moved += put;
		if (status == HL_NIC_CQE_STATUS_LOCAL_FAULT)
			hl_emu_nic_local_fault(x, src + put);
		else if (status == HL_NIC_CQE_STATUS_REMOTE_FAULT)
			hl_emu_nic_remote_fault(x, dst + put);
		if (status)
			return status;

		src += put;
		dst += put;
		left -= put;
	}
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/**
 * hl_emu_nic_exec_send - run an HL_PKT_NIC_SEND packet.
 * @q: the queue.
 * @job: the job.
 * @pkt: the packet.
 *
 * Return: 0 when the message landed; -EINVAL for a malformed packet (size
 * above HL_NIC_MAX_MSG_SIZE, unknown connection); else the errno of the
 * completion's status (-EFAULT local fault, -ETIMEDOUT, -ENODEV the device
 * is stopping, -EIO the others).
 */
int hl_emu_nic_exec_send(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt)
{
	struct hl_emu_nic_xfer x = {
		.q = q,
		.job = job,
		.nic = q->emu->nic,
		.addr = le64_to_cpu(pkt->addr),
		.size = le64_to_cpu(pkt->size),
	};
	u32 status;

	if (x.size > HL_NIC_MAX_MSG_SIZE)
		return -EINVAL;
	x.qp = hl_emu_qp_get(x.nic, hl_cs_job_ctx(job),
			     le32_to_cpu(pkt->conn_id));
	if (!x.qp)
		return -EINVAL;

	/* 1. Admission */
	status = hl_emu_send_begin(&x.send, x.qp, x.size,
				   le64_to_cpu(pkt->wr_id), HL_EMU_XFER_SEND, 0);
	if (!status)
		status = hl_emu_nic_send_turn(&x);
	if (!status)
		status = hl_emu_nic_send_match(&x);
	if (!status)
		status = hl_emu_nic_send_copy(&x);
	/* 5. Completion of both sides, reported to their cores */
	hl_emu_send_finish(&x.send, status, x.moved);
	if (x.rqp) {
		hl_emu_qp_put(x.rqp);
		hl_ctx_put(x.rctx);
		hl_emu_nic_put(x.peer);
	}

	if (status)
		hl_dbg(q->emu->hdev, NIC,
		       "queue %u: NIC send on connection %u: status %u\n",
		       q->id, x.qp->id, status);
	hl_emu_qp_put(x.qp);
	return hl_emu_nic_errno(status, x.stopped);
}

/* Why a posted receive ends without a sender, or SUCCESS to keep waiting */
static u32 hl_emu_nic_recv_check(struct hl_emu_queue *q, struct hl_cs_job *job,
				 struct hl_emu_wr *wr, bool *stopped)
{
	u32 status = hl_emu_nic_job_check(q, job, stopped);

	if (status)
		return status;
	if (hl_emu_recv_flushed(wr))
		return HL_NIC_CQE_STATUS_FLUSHED;
	if (!hl_emu_link_up(q->emu->nic, wr->qp->port))
		return HL_NIC_CQE_STATUS_LINK_DOWN;
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* Wait until @wr is DONE; withdraws it when it can no longer be filled */
static void hl_emu_nic_recv_wait(struct hl_emu_queue *q, struct hl_cs_job *job,
				 struct hl_emu_wr *wr, bool *stopped)
{
	u32 why;

	do {
		hl_emu_recv_wait(wr, hl_emu_nic_slice(job));
		why = hl_emu_nic_recv_check(q, job, wr, stopped);
		/* ACTIVE: the sender completes it within a chunk */
	} while (!hl_emu_recv_settle(wr, why, !*stopped));
}

/**
 * hl_emu_nic_exec_recv - run an HL_PKT_NIC_RECV packet: post a receive and
 * wait for the message that lands in it.
 * @q: the queue.
 * @job: the job.
 * @pkt: the packet.
 *
 * Return: 0 when a message landed; -EINVAL for a malformed packet; else the
 * errno of the completion's status (-EFAULT when the buffer faulted,
 * -ETIMEDOUT, -ENODEV the device is stopping, -EIO the others).
 */
int hl_emu_nic_exec_recv(struct hl_emu_queue *q, struct hl_cs_job *job,
			 const struct hl_emu_pkt_nic *pkt)
{
	struct hl_emu_wr wr = {
		.addr = le64_to_cpu(pkt->addr),
		.size = le64_to_cpu(pkt->size),
		.wr_id = le64_to_cpu(pkt->wr_id),
		.queue_id = q->id,
	};
	struct hl_emu_qp *qp;
	bool stopped = false;
	u32 status;

	if (wr.size > HL_NIC_MAX_MSG_SIZE)
		return -EINVAL;
	qp = hl_emu_qp_get(q->emu->nic, hl_cs_job_ctx(job),
			   le32_to_cpu(pkt->conn_id));
	if (!qp)
		return -EINVAL;

	if (!hl_emu_recv_post(&wr, qp))
		hl_emu_nic_recv_wait(q, job, &wr, &stopped);
	status = hl_emu_recv_finish(&wr);

	if (status)
		hl_dbg(q->emu->hdev, NIC,
		       "queue %u: NIC receive on connection %u: status %u\n",
		       q->id, qp->id, status);
	hl_emu_qp_put(qp);
	return hl_emu_nic_errno(status, stopped);
}

/**
 * hl_emu_nic_exec_write - run an HL_PKT_NIC_WRITE or HL_PKT_NIC_WRITE_IMM
 * packet: a one-sided write from a region of this context into a region of
 * the peer connection's context.
 * @q: the queue.
 * @job: the job.
 * @pkt: the packet.
 * @imm: WRITE_IMM: the peer's oldest posted receive completes with the
 *	immediate value.
 *
 * The steps of a send (admission, the wire, matching, copy, completion),
 * with the keys checked before any byte moves: the lkey against this
 * context before anything goes on the wire (LOCAL_PROT_ERR), the rkey
 * against the peer connection's context and the peer QP the write arrived
 * on once matched, before the first byte lands (REMOTE_ACCESS_ERR; also
 * while this device backs off after failed rkey checks, nic_mr.h). Every
 * step of the copy runs inside the regions' access sections
 * (hl_nic_mr_access_begin()), so that a region deregistered meanwhile
 * takes no byte after its DEREG_MR returned. A write of 0 bytes checks no
 * key (as IB verbs).
 *
 * Return: 0 when the data landed; -EINVAL for a malformed packet (size
 * above HL_NIC_MAX_MSG_SIZE, unknown connection, non-zero pad, or a WRITE
 * with an immediate value); else the errno of the completion's status
 * (-ETIMEDOUT, -ENODEV the device is stopping, -EIO the others).
 */
int hl_emu_nic_exec_write(struct hl_emu_queue *q, struct hl_cs_job *job,
			  const struct hl_emu_pkt_nic_write *pkt, bool imm)
{
	struct hl_emu_nic_xfer x = {
		.q = q,
		.job = job,
		.nic = q->emu->nic,
		.size = le64_to_cpu(pkt->size),
	};
	u64 laddr = le64_to_cpu(pkt->local_addr);
	u64 raddr = le64_to_cpu(pkt->remote_addr);
	u32 status;
	int rc;

	if (x.size > HL_NIC_MAX_MSG_SIZE || pkt->pad ||
	    (!imm && pkt->imm_data))
		return -EINVAL;
	x.qp = hl_emu_qp_get(x.nic, hl_cs_job_ctx(job),
			     le32_to_cpu(pkt->conn_id));
	if (!x.qp)
		return -EINVAL;

	status = hl_emu_send_begin(&x.send, x.qp, x.size,
				   le64_to_cpu(pkt->wr_id),
				   imm ? HL_EMU_XFER_WRITE_IMM :
					 HL_EMU_XFER_WRITE,
				   le32_to_cpu(pkt->imm_data));
	/* The requester's key, before anything goes on the wire */
	if (!status && x.size) {
		rc = hl_nic_mr_lookup(hl_cs_job_ctx(job), le32_to_cpu(pkt->lkey),
				      laddr,
				      x.size, &x.lmr, &x.addr);
		if (rc) {
			hl_dbg(q->emu->hdev, NIC,
			       "queue %u: WRITE lkey 0x%x, VA 0x%llx + %llu: %d\n",
			       q->id, le32_to_cpu(pkt->lkey), laddr, x.size,
			       rc);
			status = HL_NIC_CQE_STATUS_LOCAL_PROT_ERR;
		}
	}
	if (!status)
		status = hl_emu_nic_send_turn(&x);
	if (!status)
		status = hl_emu_nic_send_match(&x);
	/*
	 * The responder's key, in the peer connection's context, for the
	 * peer QP it arrived on; this device's failures back off (issue 32)
	 */
	if (!status && x.size) {
		rc = hl_nic_mr_lookup_remote(x.rctx, q->emu->hdev, x.rqp,
					     le32_to_cpu(pkt->rkey),
					     HL_NIC_ACCESS_REMOTE_WRITE, raddr,
					     x.size, &x.rmr, &x.dst);
		if (rc) {
			hl_dbg(q->emu->hdev, NIC,
			       "queue %u: WRITE rkey 0x%x, VA 0x%llx + %llu: %d\n",
			       q->id, le32_to_cpu(pkt->rkey), raddr, x.size,
			       rc);
			status = HL_NIC_CQE_STATUS_REMOTE_ACCESS_ERR;
		}
	}
	if (!status)
		status = hl_emu_nic_send_copy(&x);
	hl_emu_send_finish(&x.send, status, x.moved);

	if (x.rmr)
		hl_nic_mr_put(x.rmr);
	if (x.lmr)
		hl_nic_mr_put(x.lmr);
	if (x.rqp) {
		hl_emu_qp_put(x.rqp);
		hl_ctx_put(x.rctx);
		hl_emu_nic_put(x.peer);
	}
	if (status)
		hl_dbg(q->emu->hdev, NIC,
		       "queue %u: NIC write on connection %u: status %u\n",
		       q->id, x.qp->id, status);
	hl_emu_qp_put(x.qp);
	return hl_emu_nic_errno(status, x.stopped);
}
