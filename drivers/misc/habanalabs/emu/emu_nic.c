// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC ports, the fabric between the emulated devices of
 * the host, and the NIC engine that runs HL_PKT_NIC_SEND/HL_PKT_NIC_RECV.
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
 * under the device's engine_access_rwsem held for write, after which no
 * peer engine touches the device's memory.
 *
 * Data path (per message, in the sender's queue worker):
 *   1. admission: the connection is in RTS and below its send WQ size;
 *   2. the wire: one message at a time per connection (tx_busy), which
 *      fixes its PSNs: psn = sq_psn, ceil(size / mtu) packets (at least 1);
 *   3. matching: the peer device across the link, its owner's connection
 *      remote_conn_id, which must be in RTR or RTS and name this port and
 *      connection, and the oldest receive posted on it, whose PSN must be
 *      the expected one; the receive becomes ACTIVE (the sender's);
 *   4. copy, chunk by chunk (at most 4 KiB, within a 4 KiB page of both
 *      buffers): read through this device's MMU (the queue's TLB, this
 *      context's ASID) under this device's engine_access_rwsem, then write
 *      through the peer's MMU (the receiving context's ASID) inside the
 *      peer's unplug SRCU section, under the peer's engine_access_rwsem,
 *      unless it is unplugged or detached. The two rwsems are never held
 *      together: with writers waiting on both, two engines sending in
 *      opposite directions would deadlock;
 *   5. completion: the receive (status, bytes, PSN) and the receiver's
 *      connection, then this connection; an error moves the connections
 *      whose work failed to ERR. Each side's CQE goes to its connection's
 *      CQ (the receiver's from its own RECV packet).
 * Between chunks and while waiting the engine checks the job's deadline,
 * the device's stop, both connections' epochs and the link. Every wait is
 * a sleep of at most HL_EMU_NIC_WAIT_SLICE on a connection's wait queue:
 * events wake it at once, and the checks above bound it.
 *
 * A RECV posts its receive and waits for it to be DONE. A POSTED receive
 * is withdrawn by its poster (timeout, stop, link down, flushed
 * connection); an ACTIVE one only by its sender, which stops within a
 * chunk.
 *
 * References: the job's CS holds its context; the engine holds the local
 * connection, the peer's struct hl_emu_nic (hence its hl_device), the
 * peer's connection and the peer's context while it uses them.
 *
 * Locks: hl_emu_fabric_lock (innermost) guards the registry; the
 * connection locks (nic.h) are held only for short updates. No lock is
 * held across a sleep or an engine access.
 */

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "emu.h"

#define HL_EMU_NIC_ADDR_BASE	0x02484c000000ull
#define HL_EMU_NIC_ADDR_LOW	0xffffull

/* Longest sleep of the NIC engine between checks */
#define HL_EMU_NIC_WAIT_SLICE	msecs_to_jiffies(20)

/**
 * struct hl_emu_nic_port - one NIC port.
 * @admin_up: this end of the link is up (debugfs nic/port<N>/link).
 */
struct hl_emu_nic_port {
	bool admin_up;
};

/**
 * struct hl_emu_nic - a device's NIC as the fabric sees it.
 * @refcount: the device holds one from hw_init to early_fini; peer engines
 *	one each while they use it.
 * @hdev: the device; the NIC holds a reference on it.
 * @id: the device's module id.
 * @detached: set once by hw_fini under hdev->engine_access_rwsem held for
 *	write; read under it held for read. Once set, no engine touches the
 *	device's memory from outside.
 * @ports: the ports.
 */
struct hl_emu_nic {
	struct kref refcount;
	struct hl_device *hdev;
	u32 id;
	bool detached;
	struct hl_emu_nic_port ports[HL_EMU_NIC_PORTS];
};

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

	hl_device_put(nic->hdev);
	kfree(nic);
}

static void hl_emu_nic_put(struct hl_emu_nic *nic)
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
		dev_hl_err(hdev, "nic_links=\"%s\" is not a valid cabling\n",
			   hl_nic_links);
		return rc;
	}

	/* After a hard reset: the same NIC joins the fabric again */
	nic = emu->nic;
	if (nic) {
		down_write(&hdev->engine_access_rwsem);
		nic->detached = false;
		up_write(&hdev->engine_access_rwsem);
		goto join;
	}

	nic = kzalloc(sizeof(*nic), GFP_KERNEL);
	if (!nic)
		return -ENOMEM;
	kref_init(&nic->refcount);
	hl_device_get(hdev);
	nic->hdev = hdev;
	nic->id = hdev->id;
	for (i = 0; i < HL_EMU_NIC_PORTS; i++)
		nic->ports[i].admin_up = true;
	emu->nic = nic;

join:
	spin_lock(&hl_emu_fabric_lock);
	hl_emu_fabric[nic->id] = nic;
	spin_unlock(&hl_emu_fabric_lock);
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

	spin_lock(&hl_emu_fabric_lock);
	if (hl_emu_fabric[nic->id] == nic)
		hl_emu_fabric[nic->id] = NULL;
	spin_unlock(&hl_emu_fabric_lock);

	/* Waits for the peer engines' chunks in flight to this device */
	down_write(&hdev->engine_access_rwsem);
	nic->detached = true;
	up_write(&hdev->engine_access_rwsem);
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
		debugfs_create_bool("link", 0644, port_dir,
				    &nic->ports[i].admin_up);
	}
}

/* ------------------------------------------------------------------------
 * The NIC engine
 */

/**
 * struct hl_emu_nic_xfer - one message being sent.
 * @q: the sending queue.
 * @job: its job.
 * @nic: this device's NIC.
 * @conn: the sending connection (a reference).
 * @admitted: @conn counted the send in its sq_posted.
 * @epoch: @conn's epoch at admission.
 * @tx_held: this send holds @conn's tx_busy.
 * @stopped: the device is stopping: the job fails with -ENODEV.
 * @remote_conn_id: the peer connection.
 * @mtu: @conn's MTU.
 * @psn: PSN of the first packet.
 * @npkts: packets of the message.
 * @addr: device VA of the message.
 * @size: bytes of the message.
 * @moved: bytes that reached the peer.
 * @peer: the peer's NIC (a reference), once matched.
 * @rctx: the peer connection's context (a reference), once matched.
 * @rconn: the peer connection (a reference), once matched.
 * @wr: the peer's receive, ACTIVE, once matched.
 * @r_epoch: @rconn's epoch when @wr was taken.
 */
struct hl_emu_nic_xfer {
	struct hl_emu_queue *q;
	struct hl_cs_job *job;
	struct hl_emu_nic *nic;
	struct hl_nic_conn *conn;
	bool admitted;
	u32 epoch;
	bool tx_held;
	bool stopped;
	u32 remote_conn_id;
	u32 mtu;
	u32 psn;
	u32 npkts;
	u64 addr;
	u64 size;
	u64 moved;
	struct hl_emu_nic *peer;
	struct hl_ctx *rctx;
	struct hl_nic_conn *rconn;
	struct hl_nic_wr *wr;
	u32 r_epoch;
};

static long hl_emu_nic_slice(struct hl_cs_job *job)
{
	long left = (long)(job->deadline - jiffies);

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

/* What the receiver's completion says when the sender's ends with @status */
static u32 hl_emu_nic_recv_status(u32 status)
{
	switch (status) {
	case HL_NIC_CQE_STATUS_SUCCESS:
	case HL_NIC_CQE_STATUS_LEN_ERR:
	case HL_NIC_CQE_STATUS_LINK_DOWN:
	case HL_NIC_CQE_STATUS_PSN_ERR:
		return status;
	case HL_NIC_CQE_STATUS_REMOTE_FAULT:
		return HL_NIC_CQE_STATUS_LOCAL_FAULT;
	case HL_NIC_CQE_STATUS_REMOTE_ERR:
		return HL_NIC_CQE_STATUS_FLUSHED;
	default:
		return HL_NIC_CQE_STATUS_REMOTE_ABORT;
	}
}

static void hl_emu_nic_push(struct hl_nic_cq *cq, struct hl_nic_conn *conn,
			    u32 opcode, u32 status, u64 wr_id, u64 byte_len,
			    u32 psn)
{
	struct hl_nic_cqe cqe = {
		.wr_id = wr_id,
		.byte_len = byte_len,
		.conn_id = conn->id,
		.port = conn->port,
		.opcode = opcode,
		.status = status,
		.psn = psn,
	};

	if (!cq)
		return;
	hl_nic_cq_push(cq, &cqe);
	hl_nic_cq_put(cq);
}

/* 1. Admission; takes a reference on the send CQ in *@cq (maybe NULL) */
static u32 hl_emu_nic_send_admit(struct hl_emu_nic_xfer *x,
				 struct hl_nic_cq **cq)
{
	struct hl_nic_conn *conn = x->conn;
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;

	spin_lock(&conn->lock);
	*cq = hl_nic_cq_get(conn->send_cq);
	if (conn->state != HL_NIC_CONN_STATE_RTS) {
		status = HL_NIC_CQE_STATUS_FLUSHED;
	} else if (conn->sq_posted >= conn->sq_size) {
		status = HL_NIC_CQE_STATUS_WQ_FULL;
	} else {
		conn->sq_posted++;
		x->admitted = true;
		x->epoch = conn->epoch;
		x->remote_conn_id = conn->remote_conn_id;
		x->mtu = conn->mtu;
	}
	spin_unlock(&conn->lock);

	if (x->admitted)
		x->npkts = max_t(u64, 1, DIV_ROUND_UP_ULL(x->size, x->mtu));
	return status;
}

static bool hl_emu_nic_turn_ready(struct hl_emu_nic_xfer *x)
{
	return !READ_ONCE(x->conn->tx_busy) ||
	       READ_ONCE(x->conn->epoch) != x->epoch;
}

/* 2. The wire: wait until no other message of the connection is on it */
static u32 hl_emu_nic_send_turn(struct hl_emu_nic_xfer *x)
{
	struct hl_nic_conn *conn = x->conn;
	u32 status;

	for (;;) {
		spin_lock(&conn->lock);
		if (conn->epoch != x->epoch) {
			status = HL_NIC_CQE_STATUS_FLUSHED;
		} else if (!conn->tx_busy) {
			WRITE_ONCE(conn->tx_busy, true);
			x->tx_held = true;
			x->psn = conn->sq_psn;
			status = HL_NIC_CQE_STATUS_SUCCESS;
		} else {
			status = U32_MAX;
		}
		spin_unlock(&conn->lock);
		if (status != U32_MAX)
			return status;

		status = hl_emu_nic_job_check(x->q, x->job, &x->stopped);
		if (status)
			return status;
		wait_event_timeout(conn->wq, hl_emu_nic_turn_ready(x),
				   hl_emu_nic_slice(x->job));
	}
}

static bool hl_emu_nic_rq_ready(struct hl_nic_conn *rconn,
				struct hl_emu_nic_xfer *x)
{
	return !list_empty_careful(&rconn->rq) ||
	       READ_ONCE(x->conn->epoch) != x->epoch;
}

/*
 * Under @rconn's lock: take the oldest receive of @rconn for @x, or fail
 * the match. U32_MAX: nothing to take yet.
 */
static u32 hl_emu_nic_take_recv_locked(struct hl_emu_nic_xfer *x,
				       struct hl_nic_conn *rconn,
				       u32 peer_port)
{
	struct hl_nic_conn *conn = x->conn;
	struct hl_nic_wr *wr;

	/* A connection set up for another peer ignores us, as on the wire */
	if (rconn->port != peer_port || rconn->remote_conn_id != conn->id ||
	    rconn->remote_addr != hl_emu_nic_addr(x->nic->id, conn->port))
		return U32_MAX;
	if (rconn->state == HL_NIC_CONN_STATE_ERR)
		return HL_NIC_CQE_STATUS_REMOTE_ERR;
	if (rconn->state != HL_NIC_CONN_STATE_RTR &&
	    rconn->state != HL_NIC_CONN_STATE_RTS)
		return U32_MAX;

	wr = list_first_entry_or_null(&rconn->rq, struct hl_nic_wr, node);
	/* A receive of an older epoch is about to be withdrawn by its poster */
	if (!wr || wr->epoch != rconn->epoch)
		return U32_MAX;

	list_del_init(&wr->node);
	if (rconn->rq_psn != x->psn) {
		wr->status = HL_NIC_CQE_STATUS_PSN_ERR;
		wr->psn = x->psn;
		WRITE_ONCE(wr->state, HL_NIC_WR_DONE);
		hl_nic_conn_fail_locked(rconn, wr->epoch);
		wake_up_all(&rconn->wq);
		return HL_NIC_CQE_STATUS_PSN_ERR;
	}

	wr->state = HL_NIC_WR_ACTIVE;
	rconn->rq_psn = (x->psn + x->npkts) & HL_NIC_PSN_MASK;
	x->wr = wr;
	x->r_epoch = rconn->epoch;
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* 3. Matching: on success @x holds the peer, its connection and receive */
static u32 hl_emu_nic_send_match(struct hl_emu_nic_xfer *x)
{
	struct hl_nic_conn *conn = x->conn;
	struct hl_nic_conn *rconn;
	struct hl_emu_nic *peer;
	struct hl_ctx *rctx;
	u32 status, peer_port;

	for (;;) {
		status = hl_emu_nic_job_check(x->q, x->job, &x->stopped);
		if (status)
			return status;
		if (READ_ONCE(conn->epoch) != x->epoch)
			return HL_NIC_CQE_STATUS_FLUSHED;

		peer = hl_emu_link_peer_get(x->nic, conn->port, &peer_port);
		if (!peer)
			return HL_NIC_CQE_STATUS_LINK_DOWN;

		rconn = hl_nic_conn_get_remote(peer->hdev, x->remote_conn_id,
					       &rctx);
		if (!rconn) {
			hl_emu_nic_put(peer);
			/* Not created yet: wait, as for a receive not posted */
			wait_event_timeout(conn->wq,
					   READ_ONCE(conn->epoch) != x->epoch,
					   hl_emu_nic_slice(x->job));
			continue;
		}

		spin_lock(&rconn->lock);
		status = hl_emu_nic_take_recv_locked(x, rconn, peer_port);
		spin_unlock(&rconn->lock);

		if (status == HL_NIC_CQE_STATUS_SUCCESS) {
			x->peer = peer;
			x->rctx = rctx;
			x->rconn = rconn;
			return status;
		}
		if (status == U32_MAX)
			wait_event_timeout(rconn->wq,
					   hl_emu_nic_rq_ready(rconn, x),
					   hl_emu_nic_slice(x->job));
		hl_nic_conn_put(rconn);
		hl_ctx_put(rctx);
		hl_emu_nic_put(peer);
		if (status != U32_MAX)
			return status;
	}
}

/*
 * @len bytes of q->buf into the peer's memory at @va, run by run through
 * the peer's MMU (hl_emu_mmu_span() without a TLB, under the peer's
 * engine_access_rwsem); SUCCESS, LINK_DOWN or REMOTE_FAULT, after which
 * *@done bytes were written.
 */
static u32 hl_emu_nic_write_peer(struct hl_emu_nic_xfer *x, u64 va, u64 len,
				 u64 *done)
{
	struct hl_device *peer_hdev = x->peer->hdev;
	u32 status = HL_NIC_CQE_STATUS_LINK_DOWN;
	struct hl_emu_span d;
	int idx;

	*done = 0;
	idx = hl_device_enter(peer_hdev);
	if (!hl_device_unplugged(peer_hdev)) {
		down_read(&peer_hdev->engine_access_rwsem);
		/*
		 * Checked again under the rwsem: a peer context torn down
		 * since the last check flushed its connection before its
		 * teardown drained the engines, so its ASID is not used
		 * after it may have changed hands.
		 */
		if (READ_ONCE(x->rconn->epoch) != x->r_epoch) {
			status = HL_NIC_CQE_STATUS_REMOTE_ERR;
		} else if (!x->peer->detached) {
			status = HL_NIC_CQE_STATUS_SUCCESS;
			for (; *done < len; *done += d.len) {
				if (hl_emu_mmu_span(to_emu(peer_hdev), NULL,
						    x->rctx->asid, va + *done,
						    len - *done, &d)) {
					status = HL_NIC_CQE_STATUS_REMOTE_FAULT;
					break;
				}
				hl_emu_span_write(&d, x->q->buf + *done, d.len);
			}
		}
		up_read(&peer_hdev->engine_access_rwsem);
	}
	hl_device_exit(peer_hdev, idx);

	if (status == HL_NIC_CQE_STATUS_REMOTE_FAULT) {
		dev_dbg(peer_hdev->dev,
			"NIC: MMU fault, write at VA 0x%llx of connection %u\n",
			va + *done, x->rconn->id);
		hl_ctx_record_fault(x->rctx, va + *done, x->wr->queue_id, true);
	}
	return status;
}

/*
 * Up to @len bytes of this device's memory at @va into q->buf, run by run
 * through the queue's TLB; *@got bytes were read, -EFAULT if fewer than
 * @len.
 */
static int hl_emu_nic_read_local(struct hl_emu_queue *q, u32 asid, u64 va,
				 u64 len, u64 *got)
{
	struct hl_device *hdev = q->emu->hdev;
	struct hl_emu_span s;
	int rc = 0;

	down_read(&hdev->engine_access_rwsem);
	for (*got = 0; *got < len; *got += s.len) {
		rc = hl_emu_mmu_span(q->emu, q, asid, va + *got, len - *got,
				     &s);
		if (rc)
			break;
		hl_emu_span_read(&s, q->buf + *got, s.len);
	}
	up_read(&hdev->engine_access_rwsem);
	return rc;
}

/*
 * 4. The copy, in steps of at most HL_EMU_NIC_STEP bytes through q->buf:
 * this device's engine_access_rwsem is held while reading a step, the
 * peer's while writing it, never both. Bytes read before a local fault are
 * still delivered, as the packets before it would be.
 */
static u32 hl_emu_nic_send_copy(struct hl_emu_nic_xfer *x)
{
	struct hl_emu_queue *q = x->q;
	struct hl_device *hdev = q->emu->hdev;
	struct hl_cs_job *job = x->job;
	u64 src = x->addr, dst = x->wr->addr, left = x->size, got, put;
	u32 status;
	int rc;

	if (x->size > x->wr->size)
		return HL_NIC_CQE_STATUS_LEN_ERR;

	while (left) {
		status = hl_emu_nic_job_check(q, job, &x->stopped);
		if (status)
			return status;
		if (READ_ONCE(x->conn->epoch) != x->epoch)
			return HL_NIC_CQE_STATUS_FLUSHED;
		if (READ_ONCE(x->rconn->epoch) != x->r_epoch)
			return HL_NIC_CQE_STATUS_REMOTE_ERR;
		if (!hl_emu_link_up(x->nic, x->conn->port))
			return HL_NIC_CQE_STATUS_LINK_DOWN;

		rc = hl_emu_nic_read_local(q, job->ctx->asid, src,
					   min_t(u64, left, HL_EMU_NIC_STEP),
					   &got);
		status = HL_NIC_CQE_STATUS_SUCCESS;
		if (got)
			status = hl_emu_nic_write_peer(x, dst, got, &put);
		if (got && status) {
			x->moved += put;
			return status;
		}
		if (rc) {
			dev_dbg(hdev->dev,
				"queue %u: MMU fault, NIC read at VA 0x%llx\n",
				q->id, src + got);
			hl_ctx_record_fault(job->ctx, src + got, q->id, false);
			x->moved += got;
			return HL_NIC_CQE_STATUS_LOCAL_FAULT;
		}

		src += got;
		dst += got;
		left -= got;
		x->moved += got;
	}
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* 5. Completion of the peer's receive and of this connection's send */
static void hl_emu_nic_send_finish(struct hl_emu_nic_xfer *x, u32 status)
{
	struct hl_nic_conn *conn = x->conn;
	struct hl_nic_conn *rconn = x->rconn;
	struct hl_nic_wr *wr = x->wr;

	if (wr) {
		spin_lock(&rconn->lock);
		wr->status = hl_emu_nic_recv_status(status);
		wr->byte_len = x->moved;
		wr->psn = x->psn;
		WRITE_ONCE(wr->state, HL_NIC_WR_DONE);
		if (wr->status)
			hl_nic_conn_fail_locked(rconn, x->r_epoch);
		/* The poster may free @wr once it sees DONE under the lock */
		wake_up_all(&rconn->wq);
		spin_unlock(&rconn->lock);
	}

	spin_lock(&conn->lock);
	if (x->tx_held) {
		WRITE_ONCE(conn->tx_busy, false);
		if (!status && conn->epoch == x->epoch)
			conn->sq_psn = (x->psn + x->npkts) & HL_NIC_PSN_MASK;
	}
	if (x->admitted) {
		conn->sq_posted--;
		if (status)
			hl_nic_conn_fail_locked(conn, x->epoch);
	}
	wake_up_all(&conn->wq);
	spin_unlock(&conn->lock);

	if (rconn) {
		hl_nic_conn_put(rconn);
		hl_ctx_put(x->rctx);
		hl_emu_nic_put(x->peer);
	}
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
	u64 wr_id = le64_to_cpu(pkt->wr_id);
	struct hl_nic_cq *cq;
	u32 status;

	if (x.size > HL_NIC_MAX_MSG_SIZE)
		return -EINVAL;
	x.conn = hl_nic_conn_get(job->ctx, le32_to_cpu(pkt->conn_id));
	if (!x.conn)
		return -EINVAL;

	status = hl_emu_nic_send_admit(&x, &cq);
	if (!status)
		status = hl_emu_nic_send_turn(&x);
	if (!status)
		status = hl_emu_nic_send_match(&x);
	if (!status)
		status = hl_emu_nic_send_copy(&x);
	hl_emu_nic_send_finish(&x, status);

	if (status)
		dev_dbg(q->emu->hdev->dev,
			"queue %u: NIC send on connection %u: status %u\n",
			q->id, x.conn->id, status);
	hl_emu_nic_push(cq, x.conn, HL_NIC_CQE_OP_SEND, status, wr_id,
			x.moved, x.psn);
	hl_nic_conn_put(x.conn);
	return hl_emu_nic_errno(status, x.stopped);
}

/* Why a posted receive ends without a sender, or SUCCESS to keep waiting */
static u32 hl_emu_nic_recv_check(struct hl_emu_queue *q, struct hl_cs_job *job,
				 struct hl_nic_conn *conn,
				 struct hl_nic_wr *wr, bool *stopped)
{
	u32 status = hl_emu_nic_job_check(q, job, stopped);

	if (status)
		return status;
	if (READ_ONCE(conn->epoch) != wr->epoch)
		return HL_NIC_CQE_STATUS_FLUSHED;
	if (!hl_emu_link_up(q->emu->nic, conn->port))
		return HL_NIC_CQE_STATUS_LINK_DOWN;
	return HL_NIC_CQE_STATUS_SUCCESS;
}

/* Wait until @wr is DONE; withdraws it when it can no longer be filled */
static void hl_emu_nic_recv_wait(struct hl_emu_queue *q, struct hl_cs_job *job,
				 struct hl_nic_conn *conn,
				 struct hl_nic_wr *wr, bool *stopped)
{
	u32 why;

	for (;;) {
		wait_event_timeout(conn->wq,
				   READ_ONCE(wr->state) == HL_NIC_WR_DONE,
				   hl_emu_nic_slice(job));
		why = hl_emu_nic_recv_check(q, job, conn, wr, stopped);

		spin_lock(&conn->lock);
		if (wr->state == HL_NIC_WR_POSTED && why) {
			list_del_init(&wr->node);
			wr->status = why;
			WRITE_ONCE(wr->state, HL_NIC_WR_DONE);
			if (!*stopped)
				hl_nic_conn_fail_locked(conn, wr->epoch);
		}
		if (wr->state == HL_NIC_WR_DONE) {
			conn->rq_posted--;
			spin_unlock(&conn->lock);
			return;
		}
		/* ACTIVE: the sender completes it within a chunk */
		spin_unlock(&conn->lock);
	}
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
	struct hl_nic_wr wr = {
		.addr = le64_to_cpu(pkt->addr),
		.size = le64_to_cpu(pkt->size),
		.wr_id = le64_to_cpu(pkt->wr_id),
		.queue_id = q->id,
		.state = HL_NIC_WR_POSTED,
	};
	struct hl_nic_conn *conn;
	bool stopped = false;
	struct hl_nic_cq *cq;
	u32 status = HL_NIC_CQE_STATUS_SUCCESS;

	if (wr.size > HL_NIC_MAX_MSG_SIZE)
		return -EINVAL;
	conn = hl_nic_conn_get(job->ctx, le32_to_cpu(pkt->conn_id));
	if (!conn)
		return -EINVAL;
	INIT_LIST_HEAD(&wr.node);

	spin_lock(&conn->lock);
	cq = hl_nic_cq_get(conn->recv_cq);
	if (conn->state != HL_NIC_CONN_STATE_RTR &&
	    conn->state != HL_NIC_CONN_STATE_RTS) {
		status = HL_NIC_CQE_STATUS_FLUSHED;
	} else if (conn->rq_posted >= conn->rq_size) {
		status = HL_NIC_CQE_STATUS_WQ_FULL;
	} else {
		wr.epoch = conn->epoch;
		list_add_tail(&wr.node, &conn->rq);
		conn->rq_posted++;
		/* A sender may be waiting for it */
		wake_up_all(&conn->wq);
	}
	spin_unlock(&conn->lock);

	if (!status) {
		hl_emu_nic_recv_wait(q, job, conn, &wr, &stopped);
		status = wr.status;
	}

	if (status)
		dev_dbg(q->emu->hdev->dev,
			"queue %u: NIC receive on connection %u: status %u\n",
			q->id, conn->id, status);
	hl_emu_nic_push(cq, conn, HL_NIC_CQE_OP_RECV, status, wr.wr_id,
			wr.byte_len, wr.psn);
	hl_nic_conn_put(conn);
	return hl_emu_nic_errno(status, stopped);
}
