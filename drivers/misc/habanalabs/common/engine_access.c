// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs: engine accesses, what a backend's engines call around each
 * access to device memory instead of touching the core's locks
 * (engine_access.h). An access holds the device's engine_access_rwsem for
 * read; the unmap paths and hw_fini wait for the accesses in flight
 * (hl_device_hw_quiesce()). An access to another device's memory (the
 * emulated NIC) holds that device's unplug SRCU too, so that it is not
 * removed under the access; two devices' accesses are taken in the order
 * of their indexes (habanalabs.h's lock order).
 */

#include "habanalabs.h"
#include "device.h"
#include "engine_access.h"

/**
 * hl_device_hw_access_begin - one of the device's own engines starts an
 * access to memory through the device's page tables (a chunk or a slice).
 * @hdev: the device; its engines run only while it is bound.
 *
 * Until hl_device_hw_access_end(), no page that the access may have
 * translated to is released: the unmap paths wait for it
 * (hl_device_hw_quiesce()). Sleeps; takes nothing else of the core's.
 */
void hl_device_hw_access_begin(struct hl_device *hdev)
{
	down_read(&hdev->engine_access_rwsem);
}

/**
 * hl_device_hw_access_end - end an access begun by
 * hl_device_hw_access_begin().
 * @hdev: the device.
 */
void hl_device_hw_access_end(struct hl_device *hdev)
{
	up_read(&hdev->engine_access_rwsem);
}

/**
 * hl_device_hw_access_assert - assert that the caller is inside an engine
 * access (hl_device_hw_access_begin() or hl_device_hw_enter()).
 * @hdev: the device.
 */
void hl_device_hw_access_assert(struct hl_device *hdev)
{
	lockdep_assert_held_read(&hdev->engine_access_rwsem);
}

/**
 * hl_device_hw_enter - another device's engine (the emulated NIC's peer
 * write) starts an access to this device's memory.
 * @hdev: the device; the caller holds a reference on it.
 * @idx: receives the index to pass to hl_device_hw_exit().
 *
 * Keeps the device from being removed until hl_device_hw_exit() (its
 * unplug SRCU) and, when it is still there, opens an engine access as
 * hl_device_hw_access_begin() does. Always paired with
 * hl_device_hw_exit(), whatever it returns.
 *
 * Return: true when the device is there and the access may go on; false
 * when it has been removed: touch nothing.
 */
bool hl_device_hw_enter(struct hl_device *hdev, int *idx)
	__acquires(&hdev->unplug_srcu)
{
	*idx = srcu_read_lock(&hdev->unplug_srcu);
	if (hl_device_unplugged(hdev))
		return false;
	down_read(&hdev->engine_access_rwsem);
	return true;
}

/**
 * hl_device_hw_exit - end what hl_device_hw_enter() began.
 * @hdev: the device.
 * @idx: the index hl_device_hw_enter() gave.
 * @entered: what hl_device_hw_enter() returned.
 */
void hl_device_hw_exit(struct hl_device *hdev, int idx, bool entered)
	__releases(&hdev->unplug_srcu)
{
	if (entered)
		up_read(&hdev->engine_access_rwsem);
	srcu_read_unlock(&hdev->unplug_srcu, idx);
}

/**
 * hl_device_hw_before - whether @a's locks come before @b's when one
 * holds two devices' at once (habanalabs.h's lock order): the lower
 * device index first.
 * @a: a device.
 * @b: another device.
 *
 * Return: true when @a's go first.
 */
bool hl_device_hw_before(const struct hl_device *a, const struct hl_device *b)
{
	/* Two live devices never share an index */
	WARN_ON_ONCE(a != b && a->id == b->id);
	return a->id < b->id;
}

/**
 * hl_device_hw_enter_pair - an engine of @hdev starts an access to its own
 * memory and to @peer's at once (the emulated NIC's copy).
 * @hdev: the engine's device; its engines run only while it is bound.
 * @peer: the other device; the caller holds a reference on it. May be
 *	@hdev (a loopback): then one access is opened, never two.
 * @idx: receives the index to pass to hl_device_hw_exit_pair().
 *
 * Enters @peer's unplug SRCU first and, when @peer is still there, opens
 * both engine accesses in the order of hl_device_hw_before(); else only
 * @hdev's. An inversion would deadlock against two quiescers (a waiting
 * writer blocks new readers): each device's access is a lockdep class of
 * its own (by index, set at probe), so that lockdep checks the order
 * whoever takes two. Always paired with hl_device_hw_exit_pair(),
 * whatever it returns.
 *
 * Return: true when both accesses are open; false when @peer has been
 * removed: only @hdev's is, touch nothing of @peer's.
 */
bool hl_device_hw_enter_pair(struct hl_device *hdev, struct hl_device *peer,
			     int *idx)
	__acquires(&peer->unplug_srcu)
{
	struct hl_device *first = hdev, *second = peer;

	*idx = srcu_read_lock(&peer->unplug_srcu);
	if (peer == hdev || hl_device_unplugged(peer)) {
		down_read(&hdev->engine_access_rwsem);
		return peer == hdev;
	}
	if (hl_device_hw_before(peer, hdev))
		swap(first, second);
	down_read(&first->engine_access_rwsem);
	down_read(&second->engine_access_rwsem);
	return true;
}

/**
 * hl_device_hw_exit_pair - end what hl_device_hw_enter_pair() began.
 * @hdev: the engine's device.
 * @peer: the other device.
 * @idx: the index hl_device_hw_enter_pair() gave.
 * @entered: what hl_device_hw_enter_pair() returned.
 */
void hl_device_hw_exit_pair(struct hl_device *hdev, struct hl_device *peer,
			    int idx, bool entered)
	__releases(&peer->unplug_srcu)
{
	if (entered && peer != hdev)
		up_read(&peer->engine_access_rwsem);
	up_read(&hdev->engine_access_rwsem);
	srcu_read_unlock(&peer->unplug_srcu, idx);
}

/**
 * hl_device_hw_quiesce - wait until no engine access that began before the
 * call (hl_device_hw_access_begin(), hl_device_hw_enter()) still runs.
 * @hdev: the device.
 *
 * An access that begins after it returns sees what the caller stored
 * before the call. Sleeps; the caller holds no engine access.
 */
void hl_device_hw_quiesce(struct hl_device *hdev)
{
	down_write(&hdev->engine_access_rwsem);
	up_write(&hdev->engine_access_rwsem);
}
