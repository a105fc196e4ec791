// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs emu: the NIC's fabric and cabling: each device's NIC and its
 * ports, the registry of the bound devices, the cables between their
 * ports and the state of the links (asic_funcs nic_port_info,
 * nic_check_remote, nic_peer_get, debugfs_init). The wire that runs on
 * the links is in the files by role: the QP contexts (emu_nic_qp.c), the
 * requester (emu_nic_req.c), the responder (emu_nic_resp.c) and the
 * completer (emu_nic_comp.c). A WRITE meets this file twice: its
 * requester finds the peer NIC across the link when it matches
 * (hl_emu_link_peer_get()) and checks the link between the steps of its
 * copy (hl_emu_link_up()).
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
 * Locks: hl_emu_fabric_lock guards the registry (innermost: the lock
 * order is in habanalabs.h, above struct hl_device); hl_emu_cabling_lock
 * the parse of nic_links, hl_emu_link_switch_lock a debugfs link switch.
 * This file takes no lock of the core's.
 */

#include <linux/debugfs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "emu.h"
#include "emu_nic.h"

#define HL_EMU_NIC_ADDR_BASE	0x02484c000000ull
#define HL_EMU_NIC_ADDR_LOW	0xffffull

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

u64 hl_emu_nic_addr(u32 id, u32 port)
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
struct hl_emu_nic *hl_emu_link_peer_get(struct hl_emu_nic *nic, u32 port,
					u32 *peer_port)
{
	struct hl_emu_nic *peer;

	spin_lock(&hl_emu_fabric_lock);
	peer = hl_emu_link_peer_locked(nic, port, peer_port);
	if (peer)
		kref_get(&peer->refcount);
	spin_unlock(&hl_emu_fabric_lock);
	return peer;
}

bool hl_emu_link_up(struct hl_emu_nic *nic, u32 port)
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
